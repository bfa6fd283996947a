// The inspected files of a plan, kept packed: per folder its path once (and where its run of
// files starts), per file its name, size, mtime and formats in typed arrays (about 30 bytes a
// file), and only what is rare — a duration, a problem, a warning, a name the library is told
// that differs from the one on disk, a size of 4 GiB or more — in a map.
// An InspectedFile record is made again whenever one is read (`file`), and dropped by whoever
// read it. As records for the whole run, 100,000 files took ~31 MB (~310 bytes each: the record,
// two empty arrays, the path and the name as separate strings, boxed numbers); that alone put
// a bulk upload over its memory goal (bench/notes.md, issue 41).
import { basename, dirname, sep } from 'node:path';
import type { InspectedFile } from '../../media/inspect.js';
import { FORMATS, FORMAT_NAMES, type Format } from '../../rules/rules.js';
import type { PlanProblem } from '../../rules/problem.js';
import { escapeName } from '../../text/escape-name.js';
import { ownString } from '../../text/own-string.js';
import { float64Column, uint32Column, uint8Column } from './column.js';
import { entryPrefix, shownPath } from './plan-inputs.js';

/** The sizes' column holds sizes below this; it marks a larger one. */
const BIG = 0xffff_ffff;

/** Names are joined into one string per this many files, so each costs its bytes, not a string's header. */
const CHUNK = 4096;

/** What only some files have. */
interface Rare {
  /** The name the library is told, when not the name on disk (a manifest's `fileNames`). */
  name?: string;
  /** The path, when folder and name do not make it again (never seen; kept to be sure). */
  path?: string;
  /** The size, when it does not fit the sizes' column (4 GiB or more). */
  size?: number;
  contentType?: string;
  durationSeconds?: number;
  problems?: PlanProblem[];
  warnings?: PlanProblem[];
}

/** What problems() and warnings() say of most files: one list, not a new empty one per call. */
const NONE: readonly PlanProblem[] = Object.freeze([]);

/** Format → 1-based code; 0 is none. */
const CODE = new Map<Format, number>(FORMAT_NAMES.map((f, k) => [f, k + 1]));

export class FileTable {
  /** How many files were added; their ids are 0 … length-1. */
  length = 0;
  readonly #cwd: string;
  readonly #folders: string[] = [];
  readonly #folderIds = new Map<string, number>();
  /**
   * What comes before a name in how messages show the files of one folder, for the folder asked
   * last: files are asked about folder by folder, and one per folder kept for the run was 0.4 MB
   * at 10,000 folders.
   */
  #shownPrefix: { folder: number; prefix: string } | undefined;
  /**
   * The files' folders as runs: where each run of files of one folder starts, and its folder.
   * Files come folder by folder, so a run per folder, not an entry per file.
   */
  readonly #runStarts = uint32Column();
  readonly #runFolders = uint32Column();
  #runs = 0;
  /** The run asked about last: files are mostly asked about in order. */
  #lastRun = 0;
  /** Sizes below BIG; a file of BIG bytes or more has its size among the rare fields. */
  readonly #sizes = uint32Column();
  readonly #mtimes = float64Column();
  /** The name's format in the low 4 bits, the bytes' in the high 4. */
  readonly #formats = uint8Column();
  /** Joined names, CHUNK per string, and where each name ends in its string. */
  readonly #chunks: string[] = [];
  #pending: string[] = [];
  readonly #ends = uint32Column();
  readonly #rare = new Map<number, Rare>();
  /** The folder of the file added last. */
  #lastFolder: number | undefined;

