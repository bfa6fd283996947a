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

// A carousel's images: drag one onto another's place to reorder (the Move buttons do the same
// without a mouse, and without this script). The new order goes through the page's own order form.
const carousel = document.querySelector('ol.carousel');
const orderForm = document.getElementById('order-form');
const orderStatus = document.getElementById('order-status');
if (carousel && orderForm instanceof HTMLFormElement) {
  const slides = () => [...carousel.querySelectorAll('li.slide')];
  const say = (text) => {
    if (orderStatus) orderStatus.textContent = text;
  };
  const nameOf = (slide) => slide.querySelector('figcaption')?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  let dragged = null;
  for (const slide of slides()) {
    slide.draggable = true;
    slide.addEventListener('dragstart', (event) => {
      dragged = slide;
      slide.classList.add('dragging');
      event.dataTransfer?.setData('text/plain', slide.dataset.fileId ?? '');
      if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
      say(`Dragging ${nameOf(slide)}.`);
    });
    slide.addEventListener('dragend', () => {
      slide.classList.remove('dragging');
      dragged = null;
    });
    slide.addEventListener('dragover', (event) => {
      if (dragged && dragged !== slide) event.preventDefault();
    });
    slide.addEventListener('drop', (event) => {
      event.preventDefault();
      if (!dragged || dragged === slide) return;
      const all = slides();
      const from = all.indexOf(dragged);
      const to = all.indexOf(slide);
      slide.insertAdjacentElement(from < to ? 'afterend' : 'beforebegin', dragged);
      const ids = slides().map((s) => s.dataset.fileId ?? '');
      const field = orderForm.elements.namedItem('order');
      if (!(field instanceof HTMLInputElement)) return;
      field.value = ids.join(',');
      say(`Moving ${nameOf(dragged)} to position ${to + 1} of ${all.length}; saving.`);
      orderForm.requestSubmit();
    });
  }
  document.querySelector('.drag-hint')?.removeAttribute('hidden');
}

// After a move, the page opens at the image that moved: the keyboard goes on from there.
if (location.hash.startsWith('#slide-')) {
  const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target instanceof HTMLElement) target.focus();
}
