// Content-Disposition for a stored file on S3 (RFC 6266): `attachment`, with the file's name both
// as a plain-ASCII fallback and, when it is not ASCII, as UTF-8 (RFC 8187's filename*). Sent with
// S3 GETs through the presigned URL's response-content-disposition, where no nosniff header can
// be added: a browser opening the URL saves the file instead of rendering what it might guess.
// (Embedded as <img> or <video>, the file shows as usual: the header only affects navigation.)
import { dispositionOf } from '../file-answer.js';

/** The name part of a final object key, `<userId>/<fileId>/<name>`. */
export function fileNameOfKey(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1) || 'file';
}

/** `attachment` with the file's name, by the same rule as the disk store's inline answer. */
export function attachmentDisposition(fileName: string): string {
  return dispositionOf(fileName, 'attachment');
}
