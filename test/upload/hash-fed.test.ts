// A file's SHA-256 fed from what its parts read (issue 41, src/upload/send/hash-fed.ts), driven
// as ./parts.ts drives it (planned, one `reading` per try, its slices, its end, then done) over a
// real file: the digest is the file's in every order, and the bytes the hash reads itself are
// counted. Waiting for the parts: none when they go one at a time in file order, only what they
// read ahead of the cursor or left unread otherwise. Reading ahead of them: all but what they fed
// before the reader got there.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByteRange } from '../../src/upload/send/file-reads.js';
import { type FedHash, fedHash } from '../../src/upload/send/hash-fed.js';
import { FileChangedError, type LocalFile } from '../../src/upload/send/put.js';

const MIB = 1024 * 1024;
/** Three parts of 8 MiB and a short fourth, read in 1 MiB slices as the parts read them. */
const PART = 8 * MIB;
const SLICE = MIB;
const bytes = randomBytes(3 * PART + 300_000);
const SIZE = bytes.length;
const SHA256 = createHash('sha256').update(bytes).digest('hex');
const PARTS: ByteRange[] = [0, 1, 2, 3].map((i) => ({ start: i * PART, end: Math.min(SIZE, (i + 1) * PART) }));

let dir: string;
let file: LocalFile;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-fed-'));
  const path = join(dir, 'video.mp4');
  await writeFile(path, bytes);
  const st = await stat(path);
  file = { path, size: st.size, mtimeMs: st.mtimeMs };
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Nothing waits for the SHA-256 before complete (--force): the hash waits for the parts. */
const PATIENT = { waitForParts: true };
/** The library is asked once the file is hashed: the hash reads ahead of the parts. */
const EAGER = { waitForParts: false };

/** Lets the hash's reader run (its reads go through libuv's pool and back). */
const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

/** One try of a part: its slices fed in order, the event loop turning between them; `upTo` stops it early (a failed try). */
async function feed(h: FedHash, range: ByteRange, o: { stored?: boolean; upTo?: number } = {}): Promise<void> {
  const reading = h.reads.reading(range);
  const until = o.upTo ?? range.end;
  for (let at = range.start; at < until; at += SLICE) {
    reading.slice(at, bytes.subarray(at, Math.min(until, at + SLICE)));
    await turn();
  }
  reading.end(o.stored ?? true);
}

