// A multipart upload's slices read synchronously while the disk is quick, through the thread pool
// once it proves slow (src/upload/send/paced-read.ts): the bytes exact either way, a synchronous
// read's bytes in the buffer before its promise is awaited, the switch after slow reads in a row,
// and a failed read a rejected promise, as a read through the pool fails.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SLOW_IN_A_ROW } from '../../src/fs/slow-pace.js';
import { pacedRead } from '../../src/upload/send/paced-read.js';
import { fileSlices } from '../../src/upload/send/put.js';

const SLICE = 64 * 1024;
const bytes = randomBytes(10 * SLICE + 123);
let dir: string;
let path: string;
let handle: FileHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-paced-read-'));
  path = join(dir, 'file.bin');
  await writeFile(path, bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await handle?.close().catch(() => {});
});

describe('pacedRead', () => {
  it('a quick disk: each read done before its promise is awaited, none through the thread pool', async () => {
    handle = await open(path, 'r');
    const throughPool = vi.spyOn(handle, 'read');
    const read = pacedRead();
    for (let at = 0; at < bytes.length; at += SLICE) {
      const buf = Buffer.alloc(SLICE);
      const length = Math.min(SLICE, bytes.length - at);
      const done = read(handle, buf, length, at);
      // A read through the pool cannot have resolved yet: its answer needs a turn of the event loop.
      expect(buf.subarray(0, length).equals(bytes.subarray(at, at + length))).toBe(true);
      expect(await done).toBe(length);
    }
    expect(read.synchronous).toBe(true);
    expect(throughPool).not.toHaveBeenCalled();
    expect(await read(handle, Buffer.alloc(SLICE), SLICE, bytes.length)).toBe(0); // the end of the file
  });

  it(`a slow disk (${SLOW_IN_A_ROW} slow reads in a row): the rest of the file through the thread pool, the bytes exact`, async () => {
    handle = await open(path, 'r');
    const throughPool = vi.spyOn(handle, 'read');
    const read = pacedRead(-1); // every read is slow
    const got: Buffer[] = [];
    for await (const slice of fileSlices(handle, { path, size: bytes.length, mtimeMs: 0 }, undefined, SLICE, [], read))
      got.push(Buffer.from(slice));
    expect(Buffer.concat(got).equals(bytes)).toBe(true);
    expect(read.synchronous).toBe(false);
    // 11 slices: the first SLOW_IN_A_ROW synchronous, the others through the pool.
    expect(throughPool).toHaveBeenCalledTimes(got.length - SLOW_IN_A_ROW);
  });

  it('a read that fails: a rejected promise, not a throw (as a read through the pool fails)', async () => {
    handle = await open(dir, 'r'); // a folder opens for reading, and every read of it fails (EISDIR)
    let pending: Promise<number> | undefined;
    expect(() => (pending = pacedRead()(handle, Buffer.alloc(SLICE), SLICE, 0))).not.toThrow();
    await expect(pending).rejects.toThrow(/EISDIR/);
  });
});
