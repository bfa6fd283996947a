// Turns what the user typed (files, directories, globs) into a list of candidate files, and
// says which files were passed over and why. Directories are walked recursively; every
// subdirectory is its own group (its images become their own carousel).
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, relative, resolve, isAbsolute } from 'node:path';
import fg from 'fast-glob';
import { formatOfName } from '../media/inspect.js';
import { escapeName } from '../text/escape-name.js';
import type { PlanProblem } from './plan-problem.js';

export interface Candidate {
  /** Absolute path. */
  path: string;
  /** How messages name it: relative to the working directory when inside it. */
  shown: string;
  /** Named on the command line (a non-media file is then a problem, not a skip). */
  named: boolean;
}

export interface Expanded {
  candidates: Candidate[];
  problems: PlanProblem[];
  skipped: Array<{ path: string; reason: string }>;
}

// Files the desktop leaves behind; they are hidden or junk, never media.
const JUNK = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini', 'Icon\r']);

const SIDECAR_SKIP = 'metadata file (.json): read as the sidecar of its video or carousel, not uploaded';

/**
 * The path as messages show it: relative to `cwd` when inside it, absolute otherwise, with
 * control characters escaped (a newline in a name must not split an output row).
 */
export function shownPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  return escapeName(rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs);
}

/** Why a file found by a walk or a glob is not a candidate, or undefined when it is one. */
export function skipReason(name: string): string | undefined {
  if (JUNK.has(name)) return 'system file';
  if (name.startsWith('.')) return 'hidden file';
  if (extname(name).toLowerCase() === '.json') return SIDECAR_SKIP;
  if (!formatOfName(name)) return `not a media file (${extname(name) || 'no extension'})`;
  return undefined;
}

/** Expands every input, in the order given, without duplicates. */
export async function expandInputs(inputs: readonly string[], cwd: string): Promise<Expanded> {
  const out: Expanded = { candidates: [], problems: [], skipped: [] };
  const seen = new Set<string>();
  const add = (c: Candidate) => {
    if (seen.has(c.path)) return;
    seen.add(c.path);
    out.candidates.push(c);
  };
  for (const input of inputs) await expandOne(input, cwd, out, add);
  return out;
}

async function expandOne(input: string, cwd: string, out: Expanded, add: (c: Candidate) => void): Promise<void> {
  const abs = resolve(cwd, input);
  const st = await stat(abs).catch((err: NodeJS.ErrnoException) => err);
  if (!(st instanceof Error)) {
    if (st.isDirectory()) await walk(abs, cwd, out, add, new Set());
    else if (extname(abs).toLowerCase() === '.json')
      out.skipped.push({ path: shownPath(abs, cwd), reason: SIDECAR_SKIP });
    else add({ path: abs, shown: shownPath(abs, cwd), named: true });
    return;
  }
  if (st.code === 'ENOENT' && fg.isDynamicPattern(input)) {
    await expandGlob(input, cwd, out, add);
    return;
  }
  const missing = st.code === 'ENOENT' || st.code === 'ENOTDIR';
  out.problems.push({
    file: escapeName(input),
    rule: missing ? 'exists' : 'readable',
    actual: st.code ?? 'error',
    message: missing ? 'does not exist' : `cannot be read (${st.message})`,
    hint: missing ? `check the path (relative paths start from ${cwd})` : 'check its permissions',
  });
}

async function expandGlob(pattern: string, cwd: string, out: Expanded, add: (c: Candidate) => void): Promise<void> {
  // Hidden files and folders are not matched (dot: false), as in a shell.
  const matches = await fg(pattern, {
    cwd,
    absolute: true,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: true,
    unique: true,
  });
  if (matches.length === 0) {
    out.problems.push({
      file: escapeName(pattern),
      rule: 'exists',
      actual: '0 matches',
      message: 'no files match this pattern',
      hint: `check the pattern (relative patterns start from ${cwd})`,
    });
    return;
  }
  matches.sort();
  for (const match of matches) {
    const abs = resolve(match);
    const reason = skipReason(match.slice(match.lastIndexOf('/') + 1));
    if (reason) out.skipped.push({ path: shownPath(abs, cwd), reason });
    else add({ path: abs, shown: shownPath(abs, cwd), named: false });
  }
}

/** Walks `dir` depth-first in name order; `visited` holds real paths so that symlink loops end. */
async function walk(
  dir: string,
  cwd: string,
  out: Expanded,
  add: (c: Candidate) => void,
  visited: Set<string>,
): Promise<void> {
  const real = await realpath(dir);
  if (visited.has(real)) {
    out.skipped.push({ path: shownPath(dir, cwd), reason: 'directory already walked (symbolic link loop)' });
    return;
  }
  visited.add(real);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    out.problems.push({
      file: shownPath(dir, cwd),
      rule: 'readable',
      actual: (err as NodeJS.ErrnoException).code ?? 'error',
      message: `the directory cannot be read (${(err as Error).message})`,
      hint: 'check its permissions',
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const subdirs: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const isDir =
      entry.isDirectory() ||
      (entry.isSymbolicLink() &&
        (await stat(path).then(
          (s) => s.isDirectory(),
          () => false,
        )));
    if (isDir) {
      if (entry.name.startsWith('.')) out.skipped.push({ path: shownPath(path, cwd), reason: 'hidden directory' });
      else subdirs.push(path);
      continue;
    }
    const reason = skipReason(entry.name);
    if (reason) out.skipped.push({ path: shownPath(path, cwd), reason });
    else add({ path, shown: shownPath(path, cwd), named: false });
  }
  for (const sub of subdirs) await walk(sub, cwd, out, add, visited);
}
