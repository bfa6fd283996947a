// Files under a named folder that are not uploaded, and why. Nothing is dropped silently: each
// one is reported (a "Skipped" block on a terminal, a line in logs, a `skipped` NDJSON event),
// and `--strict` turns the skipped media files into problems. Pure: names in, reasons out.
import { extname } from 'node:path';
import { formatOfName } from '../../media/inspect.js';
import { unsupportedFormatOfFileName } from '../../rules/rules.js';
import type { PlanProblem } from '../../rules/problem.js';

export type SkipKind =
  /** .DS_Store, ._*, Thumbs.db, desktop.ini: counted on one line, never listed. */
  | 'system'
  /** A name starting with a dot, or a hidden folder. */
  | 'hidden'
  /** A media format the service does not take (HEIC, GIF, MKV, …): the hint says what to convert to. */
  | 'unsupported'
  /** Not media at all (.txt, .pdf, no extension). */
  | 'not-media'
  /** A .json file that is no sidecar of anything uploaded. */
  | 'sidecar'
  /** A symbolic link that leads outside the named folders, is broken, or loops. */
  | 'link';

export interface SkippedFile {
  /** As messages show it (relative to the working directory, control characters escaped). */
  path: string;
  /** Absolute path (the NDJSON `file` object), when it is known. */
  absPath?: string;
  kind: SkipKind;
  reason: string;
  /** What to do to have it uploaded, when there is something to do. */
  hint?: string;
  /** It looks like a photo or a video (by name): `--strict` refuses the upload for it. */
  media: boolean;
}

// What operating systems and sync tools leave in folders (compared in lower case).
const SYSTEM_NAMES = new Set(['.ds_store', 'thumbs.db', 'ehthumbs.db', 'desktop.ini', 'icon\r', '.localized']);

/** True for .DS_Store, AppleDouble `._*` files, Thumbs.db, desktop.ini and the like. */
export function isSystemFile(name: string): boolean {
  return SYSTEM_NAMES.has(name.toLowerCase()) || name.startsWith('._');
}

/** Looks like a photo or a video by its name (supported or not). */
export function looksLikeMedia(name: string): boolean {
  const bare = name.replace(/^\.+/, '');
  return formatOfName(bare) !== undefined || unsupportedFormatOfFileName(bare) !== undefined;
}

/**
 * Why a file met while walking a folder (or matched by a glob) is not uploaded, or undefined
 * when it is a candidate. `.json` files are sidecar candidates: the plan decides afterwards
 * which of them were read as metadata.
 */
export function skipOfName(name: string): Omit<SkippedFile, 'path'> | undefined {
  if (isSystemFile(name)) return { kind: 'system', reason: 'system file', media: false };
  if (name.startsWith('.')) {
    // A hidden photo or video may be a mistake worth a hint; a hidden .gitkeep is not.
    const media = looksLikeMedia(name);
    const hint = 'rename it without the leading dot, or name it on the command line';
    return { kind: 'hidden', reason: 'hidden file', media, ...(media ? { hint } : {}) };
  }
  const ext = extname(name).toLowerCase();
  if (ext === '.json') return { kind: 'sidecar', reason: SIDECAR_UNUSED, hint: SIDECAR_HINT, media: false };
  const unsupported = unsupportedFormatOfFileName(name);
  if (unsupported)
    return {
      kind: 'unsupported',
      reason: `${unsupported.name}, not supported`,
      hint: unsupported.convert,
      media: true,
    };
  if (!formatOfName(name))
    return { kind: 'not-media', reason: `not a photo or video (${ext || 'no extension'})`, media: false };
  return undefined;
}

export const SIDECAR_UNUSED = 'a .json file that is no sidecar of anything uploaded';
const SIDECAR_HINT = "a video's sidecar is named <video file name>.json, a carousel's carousel.json or <folder>.json";

/** A hidden folder is not walked. */
export function hiddenFolderSkip(path: string, absPath?: string): SkippedFile {
  return { path, ...(absPath ? { absPath } : {}), kind: 'hidden', reason: 'hidden folder, not walked', media: false };
}

/** With `--strict`, every skipped media file is a problem: nothing is sent. */
export function strictProblems(skipped: readonly SkippedFile[]): PlanProblem[] {
  return skipped
    .filter((s) => s.media)
    .map((s) => ({
      file: s.path,
      rule: 'skipped',
      actual: s.kind,
      message: `would be skipped (${s.reason})`,
      hint: s.hint ? `${s.hint}, or leave out --strict` : 'remove it from the folder, or leave out --strict',
    }));
}

/** "3 system files (.DS_Store, Thumbs.db)": the one line that stands for all of them. */
export function systemFilesLine(skipped: readonly SkippedFile[]): string | undefined {
  const system = skipped.filter((s) => s.kind === 'system');
  if (system.length === 0) return undefined;
  const names = [
    ...new Set(
      system.map((s) =>
        s.path
          .split('/')
          .pop()!
          .replace(/^\._.*/, '._*'),
      ),
    ),
  ];
  const shown = names.slice(0, 4).join(', ') + (names.length > 4 ? ', …' : '');
  return `${system.length} system file${system.length === 1 ? '' : 's'} (${shown})`;
}

/** Lines for people: each skipped file with its reason and hint, then system files on one line. */
export function skippedLines(skipped: readonly SkippedFile[]): string[] {
  const lines = skipped
    .filter((s) => s.kind !== 'system')
    .map((s) => `${s.path}: ${s.reason}${s.hint ? `; ${s.hint}` : ''}`);
  const system = systemFilesLine(skipped);
  if (system) lines.push(system);
  return lines;
}
