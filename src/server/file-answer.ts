// What the disk store answers to a GET or HEAD of a stored file, decided from the request's
// headers and the file's size and version alone (pure, so every case is a table row in
// test/server/file-answer.test.ts): the whole file (200), one range of it (206), a range past
// its end (416), or "not modified" (304). Browsers need the 206 to seek in a video, and Safari
// will not play one at all without it (RFC 9110 §14, §13).
import contentDisposition from 'content-disposition';

export interface StoredFileFacts {
  size: number;
  /** A strong validator: changes whenever the object is written again (quoted here). */
  etag: string;
  lastModified: Date;
  contentType: string;
  /** The name the file was uploaded under, offered to a browser that saves it. */
  fileName: string;
}

export interface ConditionalHeaders {
  range?: string | undefined;
  ifRange?: string | undefined;
  ifNoneMatch?: string | undefined;
}

export type FileAnswer =
  | { status: 200 | 206; headers: Record<string, string>; start: number; end: number }
  | { status: 304 | 416; headers: Record<string, string> };

/** `"…"` around the store's version, as the ETag header carries it. */
export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

/** True when `If-None-Match` names this version (weak comparison, RFC 9110 §13.1.2). */
function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .includes(quoteEtag(etag));
}

/**
 * `If-Range` holding this exact version (strong comparison) or a date no earlier than the
 * file's last change: the range may be served. Anything else: the whole file is sent instead.
 */
function ifRangeHolds(header: string, facts: StoredFileFacts): boolean {
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === quoteEtag(facts.etag);
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(facts.lastModified.getTime() / 1000) * 1000 <= date;
}

/**
 * One `bytes=` range of a file of `size` bytes: first-last, first- (to the end) or -suffix (the
 * last bytes; longer than the file = the whole file), with `last` past the end cut to it
 * (RFC 9110 §14.1.2). 'ignore' for what is not one byte range — another unit, garbage, or
 * several ranges (they would need a multipart/byteranges body; no browser asks for one to play
 * or seek) — which RFC 9110 §14.2 lets a server answer with the whole file.
 */
export function parseByteRange(
  header: string,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | 'ignore' {
  const m = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore';
  const [first, last] = [m[1]!, m[2]!];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  // first > last is not a valid range-spec: ignored, not refused (RFC 9110 §14.1.1).
  if (last !== '' && Number(last) < start) return 'ignore';
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * inline (the disk store, which sends nosniff): the browser shows the file; attachment (S3's
 * signed URLs, storage/disposition.ts): it saves it. The name is what "save as" offers (RFC 6266). The plain
 * `filename` is kept to printable ASCII (`?` for the rest): header bytes beyond it are read as
 * ISO-8859-1 by some clients and UTF-8 by others. The real name rides in the RFC 5987
 * `filename*` form, which every current browser prefers.
 */
export function dispositionOf(fileName: string, type: 'inline' | 'attachment' = 'inline'): string {
  return contentDisposition(fileName, { type, fallback: fileName.replace(/[^\x20-\x7e]/g, '?') });
}

export function planFileAnswer(facts: StoredFileFacts, h: ConditionalHeaders): FileAnswer {
  const common: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    ETag: quoteEtag(facts.etag),
    'Last-Modified': facts.lastModified.toUTCString(),
    'X-Content-Type-Options': 'nosniff',
  };
  if (h.ifNoneMatch !== undefined && noneMatchHits(h.ifNoneMatch, facts.etag)) {
    return { status: 304, headers: common };
  }
  const whole = {
    status: 200 as const,
    headers: {
      ...common,
      'Content-Type': facts.contentType,
      'Content-Length': String(facts.size),
      'Content-Disposition': dispositionOf(facts.fileName),
    },
    start: 0,
    end: facts.size - 1,
  };
  if (h.range === undefined || (h.ifRange !== undefined && !ifRangeHolds(h.ifRange, facts))) return whole;
  const range = parseByteRange(h.range, facts.size);
  if (range === 'ignore') return whole;
  if (range === 'unsatisfiable') {
    return { status: 416, headers: { ...common, 'Content-Range': `bytes */${facts.size}` } };
  }
  const { start, end } = range;
  return {
    status: 206,
    headers: {
      ...whole.headers,
      'Content-Length': String(end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${facts.size}`,
    },
    start,
    end,
  };
}
