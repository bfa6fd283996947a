// bin/upload-heap.js: what `contentlib upload` sets on V8 to keep its peak memory flat over long
// runs (issue 17). Each case runs in a child process: V8 flags are process-wide.
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';

const MODULE = join(ROOT, 'bin/upload-heap.js');

/** Keeps 400,000 small objects alive (each survives scavenges), then reports the young generation's size. */
const script = (bound: boolean) => `
const v8 = require('node:v8');
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const gc = ${bound ? `require(${JSON.stringify(MODULE)}).boundUploadHeap(50)` : 'undefined'};
const before = young();
const keep = [];
for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i });
console.log(JSON.stringify({ before, after: young(), kept: keep.length, gc: typeof gc, globalGc: typeof globalThis.gc }));
`;

async function runChild(bound: boolean) {
  // The interval is unref'd: the child must exit on its own (a timeout here means it did not).
  const r = await execa('node', ['-e', script(bound)], { timeout: 30_000 });
  return JSON.parse(r.stdout) as { before: number; after: number; kept: number; gc: string; globalGc: string };
}

/**
 * The young generation's bound: V8 starts it at 0.5 MiB (Node 26) or 1 MiB (Node 20–24) and,
 * with the bound, lets it reach 2 MiB; unbounded, under this load, it grows to 16–32 MiB.
 * (Measured against a fixed size: Node 26 may start at 0.5 MiB and still stop at 2 MiB.)
 */
const YOUNG_BOUND = 4 * 1024 * 1024;

describe('boundUploadHeap', () => {
  it('keeps the young generation near its first size while many objects survive', async () => {
    const r = await runChild(true);
    expect(r.kept).toBe(400_000);
    expect(r.before).toBeLessThanOrEqual(YOUNG_BOUND);
    expect(r.after).toBeLessThanOrEqual(YOUNG_BOUND);
  });

  it('without it, V8 grows the young generation under the same load (so the case above can fail)', async () => {
    const r = await runChild(false);
    expect(r.after).toBeGreaterThan(YOUNG_BOUND);
  });

  it('returns a full collection without leaving gc on the global', async () => {
    const r = await runChild(true);
    expect(r.gc).toBe('function');
    expect(r.globalGc).toBe('undefined');
  });
});
