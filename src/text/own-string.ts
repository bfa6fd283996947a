// A string kept for a whole run, as a copy of its own. V8 makes a substring of 13 or more
// characters (dirname, slice, a path's relative part) a view of the string it was cut from, and
// the view keeps that whole string alive: a plan's per-folder path cut from its first file's
// path held 88 bytes where a copy holds ~48 (10,000 folders: 0.4 MB; bench/notes.md, issue 41).

/**
 * A flat copy of `s`, equal to it character for character (lone surrogates included: JSON keeps
 * them as escapes both ways). For strings kept long, not for every string: it costs a copy.
 */
export function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
