// collectAfter (src/upload/plan/collect.ts): after the scan of a large plan, what the scan left
// behind is collected at once, not when the upload's heap bound next looks.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectAfter } from '../../src/upload/plan/collect.js';

/** A WeakRef to an object no one holds, made in a job of its own (a WeakRef keeps its target for the job that made it). */
async function unheld(): Promise<WeakRef<object>> {
  const ref = new WeakRef({ payload: new Array<number>(1000).fill(1) });
  await nextTurn();
  return ref;
}

describe('collectAfter', () => {
  it('collects what no one holds once a large plan was scanned', async () => {
    const ref = await unheld();
    collectAfter(100_000);
    await nextTurn();
    expect(ref.deref()).toBeUndefined();
  });

  it('hands back the pages that the garbage filled, not only the objects', async () => {
    // ~60 MB of small objects promoted to the old generation (they outlive a few scavenges),
    // then dropped: a plain full collection frees them yet keeps their pages committed.
    const chunks: Array<Array<{ n: number; s: string }>> = [];
    for (let c = 0; c < 60; c++) {
      chunks.push(Array.from({ length: 10_000 }, (_, n) => ({ n, s: `file-${c}-${n}` })));
      await nextTurn();
    }
    const filled = getHeapStatistics().total_heap_size;
    chunks.length = 0;
    await nextTurn();
    collectAfter(100_000);
    const { total_heap_size: total, used_heap_size: used } = getHeapStatistics();
    expect(filled - total).toBeGreaterThan(30 * 1024 * 1024);
    // What stays committed is about what is live, not the garbage's high-water mark.
    expect(total - used).toBeLessThan(16 * 1024 * 1024);
  });
});
