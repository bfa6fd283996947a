// The bodies' scavenger (src/heap/scavenge.ts): a young-generation collection after every so many
// bytes, counted across calls, whatever the chunks' sizes; never a full collection.
import { describe, expect, it } from 'vitest';
import type { Gc } from '../../src/heap/gc.js';
import { DOWNLOAD_SCAVENGE_BYTES, SERVER_SCAVENGE_BYTES, scavenger } from '../../src/heap/scavenge.js';

const MiB = 1024 * 1024;

describe('scavenger', () => {
  it.each([
    {
      what: 'a download: 64 KiB reads, 2 MiB apart',
      every: DOWNLOAD_SCAVENGE_BYTES,
      chunks: Array(100).fill(64 * 1024),
      at: [31, 63, 95],
    },
    { what: "serve's bodies: 16 MiB apart", every: SERVER_SCAVENGE_BYTES, chunks: Array(40).fill(MiB), at: [15, 31] },
    {
      what: 'chunks that straddle the mark: counted from the collection on',
      every: 4 * MiB,
      chunks: [3 * MiB, 3 * MiB, 3 * MiB, 1 * MiB],
      at: [1, 3],
    },
    { what: 'fewer bytes than one interval: none', every: 16 * MiB, chunks: [MiB, 5 * MiB, 9 * MiB], at: [] },
  ])('$what', ({ every, chunks, at }) => {
    const calls: { chunk: number; o: Parameters<Gc>[0] }[] = [];
    let chunk = 0;
    const received = scavenger(every, () => (o) => calls.push({ chunk, o }));
    for (const [i, n] of (chunks as number[]).entries()) {
      chunk = i;
      received(n);
    }
    expect(calls.map((c) => c.chunk)).toEqual(at);
    for (const c of calls) expect(c.o).toEqual({ type: 'minor' });
  });
});
