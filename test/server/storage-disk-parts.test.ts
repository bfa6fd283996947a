// What only the disk store's multipart uploads do (disk-parts.ts): parts written at their offsets
// into one data file, a marker per stored part, one write per part at a time, the SHA-256 rolled
// as parts land. The store is driven directly, as the part PUT route does.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LengthMismatchError, createDiskStorage } from '../../src/server/storage/disk.js';
import { type DiskParts, createDiskParts, readBuffers } from '../../src/server/storage/disk-parts.js';
import { isObjectState, stagingKeyOf } from '../../src/server/storage/interface.js';

const SIZE = 1000;
const ok = async () => true;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dataDir: string;
let parts: DiskParts;
let stagingPath: (key: string) => string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'contentlib-parts-'));
  const storage = createDiskStorage({ dataDir, secret: Buffer.alloc(32, 1), publicUrl: () => 'http://127.0.0.1:1' });
  stagingPath = storage.pathOf;
  parts = createDiskParts(dataDir, Buffer.alloc(32, 1), () => 'http://127.0.0.1:1', storage.pathOf);
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

async function open_(): Promise<{ key: string; id: string }> {
  const key = stagingKeyOf(crypto.randomUUID());
  return { key, id: await parts.create(key, 'video/mp4') };
}

/** Sends part `n` (SIZE bytes each but the last) whole; returns its ETag. */
async function put(id: string, n: number, bytes: Buffer): Promise<string> {
  const stored = await parts.receive(id, n, (n - 1) * SIZE, Readable.from([bytes]), bytes.length, ok);
  if (stored === 'closed') throw new Error(`part ${n} refused as closed`);
  return stored.etag;
}

/** A part whose body the test feeds by hand: `receive` runs until `end()`. */
function slowPart(id: string, n: number, size: number) {
  const body = new PassThrough();
  const settled = { done: false };
  const result = parts.receive(id, n, (n - 1) * SIZE, body, size, ok).finally(() => (settled.done = true));
  return { body, settled, result };
}

/** Lets the event loop run (file operations included) a few times. */
async function spin(times = 20): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((r) => setTimeout(r, 5));
}

const numbered = async (key: string, id: string) =>
  (await parts.listParts(key, id)).map((p) => ({ partNumber: p.partNumber, etag: p.etag }));

