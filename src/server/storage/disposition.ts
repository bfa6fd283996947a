// Content-Disposition for a stored file (RFC 6266): `attachment`, with the file's name both as
// a plain-ASCII fallback and, when it is not ASCII, as UTF-8 (RFC 8187's filename*). Sent with
// S3 GETs through the presigned URL's response-content-disposition, where no nosniff header can
// be added: a browser opening the URL saves the file instead of rendering what it might guess.
// (Embedded as <img> or <video>, the file shows as usual: the header only affects navigation.)

/** The name part of a final object key, `<userId>/<fileId>/<name>`. */
export function fileNameOfKey(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1) || 'file';
}

/** RFC 8187's percent-encoding of UTF-8 (attr-char is letters, digits and !#$&+-.^_`|~). */
function encodeExtValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function attachmentDisposition(fileName: string): string {
  // The quoted fallback: printable ASCII without the quote and the backslash.
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const plain = `attachment; filename="${ascii}"`;
  return ascii === fileName ? plain : `${plain}; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
