// Everything the plan needs to know about one file, read without loading it: size and mtime
// from stat, the format its name claims, the format its first bytes prove, and for videos the
// duration that probeVideo reads (it also checks there is a video track). What is wrong is
// collected as problems, never thrown.
import { type Stats, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import mime from 'mime-types';
import {
  FORMATS,
  FORMAT_NAMES,
  UNSUPPORTED_FORMATS,
  formatOfFileName,
  formatOfMime,
  unsupportedFormatOfFileName,
  type Format,
} from '../rules/rules.js';
import type { PlanProblem } from '../rules/problem.js';
import { MediaError } from './errors.js';
import { probeVideoFile } from './probe.js';
import { SNIFF_BYTES, describeFormat, sniff, sniffUnsupported } from './sniff.js';

export interface InspectedFile {
  /** Absolute path. */
  path: string;
  /** Base name, what is sent as fileName. */
  name: string;
  size: number;
  mtimeMs: number;
  /** The format the file's name (extension) claims. */
  extFormat?: Format;
  /** The format the file's bytes are in (magic bytes). This is what gets sent. */
  realFormat?: Format;
  /** MIME type of realFormat: the contentType for presign and the PUT. */
  contentType?: string;
  /** Seconds, for videos whose movie header could be read. */
  durationSeconds?: number;
  /** Reasons the file cannot be uploaded. */
  problems: PlanProblem[];
  /** Things worth saying that do not stop the upload ("photo.jpg contains PNG data"). */
  warnings: PlanProblem[];
}

/** "mp4, mov, jpg, png, webp": the canonical extension of every supported format. */
export const SUPPORTED_EXTENSIONS = FORMAT_NAMES.map((f) => FORMATS[f].extensions[0]).join(', ');

/** The format a file name claims: the rules table first, then mime-types for rarer spellings. */
export function formatOfName(name: string): Format | undefined {
  const byTable = formatOfFileName(name);
  if (byTable) return byTable;
  const looked = mime.lookup(name);
  return looked ? formatOfMime(looked) : undefined;
}

/** What stat said about a path, or why it could not. */
type StatResult = { isFile: boolean; isDirectory: boolean; size: number; mtimeMs: number } | NodeJS.ErrnoException;

type ProblemFn = (rule: string, actual: string, message: string, hint?: string) => void;

/** An inspection under way: the file so far, and how it adds a problem. */
interface Inspection {
  file: InspectedFile;
  problem: ProblemFn;
}

/** A path with an empty, `.` or `..` segment, or a trailing separator: one that resolve() would change. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/**
 * `path` made absolute. A scan's paths mostly are absolute and normal already (joined from a
 * walked folder): taken as they are, since resolve() made ~600 bytes of garbage a file to say
 * so (100,000 files: 60 MB, in the scan that sets a bulk upload's peak; bench/notes.md).
 */
function absolute(path: string): string {
  return sep === '/' && path.startsWith('/') && !NOT_NORMAL.test(path) ? path : resolve(path);
}

function begin(path: string, shown: string): Inspection {
  const abs = absolute(path);
  const name = basename(abs);
  const file: InspectedFile = { path: abs, name, size: 0, mtimeMs: 0, problems: [], warnings: [] };
  const problem: ProblemFn = (rule, actual, message, hint) =>
    file.problems.push({ file: shown, rule, actual, message, ...(hint ? { hint } : {}), path: abs });
  const extFormat = formatOfName(name);
  if (extFormat) file.extFormat = extFormat;
  return { file, problem };
}

function statOf(st: Stats): StatResult {
  return { isFile: st.isFile(), isDirectory: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs };
}

/** Applies stat's answer; true when the first bytes are to be read next. */
function afterStat({ file, problem }: Inspection, st: StatResult): boolean {
  if (st instanceof Error) {
    if (st.code === 'ENOENT') problem('exists', 'missing', 'does not exist', 'check the path');
    else problem('readable', st.code ?? 'error', `cannot be read (${st.message})`, 'check its permissions');
    return false;
  }
  if (!st.isFile) {
    problem(
      'readable',
      st.isDirectory ? 'directory' : 'not a file',
      'is not a regular file',
      'name a video or image file',
    );
    return false;
  }
  file.size = st.size;
  file.mtimeMs = st.mtimeMs;
  if (file.size === 0) {
    problem('empty', '0 bytes', 'the file is empty (0 bytes)', 'export or copy it again');
    return false;
  }
  return true;
}

/** Applies the first bytes (or why they could not be read); true when the file is a video to probe. */
function afterHead({ file, problem }: Inspection, shown: string, head: Buffer | NodeJS.ErrnoException): boolean {
  if (head instanceof Error) {
    problem('readable', head.code ?? 'error', `cannot be read (${head.message})`, 'check its permissions');
    return false;
  }
  const { name, extFormat } = file;
  const realFormat = sniff(head);
  if (!realFormat) {
    const other = UNSUPPORTED_FORMATS[sniffUnsupported(head) ?? ''] ?? unsupportedFormatOfFileName(name);
    if (extFormat) {
      problem(
        'format',
        other ? other.name : 'unrecognised data',
        `is named like ${describeFormat(extFormat)} but its bytes are ${other ? `${other.name}, which is not supported` : `not ${describeFormat(extFormat)} or any supported format`}`,
        other ? other.convert : 'the file is damaged or was renamed; export it again',
      );
    } else if (other) {
      problem(
        'format',
        other.name,
        `is ${other.name}, which is not supported (${SUPPORTED_EXTENSIONS})`,
        other.convert,
      );
    } else {
      problem('format', mime.lookup(name) || 'unknown', `not a supported format (${SUPPORTED_EXTENSIONS})`);
    }
    return false;
  }
  file.realFormat = realFormat;
  file.contentType = FORMATS[realFormat].mime;
  if (realFormat !== extFormat) {
    // A JPEG named .HEIC (a phone's export, renamed): judged by its bytes, named for what it is.
    const namedUnsupported = extFormat ? undefined : unsupportedFormatOfFileName(name);
    file.warnings.push({
      file: shown,
      rule: 'extension',
      actual: describeFormat(realFormat),
      message: extFormat
        ? `the name says ${describeFormat(extFormat)} but the file contains ${describeFormat(realFormat)} data`
        : namedUnsupported
          ? `the name says ${namedUnsupported.name} but the file contains ${describeFormat(realFormat)} data`
          : `the name has no media extension but the file contains ${describeFormat(realFormat)} data`,
      hint: `it is sent as ${file.contentType}; rename it to .${FORMATS[realFormat].extensions[0]} to match`,
    });
  }
  return FORMATS[realFormat].media === 'video';
}

/**
 * Inspects the file at `path`. `shown` is how problems name it (the path as the user wrote it,
 * or relative to the working directory); it defaults to `path`.
 */
export async function inspectFile(path: string, shown: string = path): Promise<InspectedFile> {
  const at = begin(path, shown);
  const st = await stat(at.file.path).then(statOf, (err: NodeJS.ErrnoException) => err);
  if (!afterStat(at, st)) return at.file;
  const head = await readHead(at.file.path).catch((err: NodeJS.ErrnoException) => err);
  if (afterHead(at, shown, head)) await addDuration(at.file, at.problem);
  return at.file;
}

/**
 * The same inspection with synchronous stat and read, and without a video's duration (when
 * `needsProbe`, call probeDuration). Planning 100,000 files this way costs a fifth of the CPU
 * of the promise-based calls, each of which goes through the thread pool (bench/results.md);
 * the caller yields to the event loop between batches.
 */
export function inspectFileSync(path: string, shown: string = path): { file: InspectedFile; needsProbe: boolean } {
  const at = begin(path, shown);
  let st: StatResult;
  try {
    st = statOf(statSync(at.file.path));
  } catch (err) {
    st = err as NodeJS.ErrnoException;
  }
  if (!afterStat(at, st)) return { file: at.file, needsProbe: false };
  let head: Buffer | NodeJS.ErrnoException;
  try {
    head = readHeadSync(at.file.path);
  } catch (err) {
    head = err as NodeJS.ErrnoException;
  }
  return { file: at.file, needsProbe: afterHead(at, shown, head) };
}

/** Adds a video's duration (or the problem with its movie header) to a file inspectFileSync left for probing. */
export async function probeDuration(file: InspectedFile, shown: string): Promise<void> {
  await addDuration(file, (rule, actual, message, hint) =>
    file.problems.push({ file: shown, rule, actual, message, ...(hint ? { hint } : {}), path: file.path }),
  );
}

async function addDuration(file: InspectedFile, problem: ProblemFn): Promise<void> {
  try {
    file.durationSeconds = (await probeVideoFile(file.path)).durationSeconds;
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
    problem('video', err.reason, err.message);
  }
}

/** The first SNIFF_BYTES of the file (fewer if it is shorter). */
async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** One buffer for every synchronous read: each is used up before the next read. */
const headBuffer = Buffer.alloc(SNIFF_BYTES);

/** The same, synchronously; opened non-blocking, so that a named pipe cannot hang the walk. */
function readHeadSync(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const bytesRead = readSync(fd, headBuffer, 0, SNIFF_BYTES, 0);
    return headBuffer.subarray(0, bytesRead);
  } finally {
    closeSync(fd);
  }
}
