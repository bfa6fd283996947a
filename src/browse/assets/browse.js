// contentlib browse: the little script the pages have. Every page works without it (forms post,
// links navigate); it only helps. Loaded from this server under a CSP that allows no other script.

// "/" moves to the title search, as on many sites; not while typing in a field.
document.addEventListener('keydown', (event) => {
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]')) return;
  const search = document.querySelector('input[name="search"]');
  if (!(search instanceof HTMLInputElement)) return;
  event.preventDefault();
  search.focus();
  search.select();
});

// Platform settings: say at once when the JSON does not parse (the server checks it again).
const settings = document.querySelector('textarea[name="platformSettings"]');
if (settings instanceof HTMLTextAreaElement) {
  const check = () => {
    let message = '';
    if (settings.value.trim() !== '') {
      try {
        const value = JSON.parse(settings.value);
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          message = 'Platform settings must be a JSON object, e.g. {"youtube": {"visibility": "private"}}.';
      } catch (err) {
        message = `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    settings.setCustomValidity(message);
  };
  settings.addEventListener('input', check);
  check();
}
