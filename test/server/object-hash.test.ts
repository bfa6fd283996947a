// sha256OfObject reads an object by ranges, a few ahead of the one it hashes (issue 41: one
// stream from Ceph RGW was the bottleneck of complete). The stores' own readRange is tested by the
// conformance suites on disk and RGW; here a reader over a Buffer counts what is asked of it.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  HASH_RANGE_BYTES,
  READS_AHEAD,
  type RangeReader,
  sha256OfObject,
} from '../../src/server/storage/object-hash.js';
import { ObjectStateError } from '../../src/server/storage/interface.js';

/** A reader over `bytes` that answers after a turn of the event loop, counting reads in flight. */
function readerOf(bytes: Buffer, fail?: { at: number; error: Error }) {
  const stats = { reads: 0, inFlight: 0, maxInFlight: 0, etags: new Set<string | undefined>() };
  const reader: RangeReader = {
    async readRange(_key, offset, length, etag) {
      stats.reads++;
      stats.etags.add(etag);
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      await new Promise((r) => setTimeout(r, 1));
      stats.inFlight--;
      if (fail && offset === fail.at) throw fail.error;
      return bytes.subarray(offset, offset + length);
    },
  };
  return { reader, stats };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const hashOf = (storage: RangeReader, size: number, signal?: AbortSignal) =>
  sha256OfObject({ storage, key: 'k', head: { size, etag: 'e1' } }, signal);

describe('sha256OfObject', () => {
  const sizes = [0, 1, HASH_RANGE_BYTES - 1, HASH_RANGE_BYTES, HASH_RANGE_BYTES + 1, 6 * HASH_RANGE_BYTES + 3];
  it.each(sizes)('hashes an object of %i bytes in order, pinned to its version', async (size) => {
    const bytes = randomBytes(size);
    const { reader, stats } = readerOf(bytes);
    expect(await hashOf(reader, size)).toBe(sha(bytes));
    expect(stats.reads).toBe(Math.ceil(size / HASH_RANGE_BYTES));
    expect([...stats.etags]).toEqual(size === 0 ? [] : ['e1']);
  });

  it('keeps a bounded number of ranges in flight: the one hashed and READS_AHEAD more', async () => {
    const size = 10 * HASH_RANGE_BYTES;
    const { reader, stats } = readerOf(Buffer.alloc(size, 7));
    await hashOf(reader, size);
    expect(stats.maxInFlight).toBe(READS_AHEAD + 1);
  });

  it('says the object changed when it is shorter than its head', async () => {
    const bytes = randomBytes(2 * HASH_RANGE_BYTES);
    const { reader } = readerOf(bytes.subarray(0, HASH_RANGE_BYTES + 5));
    await expect(hashOf(reader, bytes.length)).rejects.toBeInstanceOf(ObjectStateError);
  });

  it('rejects with the failing read, and no read fails unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const size = 6 * HASH_RANGE_BYTES;
      const error = new Error('store unreachable');
      const { reader } = readerOf(randomBytes(size), { at: 2 * HASH_RANGE_BYTES, error });
      await expect(hashOf(reader, size)).rejects.toBe(error);
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('stops between ranges when its signal is aborted', async () => {
    const size = 8 * HASH_RANGE_BYTES;
    const controller = new AbortController();
    const { reader, stats } = readerOf(Buffer.alloc(size));
    const hashing = hashOf(reader, size, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(hashing).rejects.toThrow('shutting down');
    expect(stats.reads).toBeLessThan(8);
  });
});