describe('a hash fed from what the parts read, waiting for them', () => {
  it('one part at a time, in file order: the hash reads nothing itself, the file is read once', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    await turn();
    h.reads.planned(PARTS);
    for (const r of PARTS) {
      await turn(); // between two parts none is in flight: the next is awaited, not read
      await feed(h, r);
    }
    h.reads.done();
    expect(await digest).toBe(SHA256);
    expect(h.counts).toEqual({ fed: SIZE, read: 0 });
  });

  it('before the sender says what it will read, the hash reads nothing', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    await turn();
    await turn();
    expect(h.counts.read).toBe(0);
    h.reads.done();
    expect(await digest).toBe(SHA256);
    expect(h.counts).toEqual({ fed: 0, read: SIZE });
  });

  it('parts at once, the later ones ahead of the cursor: the hash reads what they sent before it got there', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    h.reads.planned(PARTS);
    const [first, ...later] = PARTS.map((r) => ({ r, reading: h.reads.reading(r) }));
    // Parts 2–4 read all their bytes while part 1 is still at its start.
    for (const { r, reading } of later) {
      for (let at = r.start; at < r.end; at += SLICE)
        reading.slice(at, bytes.subarray(at, Math.min(r.end, at + SLICE)));
      reading.end(true);
    }
    await turn();
    expect(h.counts.read).toBe(0); // part 1 holds the cursor and is in flight: awaited
    for (let at = 0; at < PART; at += SLICE) {
      first!.reading.slice(at, bytes.subarray(at, at + SLICE));
      await turn();
    }
    first!.reading.end(true);
    h.reads.done();
    expect(await digest).toBe(SHA256);
    expect(h.counts).toEqual({ fed: SIZE, read: SIZE - PART });
    expect(h.counts.fed + h.counts.read).toBeLessThanOrEqual(2 * SIZE);
  });

  it('a part retried after it failed half way: it reads its bytes again, and only those beyond the cursor are hashed', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    h.reads.planned(PARTS);
    await feed(h, PARTS[0]!);
    await feed(h, PARTS[1]!, { stored: false, upTo: PARTS[1]!.start + 5 * MIB });
    await turn(); // waiting to be retried, none in flight: awaited, not read
    expect(h.counts.read).toBe(0);
    await feed(h, PARTS[1]!);
    await feed(h, PARTS[2]!);
    await feed(h, PARTS[3]!);
    h.reads.done();
    expect(await digest).toBe(SHA256);
    expect(h.counts).toEqual({ fed: SIZE + 5 * MIB, read: 0 });
  });

  it('a part that failed while others are in flight: the hash reads its bytes itself', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    h.reads.planned(PARTS);
    const second = h.reads.reading(PARTS[1]!);
    await feed(h, PARTS[0]!, { stored: false, upTo: 2 * MIB });
    // Part 1 is not in flight, part 2 is (at its start): the hash reads part 1 from the cursor on,
    // up to where part 2 will feed, and part 2 then feeds the rest.
    while (h.counts.read < PART - 2 * MIB) await turn();
    for (let at = PARTS[1]!.start; at < PARTS[1]!.end; at += SLICE) {
      second.slice(at, bytes.subarray(at, at + SLICE));
      await turn();
    }
    second.end(true);
    // The sender gives up (part 1 failed for good): the hash reads what is left.
    h.reads.done();
    expect(await digest).toBe(SHA256);
    expect(h.counts).toEqual({ fed: 2 * MIB + PART, read: SIZE - 2 * MIB - PART });
  });

  it('a part stored by an earlier run (not planned): read by the hash while the others are fed', async () => {
    const h = fedHash(file, PATIENT);
    const digest = h.digest();
    h.reads.planned(PARTS.slice(1));
    await feed(h, PARTS[1]!);
    await feed(h, PARTS[2]!);
    await feed(h, PARTS[3]!);
    h.reads.done();
    expect(await digest).toBe(SHA256);
    // Part 1 read by the hash; parts 2–4 fed, or read by it before they got there.
    expect(h.counts.read).toBeGreaterThanOrEqual(PART);
    expect(h.counts.fed + h.counts.read).toBeLessThanOrEqual(2 * SIZE);
  });

  it('a file changed while it is hashed: refused, as when it is read on its own', async () => {
    const path = join(dir, 'changing.mp4');
    await writeFile(path, bytes);
    const st = await stat(path);
    const h = fedHash({ path, size: st.size, mtimeMs: st.mtimeMs }, PATIENT);
    const digest = h.digest();
    digest.catch(() => {}); // rejects as the last part is fed, before it is awaited below
    h.reads.planned(PARTS);
    for (const r of PARTS.slice(0, 3)) await feed(h, r);
    // Touched before the last part is read: the check once all is hashed sees it.
    await utimes(path, new Date(), new Date(st.mtimeMs + 5000));
    await feed(h, PARTS[3]!);
    h.reads.done();
    await expect(digest).rejects.toBeInstanceOf(FileChangedError);
  });

  it('stopped while it waits for a part: rejects with the reason', async () => {
    const h = fedHash(file, PATIENT);
    const stop = new AbortController();
    const digest = h.digest(stop.signal);
    h.reads.planned(PARTS);
    await turn();
    stop.abort(new Error('stopped'));
    await expect(digest).rejects.toThrow('stopped');
  });
});

describe('a hash that reads ahead of the parts (the library is asked once it is hashed)', () => {
  it('a part holding the cursor is not waited for: the whole file is hashed while it has sent one slice', async () => {
    const h = fedHash(file, EAGER);
    const digest = h.digest();
    h.reads.planned(PARTS);
    const reading = h.reads.reading(PARTS[0]!);
    reading.slice(0, bytes.subarray(0, SLICE));
    // Nothing more comes from the part until the hash is done: it read the rest at the disk's pace.
    expect(await digest).toBe(SHA256);
    expect(h.counts.fed).toBe(SLICE);
    expect(h.counts.read).toBeGreaterThanOrEqual(SIZE - SLICE);
    // Its later slices lie behind the cursor: nothing is hashed twice.
    reading.slice(SLICE, bytes.subarray(SLICE, 2 * SLICE));
    reading.end(false);
    h.reads.done();
  });

  it('before the sender says what it will read, the hash reads on', async () => {
    const h = fedHash(file, EAGER);
    expect(await h.digest()).toBe(SHA256);
    expect(h.counts).toEqual({ fed: 0, read: SIZE });
  });

  it('what the parts fed before the reader got there is not read again', async () => {
    const h = fedHash(file, EAGER);
    h.reads.planned(PARTS);
    // Part 1 reads all its bytes before the hash starts: they pass the cursor as they are read.
    const reading = h.reads.reading(PARTS[0]!);
    for (let at = 0; at < PART; at += SLICE) reading.slice(at, bytes.subarray(at, at + SLICE));
    reading.end(true);
    expect(await h.digest()).toBe(SHA256);
    expect(h.counts).toEqual({ fed: PART, read: SIZE - PART });
    h.reads.done();
  });

  it('a file changed while it is hashed: refused', async () => {
    const path = join(dir, 'changing-eager.mp4');
    await writeFile(path, bytes);
    const st = await stat(path);
    await utimes(path, new Date(), new Date(st.mtimeMs + 5000));
    const h = fedHash({ path, size: st.size, mtimeMs: st.mtimeMs }, EAGER);
    await expect(h.digest()).rejects.toBeInstanceOf(FileChangedError);
  });

  it('stopped: rejects with the reason', async () => {
    const h = fedHash(file, EAGER);
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(h.digest(stop.signal)).rejects.toThrow('stopped');
  });
});
