// File names may hold anything but '/' and NUL: a newline or a tab in a name would split a row
// of tab-separated output or a progress line, an escape sequence would drive the terminal, and
// a right-to-left override would show the name reversed. Names are printed the way git quotes
// paths: unchanged when harmless; otherwise in double quotes with C escapes (\n, \t, \\, \")
// and octal bytes (\033, \342\200\256) for every other control or direction character.
// Letters and emoji of any script are harmless and stay as they are.

// C0 controls, DEL, C1 controls, line and paragraph separators, and the invisible direction
// marks, embeddings, overrides and isolates (U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above, plus the quote and the backslash
const TO_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"\\]/g;

const NAMED: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

/** True when `name` would print as something other than itself. */
export function needsEscape(name: string): boolean {
  return UNSAFE.test(name);
}

/** `name` as it is safe to print: itself, or quoted with escapes (`"a\nb.mp4"`). */
export function escapeName(name: string): string {
  if (!needsEscape(name)) return name;
  return `"${name.replace(TO_ESCAPE, (ch) => NAMED[ch] ?? octal(ch))}"`;
}

function octal(ch: string): string {
  return [...Buffer.from(ch, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
}

// eslint-disable-next-line no-control-regex -- the characters a field must not print raw
const TEXT_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const TEXT_NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * Any text a command prints (a title, a description, a hashtag, a server's message) as it is
 * safe to print on a terminal: every control or direction character shown as an escape (`\x1b`,
 * `\u202e`, `\t`), so ESC sequences never reach the terminal and text is never shown reversed.
 * Unlike escapeName it adds no quotes: text is shown where it stands. `lines`: newlines stay
 * (a description over several lines).
 */
export function escapeText(text: string, o: { lines?: boolean } = {}): string {
  return text.replace(TEXT_UNSAFE, (ch) => {
    if (ch === '\n' && o.lines) return ch;
    const named = TEXT_NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
