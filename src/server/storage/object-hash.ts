// The SHA-256 of one pinned version of a stored object, read by ranges (never whole in memory):
// what complete checks an upload's bytes with (stored-file.ts), and what an S3 promote proves
// its copy with when the store gave the copy an ETag of its own (s3.ts).
import { createHash } from 'node:crypto';
import { ObjectStateError } from './interface.js';

/** Bytes read at once when an object is hashed. */
export const HASH_RANGE_BYTES = 8 * 1024 * 1024;

/**
 * Ranges fetched while one is hashed. One stream from Ceph RGW gave ~220 MB/s here where 4 to 8
 * ranges at once gave 300–450 MB/s (bench/notes.md, issue 41), and complete on RGW reads a large
 * upload twice (its staging object, then the promoted copy): so a few ranges ahead, at most
 * (1 + READS_AHEAD) × 8 MiB held per object hashed.
 */
export const READS_AHEAD = 3;

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
  const { size, etag } = o.head;
  const pending: Array<{ offset: number; length: number; read: Promise<Buffer> }> = [];
  let nextOffset = 0;
  const fill = () => {
    while (pending.length <= READS_AHEAD && nextOffset < size) {
      const length = Math.min(HASH_RANGE_BYTES, size - nextOffset);
      const read = o.storage.readRange(o.key, nextOffset, length, etag);
      read.catch(() => {}); // awaited in its turn; a failure must not go unhandled meanwhile
      pending.push({ offset: nextOffset, length, read });
      nextOffset += length;
    }
  };
  fill();
  for (let range = pending.shift(); range; range = pending.shift()) {
    const chunk = await range.read;
    signal?.throwIfAborted();
    // A shorter object than its head said: it changed under us (the pinned read would say so too).
    if (chunk.length !== range.length) throw new ObjectStateError('changed', o.key);
    fill();
    hash.update(chunk);
  }
  return hash.digest('hex');
}
