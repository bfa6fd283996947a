// Storage keys: `<user_id>/<file_id>/<file_name>` (docs/api.md, presign). The file name part is sanitised
// so that it is a single harmless path segment; the key is never used as a path on disk anyway
// (storage.ts hashes it), but clients and S3-style tools see it, so it must stay clean.
import { METADATA_LIMITS } from '../rules/rules.js';

/**
 * A file name reduced to one safe segment: no `/`, `\`, control characters, `..` or leading dot, at most
 * 255 bytes of UTF-8 (cut on a character boundary), unicode kept. Empty when nothing is left.
 */
export function sanitizeFileName(name: string): string {
  let clean = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what we remove
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[/\\]/g, '_')
    .replace(/\.{2,}/g, '.')
    .trim();
  // No leading dot (a hidden name); when that dot was the only one, it is kept behind a `_`, so
  // `....mp4` becomes `_.mp4` and keeps its extension, not `mp4`.
  const stripped = clean.replace(/^\.+/, '');
  clean = stripped && stripped !== clean && !stripped.includes('.') ? `_.${stripped}` : stripped;
  return truncateUtf8(clean, METADATA_LIMITS.fileNameMaxBytes);
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return out;
}

export function buildKey(userId: string, fileId: string, safeName: string): string {
  return `${userId}/${fileId}/${safeName}`;
}

/** The title of a new item: the file name without its last extension ("a.b.mp4" → "a.b"). */
export function titleFromFileName(fileName: string): string {
  const base = fileName.split(/[/\\]/).pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  const title = (dot > 0 ? base.slice(0, dot) : base).trim();
  return title || base || 'untitled';
}

/**
 * The key of a stored file's small JPEG (a video's poster, an image's preview; issue 39): beside
 * the file, under its own upload's folder (`<user>/<fileId>/`, one file per folder), so no other
 * upload's key can be it. Derived, so a deletion can name it whether or not it was ever made.
 */
export function previewKeyOf(fileKey: string): string {
  return `${fileKey}${PREVIEW_SUFFIX}`;
}
export const PREVIEW_SUFFIX = '.preview.jpg';
export const PREVIEW_CONTENT_TYPE = 'image/jpeg';

/** The stored file whose preview `key` would be, or null when it cannot be one. */
export function sourceKeyOfPreview(key: string): string | null {
  return key.endsWith(PREVIEW_SUFFIX) ? key.slice(0, -PREVIEW_SUFFIX.length) : null;
}
