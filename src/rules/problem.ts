// A file breaking a rule: one line per file and rule, all listed at once before anything is
// sent. Found by inspection (src/media/inspect.ts) and by the upload plan (src/upload/), so it
// lives here, with the rules, below both.

export interface PlanProblem {
  /** The file (or input, or option) as the user named it, e.g. "clips/a.mp4" or "--title". */
  file: string;
  /** Which rule it breaks: format, size, duration, empty, exists, readable, video, type, carousel, thumbnail, metadata, sidecar, manifest, usage, extension. */
  rule: string;
  /** The value that broke the rule, as text ("94.2 s", "1.2 GB", "text/plain"). */
  actual: string;
  /** What is wrong, without the file name: "94.2 s is longer than shortform's 90 s". */
  message: string;
  /** What to do about it: "use --type longform". */
  hint?: string;
  /** The file's absolute path, when the problem is about one file (the NDJSON `file` object names it). */
  path?: string;
  /** The planned item it is about (0-based), when it is about an item rather than one file. */
  item?: number;
}

/** "clip.mp4: 94.2 s is longer than shortform's 90 s; use --type longform" */
export function formatProblem(p: PlanProblem): string {
  return p.hint ? `${p.file}: ${p.message}; ${p.hint}` : `${p.file}: ${p.message}`;
}
