// The storage PUT's admission and pace (src/server/put-gate.ts), in-process: places per key and
// file descriptors kept free; a body cut for coming too slowly or for too long; a body whose
// connection is lost ends in an error its reader hears, and never in an unheard one.
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FD_RESERVE } from '../../src/server/limits.js';
import { SlowBodyError, createPutGate, openFileLimit, pacedBody } from '../../src/server/put-gate.js';

const limits = { minBytesPerSecond: 100, rateWindowMs: 1000, maxMs: 10_000, perKey: 2 };

/** A request body as the route gets it: a stream with IncomingMessage's `complete`. */
function rawBody(): IncomingMessage {
  return Object.assign(new PassThrough(), { complete: false }) as unknown as IncomingMessage;
}

describe('admission', () => {
  it('a key has at most perKey PUTs in flight; a place given back is free again', () => {
    const gate = createPutGate({ limits, fileLimit: 1000, connections: () => 3 });
    const a = gate.admit('k1');
    const b = gate.admit('k1');
    expect(gate.admit('k1')).toEqual({ kind: 'key', inFlight: 2, limit: 2 });
    expect('release' in gate.admit('k2')).toBe(true);
    if ('release' in a) a.release();
    if ('release' in a) a.release(); // twice is once
    expect('release' in gate.admit('k1')).toBe(true);
    expect(gate.inFlight()).toBe(3);
    expect('release' in b).toBe(true);
  });

  it(`keeps ${FD_RESERVE} descriptors free: connections and files in flight count`, () => {
    let connections = 100;
    const gate = createPutGate({ limits: { ...limits, perKey: 1000 }, fileLimit: 256, connections: () => connections });
    let admitted = 0;
    while ('release' in gate.admit('k')) admitted++;
    expect(admitted).toBe(256 - 100 - FD_RESERVE);
    connections = 300;
    expect(gate.admit('other')).toMatchObject({ kind: 'descriptors' });
  });

  it('reads the soft open-file limit from /proc; unlimited or unreadable is no limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'contentlib-limits-'));
    const file = join(dir, 'limits');
    await writeFile(
      file,
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            256                  524288               files\n',
    );
    expect(openFileLimit(file)).toBe(256);
    await writeFile(file, 'Max open files            unlimited            unlimited            files\n');
    expect(openFileLimit(file)).toBe(Infinity);
    expect(openFileLimit(join(dir, 'none'))).toBe(Infinity);
    await rm(dir, { recursive: true });
  });
});

describe('pace', () => {
  it("tells each chunk's size to the server's scavenger as it passes, the bytes unchanged", async () => {
    const raw = rawBody();
    const sizes: number[] = [];
    const body = pacedBody(raw, limits, (n) => sizes.push(n));
    const out: Buffer[] = [];
    body.on('data', (c: Buffer) => out.push(c));
    const chunks = [Buffer.alloc(65_536, 1), Buffer.alloc(10, 2), Buffer.alloc(40_000, 3)];
    for (const c of chunks) (raw as unknown as PassThrough).write(c);
    (raw as unknown as PassThrough).end();
    await new Promise((resolve) => body.once('end', resolve));
    expect(sizes).toEqual([65_536, 10, 40_000]);
    expect(Buffer.concat(out).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('a window bringing less than the minimum cuts the body with SlowBodyError', async () => {
    vi.useFakeTimers();
    try {
      const raw = rawBody();
      const body = pacedBody(raw, limits);
      const failed = new Promise<unknown>((resolve) => body.once('error', resolve));
      body.resume();
      (raw as unknown as PassThrough).write(Buffer.alloc(150));
      vi.advanceTimersByTime(1000); // 150 bytes in the first second: enough
      (raw as unknown as PassThrough).write(Buffer.alloc(10));
      vi.advanceTimersByTime(1000); // 10 in the next: cut
      expect(await failed).toBeInstanceOf(SlowBodyError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('however fast, a body past maxMs is cut', async () => {
    vi.useFakeTimers();
    try {
      const raw = rawBody();
      const body = pacedBody(raw, { ...limits, maxMs: 3000 });
      const failed = new Promise<Error>((resolve) => body.once('error', resolve));
      body.resume();
      for (let t = 0; t < 3; t++) {
        (raw as unknown as PassThrough).write(Buffer.alloc(1000));
        vi.advanceTimersByTime(1000);
      }
      expect((await failed).message).toMatch(/longer than 3 s/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a connection lost midway ends the body in an error, heard or not, and never an uncaught one', async () => {
    const raw = rawBody();
    const body = pacedBody(raw, limits);
    // Nobody reads it (a reader that gave up after the disk refused the bytes).
    raw.destroy();
    await new Promise((r) => setImmediate(r));
    expect(body.destroyed).toBe(true);
    expect(body.errored?.message).toMatch(/ended before its Content-Length/);
  });
});
