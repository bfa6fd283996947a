// The SHA-256 of one pinned version of a stored object, read by ranges (never whole in memory):
// what complete checks an upload's bytes with (stored-file.ts), and what an S3 promote proves
// its copy with when the store gave the copy an ETag of its own (s3.ts).
import { createHash } from 'node:crypto';
import { ObjectStateError } from './interface.js';

/** Bytes read at once when an object is hashed; the next range is fetched while one is hashed. */
export const HASH_RANGE_BYTES = 8 * 1024 * 1024;

/** What hashing needs of a store: its pinned ranged reads (Storage.readRange). */
export interface RangeReader {
  readRange(key: string, offset: number, length: number, etag?: string): Promise<Buffer>;
}

/** The SHA-256 (hex) of `key` as version `head.etag`; a changed object fails the read; `signal` stops between ranges. */
export async function sha256OfObject(
  o: { storage: RangeReader; key: string; head: { size: number; etag: string } },
  signal?: AbortSignal,
): Promise<string> {
  const hash = createHash('sha256');
  const read = (offset: number) =>
    offset < o.head.size
      ? o.storage.readRange(o.key, offset, Math.min(HASH_RANGE_BYTES, o.head.size - offset), o.head.etag)
      : null;
  let offset = 0;
  let next = read(0);
  while (next) {
    const chunk = await next;
    signal?.throwIfAborted();
    // A shorter object than its head said: it changed under us (the pinned read would say so too).
    if (chunk.length === 0) throw new ObjectStateError('changed', o.key);
    offset += chunk.length;
    next = read(offset);
    next?.catch(() => {}); // awaited on the next turn; a failure must not go unhandled meanwhile
    hash.update(chunk);
  }
  return hash.digest('hex');
}