describe('disk multipart parts', () => {
  it('joins parts sent out of order, one retried, to their exact bytes and SHA-256, without a copy', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE), randomBytes(SIZE), randomBytes(123)];
    await put(id, 3, want[2]!);
    await put(id, 1, randomBytes(SIZE)); // replaced below
    await put(id, 4, want[3]!);
    await put(id, 1, want[0]!);
    await put(id, 2, want[1]!);
    const listed = await parts.listParts(key, id);
    expect(listed.map((p) => [p.partNumber, p.size])).toEqual([
      [1, SIZE],
      [2, SIZE],
      [3, SIZE],
      [4, 123],
    ]);
    const { sha256 } = await parts.complete(key, id, listed);
    const whole = Buffer.concat(want);
    expect(sha256).toBe(sha(whole));
    expect((await readFile(stagingPath(key))).equals(whole)).toBe(true);
    expect(await readdir(join(dataDir, 'parts'))).toEqual([]);
  });

  it('a part being written again has no marker until its bytes are whole; then a new ETag', async () => {
    const { key, id } = await open_();
    const old = await put(id, 1, randomBytes(SIZE));
    await put(id, 2, Buffer.from('end'));
    const again = slowPart(id, 1, SIZE);
    const fresh = randomBytes(SIZE);
    again.body.write(fresh.subarray(0, 400));
    await spin();
    // The old marker is gone: the half-written part is neither listed nor joinable.
    expect((await parts.listParts(key, id)).map((p) => p.partNumber)).toEqual([2]);
    const err = await parts
      .complete(key, id, [
        { partNumber: 1, etag: old },
        { partNumber: 2, etag: 'x' },
      ])
      .catch((e: unknown) => e);
    expect(isObjectState(err, 'changed')).toBe(true);
    again.body.end(fresh.subarray(400));
    const stored = await again.result;
    expect(stored).not.toBe('closed');
    const etag = (stored as { etag: string }).etag;
    expect(etag).not.toBe(old);
    const listed = await numbered(key, id);
    expect(listed[0]).toEqual({ partNumber: 1, etag });
    const { sha256 } = await parts.complete(key, id, listed);
    expect(sha256).toBe(sha(Buffer.concat([fresh, Buffer.from('end')])));
  });

  it('a second PUT of the same part waits for the first; the later one is the stored part', async () => {
    const { key, id } = await open_();
    const first = slowPart(id, 1, SIZE);
    const a = randomBytes(SIZE);
    const b = randomBytes(SIZE);
    first.body.write(a.subarray(0, 500));
    await spin();
    const second = parts.receive(id, 1, 0, Readable.from([b]), SIZE, ok);
    let secondDone = false;
    void second.finally(() => (secondDone = true));
    await spin();
    // The second cannot start while the first holds the part: it would write the same bytes.
    expect(secondDone).toBe(false);
    first.body.end(a.subarray(500));
    const [x, y] = await Promise.all([first.result, second]);
    expect(x).not.toBe('closed');
    expect(y).not.toBe('closed');
    expect((x as { etag: string }).etag).not.toBe((y as { etag: string }).etag);
    const listed = await numbered(key, id);
    expect(listed).toEqual([{ partNumber: 1, etag: (y as { etag: string }).etag }]);
    expect((await parts.complete(key, id, listed)).sha256).toBe(sha(b));
    expect((await readFile(stagingPath(key))).equals(b)).toBe(true);
  });

  it('a complete while a part is being written is refused as changed; once written, it joins', async () => {
    const { key, id } = await open_();
    const etag = await put(id, 1, Buffer.from('abc'));
    const again = slowPart(id, 1, 3);
    again.body.write('x');
    await spin();
    const err = await parts.complete(key, id, [{ partNumber: 1, etag }]).catch((e: unknown) => e);
    expect(isObjectState(err, 'changed')).toBe(true);
    again.body.end('yz');
    await again.result;
    expect((await parts.complete(key, id, await numbered(key, id))).sha256).toBe(sha(Buffer.from('xyz')));
  });

  it('a part PUT arriving while complete joins waits for it, then finds the upload closed', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE)];
    await put(id, 1, want[0]!);
    await put(id, 2, want[1]!);
    const listed = await numbered(key, id);
    const joining = parts.complete(key, id, listed);
    const late = await parts.receive(id, 1, 0, Readable.from([randomBytes(SIZE)]), SIZE, ok);
    expect(late).toBe('closed');
    expect((await joining).sha256).toBe(sha(Buffer.concat(want)));
    expect((await readFile(stagingPath(key))).equals(Buffer.concat(want))).toBe(true);
  });

  it('a part that fails mid-body or arrives short leaves no marker; a retry stores it', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE)];
    await put(id, 1, want[0]!);
    const broken = slowPart(id, 2, SIZE);
    broken.body.write(want[1]!.subarray(0, 300));
    await spin();
    broken.body.destroy(new Error('connection lost'));
    await expect(broken.result).rejects.toThrow('connection lost');
    const short = await parts
      .receive(id, 2, SIZE, Readable.from([want[1]!.subarray(0, 10)]), SIZE, ok)
      .catch((e: unknown) => e);
    expect(short).toBeInstanceOf(LengthMismatchError);
    expect((await parts.listParts(key, id)).map((p) => p.partNumber)).toEqual([1]);
    await put(id, 2, want[1]!);
    // A body longer than its part never spills into the next part.
    const long = await parts
      .receive(id, 1, 0, Readable.from([randomBytes(SIZE + 1)]), SIZE, ok)
      .catch((e: unknown) => e);
    expect(long).toBeInstanceOf(LengthMismatchError);
    expect((await parts.listParts(key, id)).map((p) => p.partNumber)).toEqual([2]);
    await put(id, 1, want[0]!);
    const { sha256 } = await parts.complete(key, id, await numbered(key, id));
    expect(sha256).toBe(sha(Buffer.concat(want)));
    expect((await readFile(stagingPath(key))).equals(Buffer.concat(want))).toBe(true);
  });

  it('an upload closed or aborted meanwhile keeps no part, and takes no more', async () => {
    const { key, id } = await open_();
    expect(await parts.receive(id, 1, 0, Readable.from([Buffer.from('a')]), 1, async () => false)).toBe('closed');
    expect(await parts.listParts(key, id)).toEqual([]);
    const slow = slowPart(id, 1, 2);
    slow.body.write('a');
    await spin();
    await parts.abort(key, id);
    slow.body.end('b');
    expect(await slow.result).toBe('closed');
    expect(await parts.receive(id, 2, SIZE, Readable.from([Buffer.from('c')]), 1, ok)).toBe('closed');
    expect(await readdir(join(dataDir, 'parts'))).toEqual([]);
  });

  it('an abort while parts are storing their markers removes the whole folder (no ENOTEMPTY), and they are closed or kept', async () => {
    for (let round = 0; round < 5; round++) {
      const { key, id } = await open_();
      // Many markers, so that removing the folder takes a while; then parts whose marker is being
      // written as the folder is removed (a file made in it after rm listed it stopped its rmdir).
      for (let n = 1; n <= 150; n++) await put(id, n, Buffer.from([n]));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let waiting = 0;
      const landing = Array.from({ length: 20 }, (_, i) =>
        parts.receive(id, 151 + i, (150 + i) * SIZE, Readable.from([Buffer.from('x')]), 1, async () => {
          waiting++;
          await gate;
          return true;
        }),
      );
      while (waiting < landing.length) await spin(1);
      const aborted = parts.abort(key, id);
      release();
      await expect(aborted).resolves.toBeUndefined();
      for (const outcome of await Promise.all(landing))
        expect(outcome === 'closed' || typeof outcome.etag === 'string').toBe(true);
      expect(await readdir(join(dataDir, 'parts'))).toEqual([]);
    }
  });

  it('the SHA-256 rolled as parts land is dropped when a hashed part is written again', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE), randomBytes(50)];
    await put(id, 1, randomBytes(SIZE));
    await put(id, 2, want[1]!);
    await put(id, 3, want[2]!);
    await parts.idle(id);
    // Parts 1..3 are hashed by now; part 1 sent again must not keep its old bytes in the hash.
    await put(id, 1, want[0]!);
    const { sha256 } = await parts.complete(key, id, await numbered(key, id));
    expect(sha256).toBe(sha(Buffer.concat(want)));
  });

  it('complete reads only what the rolling hash has not covered (the hashed range is not read again)', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE)];
    await put(id, 1, want[0]!);
    await parts.idle(id);
    // Changed behind the store's back: a complete that hashed the file again would see it.
    const data = await open(join(dataDir, 'parts', id, 'data'), 'r+');
    await data.write(Buffer.alloc(10), 0, 10, 0);
    await data.close();
    await put(id, 2, want[1]!);
    const { sha256 } = await parts.complete(key, id, await numbered(key, id));
    expect(sha256).toBe(sha(Buffer.concat(want)));
    expect(sha256).not.toBe(sha(await readFile(stagingPath(key))));
  });

  it('more parts than are read at once: listed, rolled and joined in order to their exact bytes', async () => {
    const { key, id } = await open_();
    const want = Array.from({ length: 40 }, (_, i) => randomBytes(i === 39 ? 17 : SIZE));
    // Out of order, so the rolling hash catches up over many parts at once.
    for (const n of [...want.keys()].reverse()) await put(id, n + 1, want[n]!);
    const listed = await parts.listParts(key, id);
    expect(listed.map((p) => p.partNumber)).toEqual(want.map((_, i) => i + 1));
    const { sha256 } = await parts.complete(key, id, listed);
    expect(sha256).toBe(sha(Buffer.concat(want)));
    expect((await readFile(stagingPath(key))).equals(Buffer.concat(want))).toBe(true);
  });

  it('a restart (no rolling hash) hashes the whole data file at complete', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(7)];
    await put(id, 1, want[0]!);
    await put(id, 2, want[1]!);
    const restarted = createDiskParts(dataDir, Buffer.alloc(32, 1), () => 'http://127.0.0.1:1', stagingPath);
    const listed = await restarted.listParts(key, id);
    expect((await restarted.complete(key, id, listed)).sha256).toBe(sha(Buffer.concat(want)));
  });
});

