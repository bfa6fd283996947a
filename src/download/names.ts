// Where an item's files land on disk, as pure functions of what the library says. Names come
// from the library, which may be a remote service we do not control: nothing in a name may
// climb out of the folder (`../`), hide the file (a leading dot), or split a line (control
// characters). A name that had to change keeps its original in the upload manifest an export
// writes (its `fileName`), so uploading the export tells the new library the original name.
import { createHash } from 'node:crypto';
import { extname } from 'node:path';

/** Bytes a name may take: most file systems stop at 255; room is left for a `.json` sidecar and a part suffix. */
const MAX_NAME_BYTES = 200;

// C0 and C1 controls, DEL, line separators and the direction marks that can disguise a name.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// Characters Windows refuses in a name (besides / and \ and controls), and the full-width forms
// they become: still readable, and what rclone's --local-encoding writes for them.
const WINDOWS_FORBIDDEN: Record<string, string> = {
  '<': '\uff1c',
  '>': '\uff1e',
  ':': '\uff1a',
  '"': '\uff02',
  '|': '\uff5c',
  '?': '\uff1f',
  '*': '\uff0a',
};

/** Windows' device names (CON, NUL, COM1, LPT¹, …): a file of that name, with any extension, cannot be made there. */
const RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])$/i;

/**
 * A name that is safe as one file name in a folder, and portable: it can be copied as it is to
 * Windows, macOS and Linux (docs/cli.md, "Names on disk"). The rule, applied in this order:
 * `/` and `\` and control characters become `_`; `< > : " | ? *` become their full-width forms
 * (＜ ＞ ： ＂ ｜ ？ ＊); leading dots and spaces, and trailing dots and spaces, are dropped; a
 * Windows device name (CON, PRN, AUX, NUL, COM0–9, LPT0–9, whatever the case or extension) gets
 * a leading `_`; at most MAX_NAME_BYTES (the extension kept); `fallback` when nothing is left.
 * Case-only collisions are a folder's matter: portableNames. The original name is kept where it
 * differs (an export's manifest `fileName`), so uploading the export restores it.
 */
export function safeName(name: string, fallback = 'file'): string {
  let out = name
    .replace(/[/\\]/g, '_')
    .replace(UNSAFE, '_')
    .replace(/[<>:"|?*]/g, (c) => WINDOWS_FORBIDDEN[c]!);
  out = out.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (out === '') return fallback;
  if (RESERVED.test(out.split('.')[0]!.trimEnd())) out = `_${out}`;
  if (Buffer.byteLength(out) <= MAX_NAME_BYTES) return out;
  const ext = extname(out);
  const keep = ext.length < 20 ? ext : '';
  return `${truncateBytes(out.slice(0, out.length - keep.length), MAX_NAME_BYTES - Buffer.byteLength(keep))}${keep}`;
}

/** How a case-insensitive, normalising file system (Windows, macOS) compares two names. */
export function foldName(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * Names for files that land in one folder, so that none differs from another only in case (one
 * file on Windows and macOS, two on Linux): the first keeps its name, a later one gets ` (2)`,
 * ` (3)`… before its extension. `names` are safe already (safeName); the result is in their order.
 */
export function portableNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let n = 2; taken.has(foldName(out)); n++) out = numbered(name, n);
    taken.add(foldName(out));
    return out;
  });
}

/** `clip (2).mp4`: the name or path with ` (n)` before its extension. */
export function numbered(name: string, n: number): string {
  const ext = extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

function truncateBytes(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/** Digits of a carousel's positions: 01 … 10, so that natural and plain name order agree. */
export function positionWidth(count: number): number {
  return Math.max(2, String(count).length);
}

/** `03-beach.jpg`: a carousel image's name, prefixed with its 1-based position. */
export function carouselFileName(sortIndex: number, count: number, fileName: string): string {
  const position = String(sortIndex + 1).padStart(positionWidth(count), '0');
  return `${position}-${safeName(fileName, `image${extOf(fileName)}`)}`;
}

/** The extension of a name, in lower case with its dot (`.jpg`), or '' when it has none that is safe. */
export function extOf(name: string): string {
  const ext = extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}

/** Extensions of the image types a thumbnail can be. */
const IMAGE_EXT: Record<string, string> = { 'image/jpeg': '.jpg', 'image/png': '.png', 'image/webp': '.webp' };

/**
 * A thumbnail's file name: `thumbnail` plus the extension of its type, else of its URL's path
 * (the API gives a thumbnail no name of its own).
 */
export function thumbnailName(url: string, contentType?: string): string {
  const byType = contentType ? IMAGE_EXT[contentType.split(';')[0]!.trim().toLowerCase()] : undefined;
  if (byType) return `thumbnail${byType}`;
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    path = '';
  }
  return `thumbnail${extOf(path) || '.jpg'}`;
}

/** A folder name for a downloaded carousel: its title, made safe; its id when the title leaves nothing. */
export function carouselFolderName(title: string, id: string): string {
  return safeName(title, id);
}

/**
 * Where a transfer writes until its bytes are checked: beside the file, named after it and after
 * what it holds (`tag`: the item and the file), so a later run resumes only the same file.
 */
export function partName(dest: string, tag: string): string {
  const h = createHash('sha256').update(tag).digest('hex').slice(0, 8);
  return `${dest}.${h}.part`;
}

/** True for the names partName makes. */
export function isPartName(name: string): boolean {
  return /\.[0-9a-f]{8}\.part$/.test(name);
}
