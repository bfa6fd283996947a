// collectAfter (src/upload/plan/collect.ts): after the scan of a large plan, what the scan left
// behind is collected at once, not when the upload's heap bound next looks.
import { setImmediate as nextTurn } from 'node:timers/promises';
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
});
