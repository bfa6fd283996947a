// The pages' typographic characters, written as escapes and put into html`…` as values: the CLI
// bundle must stay ASCII (scripts/build.js says why), and esbuild escapes strings but not the text
// of a tagged template. Rendered the same: none of them is escaped as HTML.
export const MIDDOT = '\u00b7';
export const EM_DASH = '\u2014';
export const LEFT_ARROW = '\u2190';
export const RIGHT_ARROW = '\u2192';
export const UP_ARROW = '\u2191';
export const DOWN_ARROW = '\u2193';
export const SINGLE_RIGHT_QUOTE = '\u203a';
export const ELLIPSIS = '\u2026';
export const TIMES = '\u00d7';