/**
 * Counts the bytes read through file handles (the rolling hash's and complete's reads of the data
 * file: markers are read whole, by path) from now until `stop()`.
 */
async function countReads(): Promise<{ bytes: number; stop: () => void }> {
  const probe = await open(join(dataDir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<{ bytesRead: number }> };
  await probe.close();
  const read = proto.read;
  const counted = {
    bytes: 0,
    stop: () => {
      proto.read = read;
    },
  };
  proto.read = async function (this: unknown, ...args: unknown[]) {
    const r = await read.apply(this, args);
    counted.bytes += r.bytesRead;
    return r;
  };
  return counted;
}

describe('the part next in order hashed as it lands', () => {
  it('parts sent in order are never read back, by the rolling hash nor by complete', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE), randomBytes(SIZE), randomBytes(321)];
    const reads = await countReads();
    try {
      for (const [i, bytes] of want.entries()) await put(id, i + 1, bytes);
      await parts.idle(id);
      const { sha256 } = await parts.complete(key, id, await numbered(key, id));
      expect(sha256).toBe(sha(Buffer.concat(want)));
      expect(reads.bytes).toBe(0);
    } finally {
      reads.stop();
    }
    expect((await readFile(stagingPath(key))).equals(Buffer.concat(want))).toBe(true);
  });

  it('parts landing together: the next one in order is read back only as far as it had landed', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE), randomBytes(99)];
    const reads = await countReads();
    try {
      const one = slowPart(id, 1, SIZE);
      const two = slowPart(id, 2, SIZE);
      // Part 2's first 300 bytes land while part 1 is still arriving: not next yet, not hashed.
      two.body.write(want[1]!.subarray(0, 300));
      // In the data file (sparse: part 2's bytes end it).
      while ((await stat(join(dataDir, 'parts', id, 'data'))).size < SIZE + 300) await spin(1);
      one.body.end(want[0]!);
      expect(await one.result).not.toBe('closed');
      // Part 2 is next now (once part 1's hashing is done): its 300 bytes are read back, the rest
      // hashed as it lands.
      await parts.idle(id);
      two.body.end(want[1]!.subarray(300));
      expect(await two.result).not.toBe('closed');
      await put(id, 3, want[2]!);
      await parts.idle(id);
      expect(reads.bytes).toBe(300);
      const { sha256 } = await parts.complete(key, id, await numbered(key, id));
      expect(sha256).toBe(sha(Buffer.concat(want)));
      expect(reads.bytes).toBe(300);
    } finally {
      reads.stop();
    }
  });

  it('a part stored out of order is read back once the parts before it are hashed, and the SHA-256 holds', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE), randomBytes(SIZE), randomBytes(5)];
    const reads = await countReads();
    try {
      await put(id, 3, want[2]!);
      await put(id, 1, want[0]!);
      await put(id, 2, want[1]!);
      // Part 3 read back (in the page cache still) once part 2 is hashed; part 4 is next when it comes.
      await parts.idle(id);
      await put(id, 4, want[3]!);
      // Part 3 alone came before its turn.
      expect(reads.bytes).toBe(SIZE);
      const { sha256 } = await parts.complete(key, id, await numbered(key, id));
      expect(sha256).toBe(sha(Buffer.concat(want)));
      expect(reads.bytes).toBe(SIZE);
    } finally {
      reads.stop();
    }
  });

  it('wrong bytes hashed as they landed give their own SHA-256 at complete, not the one meant', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(SIZE)];
    const wrong = Buffer.from(want[1]!);
    wrong[10] = wrong[10]! ^ 0xff;
    await put(id, 1, want[0]!);
    await put(id, 2, wrong);
    const { sha256 } = await parts.complete(key, id, await numbered(key, id));
    expect(sha256).toBe(sha(Buffer.concat([want[0]!, wrong])));
    expect(sha256).not.toBe(sha(Buffer.concat(want)));
  });

  it('a restart between the parts and complete reads the whole data file', async () => {
    const { key, id } = await open_();
    const want = [randomBytes(SIZE), randomBytes(44)];
    await put(id, 1, want[0]!);
    await put(id, 2, want[1]!);
    const restarted = createDiskParts(dataDir, Buffer.alloc(32, 1), () => 'http://127.0.0.1:1', stagingPath);
    const reads = await countReads();
    try {
      expect((await restarted.complete(key, id, await numbered(key, id))).sha256).toBe(sha(Buffer.concat(want)));
      expect(reads.bytes).toBe(SIZE + 44);
    } finally {
      reads.stop();
    }
  });

  it('a data file larger than the read buffers is read back in turns (one read ahead) to its exact SHA-256', async () => {
    const { key, id } = await open_();
    // One part of 9 MiB and a bit: three turns of the 4 MiB buffers, the last a short one.
    const whole = randomBytes(9 * 1024 * 1024 + 7);
    await put(id, 1, whole);
    const restarted = createDiskParts(dataDir, Buffer.alloc(32, 1), () => 'http://127.0.0.1:1', stagingPath);
    const reads = await countReads();
    try {
      expect((await restarted.complete(key, id, await numbered(key, id))).sha256).toBe(sha(whole));
      expect(reads.bytes).toBe(whole.length);
    } finally {
      reads.stop();
    }
  });

  it('an abort while the part next in order lands (hashed as it lands) closes it and leaves nothing', async () => {
    const { key, id } = await open_();
    const one = slowPart(id, 1, SIZE);
    one.body.write(randomBytes(100));
    await spin();
    await parts.abort(key, id);
    one.body.end(randomBytes(SIZE - 100));
    expect(await one.result).toBe('closed');
    expect(await readdir(join(dataDir, 'parts'))).toEqual([]);
  });
});

describe("the rolling hash's read buffers", () => {
  // Identity checks as booleans: vitest would compare and print 4 MiB buffers otherwise.
  it('lends a buffer given back again, distinct ones at once, and takes one back from a use that failed', async () => {
    const buffers = readBuffers();
    const first = await buffers.lend(async (b) => b);
    expect((await buffers.lend(async (b) => b)) === first).toBe(true);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const a = buffers.lend(async (b) => (await held, b));
    const b = buffers.lend(async (b) => (await held, b));
    release();
    const [x, y] = await Promise.all([a, b]);
    expect(x === y).toBe(false);
    expect(x === first || y === first).toBe(true);
    let failed: Buffer | undefined;
    await expect(
      buffers.lend(async (b) => {
        failed = b;
        throw new Error('the read failed');
      }),
    ).rejects.toThrow('the read failed');
    expect((await buffers.lend(async (b) => b)) === failed).toBe(true);
  });
});
