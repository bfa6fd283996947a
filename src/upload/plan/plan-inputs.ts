// Turns what the user typed (files, directories, globs) into a list of candidate files, and
// says which files were passed over and why. Directories are walked recursively; every
// subdirectory is its own group (its images become their own carousel).
import { readdirSync, realpathSync } from 'node:fs';
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import fg from 'fast-glob';
import { anyMayStall } from '../../fs/stalling-fs.js';
import { escapeName } from '../../text/escape-name.js';
import type { PlanProblem } from '../../rules/problem.js';
import { SLICE_MS } from './scan-pace.js';
import { hiddenFolderSkip, looksLikeMedia, skipOfName, type SkippedFile } from './skips.js';

export interface Candidate {
  /** Absolute path. */
  path: string;
  /** How messages name it: relative to the working directory when inside it. */
  shown: string;
  /** Named on the command line (a non-media file is then a problem, not a skip). */
  named: boolean;
  /**
   * Its name says a format the service does not take (`.HEIC`, `.gif`): the index of the skip
   * it got in `skipped`, in walk order, which stands unless its bytes are a supported format
   * after all (a JPEG named .HEIC is then sent as the JPEG it is, as when it is named on the
   * command line). The scan decides, once it has read them.
   */
  skippedAt?: number;
}

/** A file or folder passed over on purpose, and why (see skips.ts). */
export type Skipped = SkippedFile;

/** How a candidate was found: met in a folder's walk, named on the command line, matched by a glob. */
type Found = 'walked' | 'named' | 'glob';
const FOUND: readonly Found[] = ['walked', 'named', 'glob'];

/**
 * The candidates, packed: per file its folder (one string per folder, shared), its name and how
 * it was found; its path and how messages show it are made when asked. As objects with their
 * own path and shown strings, 100,000 candidates held ~35 MB while they were inspected, which
 * was most of planning's peak (bench/notes.md, issue 41).
 */
