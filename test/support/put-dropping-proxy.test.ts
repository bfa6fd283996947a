// The PUT-dropping proxy's faults (test/support/put-dropping-proxy.ts) are spent only on a body
// they actually cut, whatever order the PUTs come in: a short body passes whole and leaves the
// fault for the next long one. (Its use against a real server: test/server/upload.test.ts.)
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type PutFaults, putFaults } from './put-dropping-proxy.js';

/** Sends `size` bytes in 256-byte chunks through the fault; whether it cut them, and how many bytes got through. */
async function send(faults: PutFaults, size: number): Promise<{ killed: boolean; passed: number }> {
  let killed = false;
  let passed = 0;
  const chunks = Array.from({ length: Math.ceil(size / 256) }, (_, i) => Buffer.alloc(Math.min(256, size - i * 256)));
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      passed += chunk.length;
      cb();
    },
  });
  await pipeline(
    Readable.from(chunks),
    faults.wrap(() => (killed = true)),
    sink,
  ).catch(() => {});
  return { killed, passed };
}

describe('putFaults', () => {
  it.each([
    { name: 'cuts the first bodies that reach the limit', sizes: [3000, 3000, 3000], cut: [true, true, false] },
    {
      name: 'a short body arriving first spends no fault',
      sizes: [300, 3000, 300, 3000, 3000],
      cut: [false, true, false, true, false],
    },
    { name: 'a body of exactly the limit is cut', sizes: [1000, 999, 1000], cut: [true, false, true] },
    { name: 'no body reaches the limit: nothing is cut', sizes: [999, 10, 500], cut: [false, false, false] },
  ])('$name', async ({ sizes, cut }) => {
    const faults = putFaults(1000, 2);
    const got = [];
    for (const size of sizes) got.push((await send(faults, size)).killed);
    expect(got).toEqual(cut);
  });

  it('a body it does not cut passes whole; a cut one stops before the limit is passed on', async () => {
    const faults = putFaults(1000, 1);
    expect(await send(faults, 700)).toEqual({ killed: false, passed: 700 });
    const cut = await send(faults, 3000);
    expect(cut.killed).toBe(true);
    expect(cut.passed).toBeLessThan(1000);
    expect(faults.armed()).toBe(false);
    expect(await send(faults, 3000)).toEqual({ killed: false, passed: 3000 });
  });

  it('PUTs in flight at once: only as many are cut as there are faults', async () => {
    const faults = putFaults(1000, 3);
    const results = await Promise.all([300, 3000, 3000, 300, 3000, 3000, 3000].map((n) => send(faults, n)));
    expect(results.filter((r) => r.killed)).toHaveLength(3);
    expect(results.filter((r, i) => r.killed && [0, 3].includes(i))).toHaveLength(0);
  });
});
