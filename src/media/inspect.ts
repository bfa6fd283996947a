// Everything the plan needs to know about one file, read without loading it: size and mtime
// from stat, the format its name claims, the format its first bytes prove, and for videos the
// duration that probeVideo reads (it also checks there is a video track). What is wrong is
// collected as problems, never thrown.
import { open, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
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
import type { PlanProblem } from '../upload/plan-problem.js';
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

/**
 * Inspects the file at `path`. `shown` is how problems name it (the path as the user wrote it,
 * or relative to the working directory); it defaults to `path`.
 */
export async function inspectFile(path: string, shown: string = path): Promise<InspectedFile> {
  const abs = resolve(path);
  const name = basename(abs);
  const file: InspectedFile = { path: abs, name, size: 0, mtimeMs: 0, problems: [], warnings: [] };
  const problem = (rule: string, actual: string, message: string, hint?: string) =>
    file.problems.push({ file: shown, rule, actual, message, ...(hint ? { hint } : {}) });

  const extFormat = formatOfName(name);
  if (extFormat) file.extFormat = extFormat;
  try {
    const st = await stat(abs);
    if (!st.isFile()) {
      problem(
        'readable',
        st.isDirectory() ? 'directory' : 'not a file',
        'is not a regular file',
        'name a video or image file',
      );
      return file;
    }
    file.size = st.size;
    file.mtimeMs = st.mtimeMs;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') problem('exists', 'missing', 'does not exist', 'check the path');
    else problem('readable', code ?? 'error', `cannot be read (${(err as Error).message})`, 'check its permissions');
    return file;
  }
  if (file.size === 0) {
    problem('empty', '0 bytes', 'the file is empty (0 bytes)', 'export or copy it again');
    return file;
  }

  let head: Buffer;
  try {
    head = await readHead(abs);
  } catch (err) {
    problem(
      'readable',
      (err as NodeJS.ErrnoException).code ?? 'error',
      `cannot be read (${(err as Error).message})`,
      'check its permissions',
    );
    return file;
  }
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
    return file;
  }
  file.realFormat = realFormat;
  file.contentType = FORMATS[realFormat].mime;
  if (realFormat !== extFormat) {
    file.warnings.push({
      file: shown,
      rule: 'extension',
      actual: describeFormat(realFormat),
      message: extFormat
        ? `the name says ${describeFormat(extFormat)} but the file contains ${describeFormat(realFormat)} data`
        : `the name has no media extension but the file contains ${describeFormat(realFormat)} data`,
      hint: `it is sent as ${file.contentType}; rename it to .${FORMATS[realFormat].extensions[0]} to match`,
    });
  }
  if (FORMATS[realFormat].media === 'video') await addDuration(file, problem);
  return file;
}

async function addDuration(
  file: InspectedFile,
  problem: (rule: string, actual: string, message: string, hint?: string) => void,
): Promise<void> {
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
