// sendFile (src/server/storage/send-file.ts): a stored file's bytes into an answer through two
// reused buffers. What it must never do is read into a buffer the answer still holds: the
// targets here call back late and check, at that moment, that the bytes handed over are still
// the ones written. And a client that leaves, a write that never calls back, a file cut short
// or unreadable each end the send, the last two with the answer destroyed.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SendTarget, ShortFileError, sendFile } from '../../src/server/storage/send-file.js';

const MiB = 1024 * 1024;
let dir: string;
let bytes: Buffer;
let path: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-send-'));
  bytes = randomBytes(3.5 * MiB);
  path = join(dir, 'file');
  await writeFile(path, bytes);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Target extends SendTarget {
  received: Buffer[];
  /** Distinct memory the chunks came in. */
  buffers: Set<ArrayBufferLike>;
  ended: boolean;
  destroyedWith: Error | undefined;
  close(): void;
}

/**
 * An answer whose socket takes each chunk `lagMs` later, as a busy one does: the copy is made
 * when it calls back, and must equal what was handed over.
 */
function slowTarget(o: { lagMs?: number; neverCallBack?: boolean } = {}): Target {
  const onClose: (() => void)[] = [];
  const t: Target = {
    received: [],
    buffers: new Set(),
    ended: false,
    destroyedWith: undefined,
    destroyed: false,
    write(chunk, callback) {
      const atWrite = Buffer.from(chunk);
      t.buffers.add(chunk.buffer);
      if (o.neverCallBack) return false;
      setTimeout(() => {
        expect(chunk.equals(atWrite), 'a buffer was read into while the answer still held it').toBe(true);
        t.received.push(Buffer.from(chunk));
        callback();
      }, o.lagMs ?? 2);
      return false;
    },
    end() {
      t.ended = true;
    },
    destroy(err) {
      t.destroyedWith = err;
      t.close();
    },
    once(_event, listener) {
      onClose.push(listener);
    },
    close() {
      if (t.destroyed) return;
      (t as { destroyed: boolean }).destroyed = true;
      for (const l of onClose) l();
    },
  };
  return t;
}

interface Reading {
  /** What sendFile reads through: the handle's `read`, counted (and failed, when asked). */
  file: Pick<FileHandle, 'read'>;
  /** Each read's length, in order. */
  reads: number[];
}

/**
 * Runs `fn` with `o.path` (the test file) open, its reads counted, the `o.failAt`th of them
 * rejected with `o.error`; closes the file after, whatever `fn` did.
 */
async function reading(fn: (r: Reading) => Promise<void>, o: { path?: string; failAt?: number; error?: Error } = {}) {
  const handle = await open(o.path ?? path, 'r');
  const reads: number[] = [];
  const read = ((buffer: Buffer, offset: number, length: number, position: number) => {
    reads.push(length);
    return reads.length === o.failAt ? Promise.reject(o.error) : handle.read(buffer, offset, length, position);
  }) as FileHandle['read'];
  try {
    await fn({ file: { read }, reads });
  } finally {
    await handle.close();
  }
}

