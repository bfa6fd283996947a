// What text the service accepts, the same on every backend (docs/api.md, Text). PostgreSQL
// refuses NUL in text and lone surrogates in JSON, SQLite stores both, and a terminal obeys
// escape sequences and direction overrides printed from a title: so every string a request
// carries is checked here, in the shared schemas, before any store sees it.

const C0_C1 = '\\u0000-\\u001f\\u007f-\\u009f';
/** Embeddings, overrides and isolates: they make text display in another order than it is stored. */
const BIDI = '\\u202a-\\u202e\\u2066-\\u2069';

/** C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates. */
export const CONTROL_CHARACTERS = new RegExp(`[${C0_C1}${BIDI}]`);

/** A surrogate half without its other half: not a character, and not valid UTF-8 anywhere. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** In text that may span lines: tab, newline and CR before a newline are allowed. */
const MULTILINE_CONTROLS = new RegExp(
  `[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI}]|\\r(?!\\n)`,
);

/**
 * Something a person can see: not only spaces, invisible format characters (zero-width space,
 * joiners, direction marks), fillers or combining marks.
 */
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{M}\p{Cs}]/u;

export const SINGLE_LINE_RULE =
  'must not contain control characters (U+0000–U+001F, U+007F–U+009F), direction overrides (U+202A–U+202E, U+2066–U+2069) or lone surrogates';
export const MULTI_LINE_RULE =
  'must not contain control characters other than tab and newline (U+0000–U+001F, U+007F–U+009F), direction overrides (U+202A–U+202E, U+2066–U+2069) or lone surrogates';
export const VISIBLE_RULE = 'must contain a visible character';

/** One line of text: a name, a title, a hashtag, a key, a search. */
export function isSingleLine(text: string): boolean {
  return !CONTROL_CHARACTERS.test(text) && !LONE_SURROGATE.test(text);
}

/** Text that may span lines: a description, a string in platformSettings. */
export function isMultiLine(text: string): boolean {
  return !MULTILINE_CONTROLS.test(text) && !LONE_SURROGATE.test(text);
}

export function hasVisible(text: string): boolean {
  return VISIBLE.test(text);
}

/** The first string (object key or value) anywhere in a JSON value that is not valid multi-line text. */
export function badStringIn(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === 'string') return isMultiLine(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = badStringIn(value[i], [...path, String(i)]);
      if (bad) return bad;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!isMultiLine(k)) return [...path, k];
      const bad = badStringIn(v, [...path, k]);
      if (bad) return bad;
    }
  }
  return null;
}

/** Brand names (`keys create --brand`) and key names (`--name`): one printable line a person can read back. */
export const NAME_MAX_CHARS = 100;
export const BRAND_NAME_MAX_CHARS = NAME_MAX_CHARS;

/** Why `name` cannot name a brand or a key, or null when it can. */
export function nameProblem(name: string): string | null {
  if (!name.trim()) return 'must not be empty';
  if ([...name].length > NAME_MAX_CHARS) return `must be at most ${NAME_MAX_CHARS} characters`;
  if (!isSingleLine(name)) return SINGLE_LINE_RULE;
  if (!hasVisible(name)) return VISIBLE_RULE;
  return null;
}

/** Why `name` cannot name a brand, or null when it can. */
export const brandNameProblem = nameProblem;