  /** `cwd` is where messages name paths from (shownPath). */
  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Keeps what `file` says, packed; returns its id. The record itself is not kept. */
  add(file: InspectedFile): number {
    const id = this.length++;
    const f = this.#folderOfPath(file.path);
    // The name as inspection made it, when it is the path's last part: not made again.
    const base = this.#isPathOf(f, file.name, file.path) ? file.name : basename(file.path);
    if (this.#runs === 0 || this.#runFolders.get(this.#runs - 1) !== f) {
      this.#runStarts.set(this.#runs, id);
      this.#runFolders.set(this.#runs++, f);
    }
    this.#sizes.set(id, Math.min(file.size, BIG));
    if (file.size >= BIG) this.#rareOf(id).size = file.size;
    this.#mtimes.set(id, file.mtimeMs);
    const real = file.realFormat ? CODE.get(file.realFormat)! : 0;
    this.#formats.set(id, (file.extFormat ? CODE.get(file.extFormat)! : 0) | (real << 4));
    const k = id % CHUNK;
    this.#ends.set(id, (k === 0 ? 0 : this.#ends.get(id - 1)) + base.length);
    this.#pending.push(base);
    if (this.#pending.length === CHUNK) {
      this.#chunks.push(this.#pending.join(''));
      this.#pending = [];
    }
    // Most files have none of this: nothing is made for them.
    if (file.name !== base) this.#rareOf(id).name = file.name;
    if (!this.#isPathOf(f, base, file.path)) this.#rareOf(id).path = file.path;
    if (file.contentType !== (file.realFormat ? FORMATS[file.realFormat].mime : undefined))
      this.#rareOf(id).contentType = file.contentType;
    if (file.durationSeconds !== undefined) this.#rareOf(id).durationSeconds = file.durationSeconds;
    if (file.problems.length > 0) this.#rareOf(id).problems = file.problems;
    if (file.warnings.length > 0) this.#rareOf(id).warnings = file.warnings;
    return id;
  }

  /** The folder of file `id`: its run's, found from the run asked about last or by halving. */
  #folderOf(id: number): number {
    const run = this.#inRun(id, this.#lastRun)
      ? this.#lastRun
      : this.#inRun(id, this.#lastRun + 1)
        ? this.#lastRun + 1
        : this.#lastRunFrom(id);
    this.#lastRun = run;
    return this.#runFolders.get(run);
  }

  /** Whether file `id` is in run `run` (which may be one past the last). */
  #inRun(id: number, run: number): boolean {
    if (run >= this.#runs || this.#runStarts.get(run) > id) return false;
    return run + 1 === this.#runs || this.#runStarts.get(run + 1) > id;
  }

  /** The last run that starts at or before `id`. */
  #lastRunFrom(id: number): number {
    let [lo, hi] = [0, this.#runs - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.#runStarts.get(mid) <= id) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  #rareOf(id: number): Rare {
    let r = this.#rare.get(id);
    if (!r) this.#rare.set(id, (r = {}));
    return r;
  }