describe('sendFile', () => {
  it.each([
    { what: 'the whole file, in 1 MiB reads', start: 0, end: 3.5 * MiB - 1, reads: [1, 1, 1, 0.5] },
    { what: 'a range across buffers', start: 1000, end: 2.25 * MiB, reads: [1, 1, 0.25 + 1 / MiB - 1000 / MiB] },
    { what: 'one byte', start: 5, end: 5, reads: [1 / MiB] },
    { what: 'the last bytes', start: 3.5 * MiB - 10, end: 3.5 * MiB - 1, reads: [10 / MiB] },
    { what: 'nothing (an empty file)', start: 0, end: -1, reads: [] },
  ])('$what: the bytes asked for, no buffer read into before the answer let go of it', async (c) => {
    await reading(async ({ reads, file }) => {
      const out = slowTarget();
      const heads: number[] = [];
      const head = () => heads.push(out.buffers.size + (out.ended ? 1 : 0));
      expect(await sendFile(file, out, c.start, c.end, { head })).toBe('sent');
      // Once, before anything was written or the answer ended.
      expect(heads).toEqual([0]);
      expect(Buffer.concat(out.received).equals(bytes.subarray(c.start, c.end + 1))).toBe(true);
      expect(reads.map((n) => n / MiB)).toEqual(c.reads.map((r) => expect.closeTo(r, 9)));
      expect(out.ended).toBe(true);
      expect(out.buffers.size).toBeLessThanOrEqual(2);
    });
  });

  it('reuses two buffers however long the file: 3.5 MiB in 64 KiB reads through 2 of them', async () => {
    await reading(async ({ reads, file }) => {
      const out = slowTarget({ lagMs: 0 });
      expect(await sendFile(file, out, 0, bytes.length - 1, { readBytes: 64 * 1024 })).toBe('sent');
      expect(Buffer.concat(out.received).equals(bytes)).toBe(true);
      expect(reads).toHaveLength(56);
      expect(out.buffers.size).toBe(2);
    });
  });

  it('a client that leaves: no more reads, no end, nothing thrown', async () => {
    await reading(async ({ reads, file }) => {
      const out = slowTarget({ lagMs: 20 });
      setTimeout(() => out.close(), 5);
      expect(await sendFile(file, out, 0, bytes.length - 1)).toBe('gone');
      expect(reads.length).toBeLessThanOrEqual(2);
      expect(out.ended).toBe(false);
    });
  });

  it('a write that never calls back (its socket destroyed) ends with the close, not never', async () => {
    await reading(async ({ file }) => {
      const out = slowTarget({ neverCallBack: true });
      setTimeout(() => out.close(), 20);
      expect(await sendFile(file, out, 0, bytes.length - 1)).toBe('gone');
    });
  });

  it('a file shorter than the answer promised: the answer is destroyed, ShortFileError', async () => {
    const short = join(dir, 'short');
    await writeFile(short, bytes);
    await truncate(short, 1.5 * MiB);
    await reading(
      async ({ file }) => {
        const out = slowTarget();
        const err = await sendFile(file, out, 0, bytes.length - 1).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ShortFileError);
        expect((err as Error).message).toBe(`the stored file ends at byte ${1.5 * MiB}, before byte ${bytes.length}`);
        expect(out.destroyedWith).toBe(err);
        expect(out.ended).toBe(false);
      },
      { path: short },
    );
  });

  it('a read that fails after the head: the answer is destroyed with its error', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    await reading(
      async ({ file }) => {
        const out = slowTarget();
        let heads = 0;
        await expect(sendFile(file, out, 0, bytes.length - 1, { head: () => heads++ })).rejects.toBe(eio);
        expect(heads).toBe(1);
        expect(out.destroyedWith).toBe(eio);
      },
      { failAt: 2, error: eio },
    );
  });

  it('the first read fails without a head to write (the caller wrote it): the answer is destroyed with its error', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    await reading(
      async ({ file }) => {
        const out = slowTarget();
        await expect(sendFile(file, out, 0, bytes.length - 1)).rejects.toBe(eio);
        expect(out.destroyedWith).toBe(eio);
      },
      { failAt: 1, error: eio },
    );
  });

  it.each([
    { what: 'the first read fails', failAt: 1, file: undefined },
    { what: 'the file is empty, where the answer promised bytes', failAt: undefined, file: 'empty' },
  ])('$what: no head, nothing written, the answer untouched for the caller to answer', async (c) => {
    const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    const empty = join(dir, 'empty');
    await writeFile(empty, '');
    await reading(
      async ({ file }) => {
        const out = slowTarget();
        let heads = 0;
        const err = await sendFile(file, out, 0, bytes.length - 1, { head: () => heads++ }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(c.file ? ShortFileError : Error);
        if (!c.file) expect(err).toBe(eio);
        expect(heads).toBe(0);
        expect(out.buffers.size).toBe(0);
        expect(out.destroyed).toBe(false);
        expect(out.ended).toBe(false);
      },
      { ...(c.file ? { path: empty } : {}), ...(c.failAt ? { failAt: c.failAt, error: eio } : {}) },
    );
  });
});