export class Candidates implements Iterable<Candidate> {
  readonly #cwd: string;
  readonly #dirs: string[] = [];
  readonly #names: string[] = [];
  readonly #found: number[] = [];
  readonly #skippedAt = new Map<number, number>();
  /** Per folder, its string (one per folder, whoever made it) and the names added from it: each file once. Emptied by `expanded`. */
  readonly #seen = new Map<string, { dir: string; names: Set<string> }>();
  /** Per folder, what comes before an entry's name as messages show it. */
  readonly #prefixes = new Map<string, string>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  get length(): number {
    return this.#names.length;
  }

  /** Adds `dir`/`name` unless it was added before. */
  add(dir: string, name: string, found: Found, skippedAt?: number): void {
    let folder = this.#seen.get(dir);
    if (!folder) this.#seen.set(dir, (folder = { dir, names: new Set() }));
    if (folder.names.has(name)) return;
    folder.names.add(name);
    if (skippedAt !== undefined) this.#skippedAt.set(this.#names.length, skippedAt);
    this.#dirs.push(folder.dir);
    this.#names.push(name);
    this.#found.push(FOUND.indexOf(found));
  }

  /** Every file is added: what was kept to add each once goes. */
  expanded(): void {
    this.#seen.clear();
  }

  /** Absolute path. */
  path(k: number): string {
    const dir = this.#dirs[k]!;
    return dir.endsWith(sep) ? dir + this.#names[k]! : dir + sep + this.#names[k]!;
  }

  /** As messages show it: shownPath, with the prefix of a walked folder's entries worked out once. */
  shown(k: number): string {
    if (FOUND[this.#found[k]!] !== 'walked') return shownPath(this.path(k), this.#cwd);
    const dir = this.#dirs[k]!;
    const name = this.#names[k]!;
    let prefix = this.#prefixes.get(dir);
    if (prefix === undefined) this.#prefixes.set(dir, (prefix = entryPrefix(dir, this.#cwd)));
    return prefix === '' && name.startsWith('..') ? shownPath(this.path(k), this.#cwd) : escapeName(prefix + name);
  }

  skippedAt(k: number): number | undefined {
    return this.#skippedAt.get(k);
  }

  at(k: number): Candidate {
    const skippedAt = this.skippedAt(k);
    return {
      path: this.path(k),
      shown: this.shown(k),
      named: FOUND[this.#found[k]!] === 'named',
      ...(skippedAt !== undefined ? { skippedAt } : {}),
    };
  }

  *[Symbol.iterator](): Iterator<Candidate> {
    for (let k = 0; k < this.length; k++) yield this.at(k);
  }
}

export interface Expanded {
  candidates: Candidates;
  problems: PlanProblem[];
  skipped: SkippedFile[];
  /**
   * The folders walked, and the .json files seen in them (absolute paths, in lower case): a sidecar in a walked
   * folder exists only if it was seen, so planning 100,000 files does not try to open 100,000
   * sidecars that are not there. `jsonIn`: the walked folders where a .json was seen; in any other
   * walked folder no sidecar's name is even made (scan.ts).
   */
  listed: { folders: Set<string>; json: Set<string>; jsonIn: Set<string> };
  /**
   * An input is on a network share or a FUSE mount (src/fs/stalling-fs.ts): it was walked, and
   * its files are inspected, through the thread pool only (eight at a time, the event loop
   * turning while the share answers), never with synchronous calls that wait one after another.
   */
  stalls: boolean;
}

/** The path as messages show it: relative to `cwd` when inside it, absolute otherwise, escaped. */
export function shownPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  return escapeName(rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs);
}

/** What comes before an entry's name in how messages show the entries of `dir` (unescaped). */
export function entryPrefix(dir: string, cwd: string): string {
  const rel = relative(cwd, dir);
  if (rel === '') return '';
  return `${rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : dir}${sep}`;
}

/** What a walk needs: where messages start from, the named folders, what to add where. */
interface Walk {
  cwd: string;
  /** Real paths of the folders named on the command line: links are followed only inside them. */
  roots: string[];
  out: Expanded;
  add: (dir: string, name: string, found: Found, skippedAt?: number) => void;
  /** Real paths of the folders walked so far, so that a link back into one ends there. */
  visited: Set<string>;
  /** When the walk last let the event loop turn. */
  turnedAt: number;
}

/** Expands every input, in the order given, without duplicates. */
export async function expandInputs(inputs: readonly string[], cwd: string): Promise<Expanded> {
  const candidates = new Candidates(cwd);
  const out: Expanded = {
    candidates,
    problems: [],
    skipped: [],
    listed: { folders: new Set(), json: new Set(), jsonIn: new Set() },
    stalls: await anyMayStall(inputs, cwd),
  };
  const add: Walk['add'] = (dir, name, found, skippedAt) => candidates.add(dir, name, found, skippedAt);
  const roots = await namedFolders(inputs, cwd);
  const walkState: Walk = { cwd, roots, out, add, visited: new Set(), turnedAt: performance.now() };
  for (const input of inputs) await expandOne(input, walkState);
  candidates.expanded();
  return out;
}

/** The real paths of the inputs that are folders. */
async function namedFolders(inputs: readonly string[], cwd: string): Promise<string[]> {
  const roots: string[] = [];
  for (const input of inputs) {
    const abs = resolve(cwd, input);
    const st = await stat(abs).catch(() => undefined);
    if (st?.isDirectory()) roots.push(await realpath(abs));
  }
  return roots;
}

function skip(w: Walk, abs: string, entry: Omit<SkippedFile, 'path'>): void {
  w.out.skipped.push({ path: shownPath(abs, w.cwd), absPath: abs, ...entry });
}

async function expandOne(input: string, w: Walk): Promise<void> {
  const abs = resolve(w.cwd, input);
  const st = await stat(abs).catch((err: NodeJS.ErrnoException) => err);
  if (!(st instanceof Error)) {
    if (st.isDirectory()) await walk(abs, w);
    else if (extname(abs).toLowerCase() === '.json') skip(w, abs, skipOfName(basename(abs))!);
    else w.add(dirname(abs), basename(abs), 'named');
    return;
  }
  if (st.code === 'ENOENT' && fg.isDynamicPattern(input)) {
    await expandGlob(input, w);
    return;
  }
  const missing = st.code === 'ENOENT' || st.code === 'ENOTDIR';
  w.out.problems.push({
    file: escapeName(input),
    rule: missing ? 'exists' : 'readable',
    actual: st.code ?? 'error',
    message: missing ? 'does not exist' : `cannot be read (${st.message})`,
    hint: missing ? `check the path (relative paths start from ${w.cwd})` : 'check its permissions',
    path: abs,
  });
}

async function expandGlob(pattern: string, w: Walk): Promise<void> {
  // Hidden files and folders are not matched (dot: false), as in a shell.
  const matches = await fg(pattern, {
    cwd: w.cwd,
    absolute: true,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: true,
    unique: true,
  });
  if (matches.length === 0) {
    w.out.problems.push({
      file: escapeName(pattern),
      rule: 'exists',
      actual: '0 matches',
      message: 'no files match this pattern',
      hint: `check the pattern (relative patterns start from ${w.cwd})`,
    });
    return;
  }
  matches.sort();
  for (const match of matches) {
    const abs = resolve(match);
    const reason = skipOfName(basename(abs));
    if (reason) skip(w, abs, reason);
    if (reason?.kind === 'unsupported') w.add(dirname(abs), basename(abs), 'glob', w.out.skipped.length - 1);
    else if (!reason) w.add(dirname(abs), basename(abs), 'glob');
  }
}

/** Walks `dir` depth-first in name order. */
async function walk(dir: string, w: Walk): Promise<void> {
  // Synchronous calls: a folder listed from the cache costs a fraction of the CPU of the
  // promise-based ones (scan-pace.ts); the event loop still turns every SLICE_MS. Not on a share
  // that may stall, where each call waits for a server.
  if (performance.now() - w.turnedAt >= SLICE_MS) {
    await nextTurn();
    w.turnedAt = performance.now();
  }
  const real = w.out.stalls ? await realpath(dir) : realpathSync.native(dir);
  if (w.visited.has(real)) return;
  w.visited.add(real);
  let entries;
  try {
    entries = w.out.stalls ? await readdir(dir, { withFileTypes: true }) : readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    w.out.problems.push({
      file: shownPath(dir, w.cwd),
      rule: 'readable',
      actual: (err as NodeJS.ErrnoException).code ?? 'error',
      message: `the folder cannot be read (${(err as Error).message})`,
      hint: 'check its permissions',
      path: dir,
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  w.out.listed.folders.add(dir);
  const prefix = entryPrefix(dir, w.cwd);
  // shownPath for an entry of `dir`, without working out the relative path once per file.
  const shownEntry = (name: string, path: string) =>
    prefix === '' && name.startsWith('..') ? shownPath(path, w.cwd) : escapeName(prefix + name);
  const subdirs: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let isDir = entry.isDirectory();
    if (entry.isSymbolicLink()) {
      const target = await followLink(path, w);
      if (!target) continue;
      isDir = target.isDir;
    }
    if (isDir) {
      if (entry.name.startsWith('.')) w.out.skipped.push(hiddenFolderSkip(shownEntry(entry.name, path), path));
      else subdirs.push(path);
      continue;
    }
    const reason = skipOfName(entry.name);
    // In lower case: on a case-insensitive file system carousel.JSON is read as carousel.json.
    if (reason?.kind === 'sidecar') {
      w.out.listed.json.add(path.toLowerCase());
      w.out.listed.jsonIn.add(dir);
    }
    if (reason) w.out.skipped.push({ path: shownEntry(entry.name, path), absPath: path, ...reason });
    if (reason?.kind === 'unsupported') w.add(dir, entry.name, 'walked', w.out.skipped.length - 1);
    else if (!reason) w.add(dir, entry.name, 'walked');
  }
  for (const sub of subdirs) await walk(sub, w);
}

/**
 * Where a symbolic link met in a walk leads, when it may be followed: it must resolve, and stay
 * inside the folders named on the command line (a link to `..` would upload files the user did
 * not name). Links that leave, loop or are broken are skipped and reported, never fatal.
 */
async function followLink(path: string, w: Walk): Promise<{ isDir: boolean } | undefined> {
  const linkSkip = (reason: string, hint?: string) =>
    skip(w, path, { kind: 'link', reason, media: looksLikeMedia(basename(path)), ...(hint ? { hint } : {}) });
  let target: string;
  try {
    target = await realpath(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') linkSkip('symbolic link loop');
    else if (code === 'ENOENT' || code === 'ENOTDIR')
      linkSkip(
        `broken symbolic link (to ${escapeName(await readlink(path).catch(() => '?'))})`,
        'fix or remove the link',
      );
    else linkSkip(`symbolic link that cannot be followed (${code ?? (err as Error).message})`);
    return undefined;
  }
  if (!w.roots.some((root) => target === root || target.startsWith(root + sep))) {
    const where = shownPath(target, w.cwd);
    linkSkip(
      `symbolic link to ${where === '.' ? 'the working folder' : where}, outside the folders named`,
      'name that file or folder on the command line to upload it',
    );
    return undefined;
  }
  const st = await stat(target).catch(() => undefined);
  if (!st) {
    linkSkip('symbolic link whose target cannot be read');
    return undefined;
  }
  if (st.isDirectory() && w.visited.has(target)) {
    linkSkip(`symbolic link to ${shownPath(target, w.cwd)}, a folder already walked`);
    return undefined;
  }
  return { isDir: st.isDirectory() };
}