  /**
   * The folder of `path` (dirname), added if new. Files come folder by folder: while a path is
   * in the folder of the one before, no dirname is made to find it again.
   */
  #folderOfPath(path: string): number {
    const last = this.#lastFolder;
    if (last !== undefined) {
      const dir = this.#folders[last]!;
      const cut = path.lastIndexOf(sep);
      // Only the root folder ends with its separator (a normal path's dirname).
      const at = dir === sep ? 0 : dir.length;
      if (cut === at && cut < path.length - 1 && path.startsWith(dir)) return last;
    }
    const folder = dirname(path);
    let f = this.#folderIds.get(folder);
    if (f === undefined) {
      // Kept for the run: not a view of the file's whole path (./own-string.ts).
      const own = ownString(folder);
      f = this.#folders.push(own) - 1;
      this.#folderIds.set(own, f);
    }
    this.#lastFolder = f;
    return f;
  }

  /**
   * Every file is added: the folders' index goes (a file added after this gets a folder entry of
   * its own, which costs memory, not correctness).
   */
  seal(): void {
    this.#folderIds.clear();
  }

  /** A fresh record of file `id`: the same fields as when it was added. */
  file(id: number): InspectedFile {
    const rare = this.#rare.get(id);
    const extFormat = this.extFormat(id);
    const realFormat = this.realFormat(id);
    const file: InspectedFile = {
      path: this.path(id),
      name: rare?.name ?? this.#base(id),
      size: this.size(id),
      mtimeMs: this.#mtimes.get(id),
      problems: rare?.problems ?? [],
      warnings: rare?.warnings ?? [],
    };
    if (extFormat) file.extFormat = extFormat;
    if (realFormat) file.realFormat = realFormat;
    const contentType = rare && 'contentType' in rare ? rare.contentType : realFormat && FORMATS[realFormat].mime;
    if (contentType !== undefined) file.contentType = contentType;
    if (rare?.durationSeconds !== undefined) file.durationSeconds = rare.durationSeconds;
    return file;
  }

  /** Absolute path. */
  path(id: number): string {
    return this.#rare.get(id)?.path ?? this.#pathOf(this.#folderOf(id), this.#base(id));
  }

  /** The name the library is told. */
  name(id: number): string {
    return this.#rare.get(id)?.name ?? this.#base(id);
  }

  /** The file's folder (dirname of its path). */
  folder(id: number): string {
    return this.#folders[this.#folderOf(id)]!;
  }

  /** The MIME type the file is sent as (its bytes' format's), as `file(id).contentType`. */
  contentType(id: number): string | undefined {
    const rare = this.#rare.get(id);
    if (rare && 'contentType' in rare) return rare.contentType;
    const realFormat = this.realFormat(id);
    return realFormat && FORMATS[realFormat].mime;
  }

  size(id: number): number {
    const size = this.#sizes.get(id);
    return size === BIG ? this.#rare.get(id)!.size! : size;
  }

  /** The format the file's name claims. */
  extFormat(id: number): Format | undefined {
    const code = this.#formats.get(id) & 15;
    return code ? FORMAT_NAMES[code - 1] : undefined;
  }

  /** The format the file's bytes are in. */
  realFormat(id: number): Format | undefined {
    const code = this.#formats.get(id) >> 4;
    return code ? FORMAT_NAMES[code - 1] : undefined;
  }

  /** Why the file cannot be uploaded (inspection's problems). */
  problems(id: number): readonly PlanProblem[] {
    return this.#rare.get(id)?.problems ?? NONE;
  }

  warnings(id: number): readonly PlanProblem[] {
    return this.#rare.get(id)?.warnings ?? NONE;
  }

  /** The name the library is told, from now on (a manifest's `fileNames`). */
  rename(id: number, name: string): void {
    const rare = this.#rare.get(id) ?? {};
    rare.name = name;
    this.#rare.set(id, rare);
  }

  /** The path as messages show it: what shownPath(path, cwd) says, with each folder's part worked out once. */
  shown(id: number): string {
    const rare = this.#rare.get(id);
    if (rare?.path !== undefined) return shownPath(rare.path, this.#cwd);
    const f = this.#folderOf(id);
    const base = this.#base(id);
    // The root folder ('/') ends with its separator: entryPrefix would double it.
    if (this.#folders[f]!.endsWith(sep)) return shownPath(this.path(id), this.#cwd);
    const prefix = this.#prefixOf(f);
    return prefix === '' && base.startsWith('..') ? shownPath(this.path(id), this.#cwd) : escapeName(prefix + base);
  }

  /**
   * The file's folder as messages show it: what shownPath(folder(id), cwd) says. A string of its
   * own, as an item keeps it as its source for the run.
   */
  shownFolder(id: number): string {
    const f = this.#folderOf(id);
    const dir = this.#folders[f]!;
    if (dir.endsWith(sep)) return shownPath(dir, this.#cwd);
    const prefix = this.#prefixOf(f);
    return prefix === '' ? '.' : ownString(escapeName(prefix.slice(0, prefix.length - sep.length)));
  }

  #prefixOf(folder: number): string {
    const last = this.#shownPrefix;
    if (last?.folder === folder) return last.prefix;
    const prefix = entryPrefix(this.#folders[folder]!, this.#cwd);
    this.#shownPrefix = { folder, prefix };
    return prefix;
  }

  /** The name on disk. */
  #base(id: number): string {
    const c = Math.floor(id / CHUNK);
    const k = id % CHUNK;
    if (c === this.#chunks.length) return this.#pending[k]!;
    return this.#chunks[c]!.slice(k === 0 ? 0 : this.#ends.get(id - 1), this.#ends.get(id));
  }

  #pathOf(folder: number, base: string): string {
    const dir = this.#folders[folder]!;
    return dir.endsWith(sep) ? dir + base : dir + sep + base;
  }

  /** Whether `path` is what #pathOf(folder, base) makes, compared without making it. */
  #isPathOf(folder: number, base: string, path: string): boolean {
    const dir = this.#folders[folder]!;
    const join = dir.endsWith(sep) ? dir.length : dir.length + sep.length;
    return (
      path.length === join + base.length &&
      path.startsWith(dir) &&
      path.endsWith(base) &&
      (join === dir.length || path.startsWith(sep, dir.length))
    );
  }
}
