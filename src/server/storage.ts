// Objects on disk under `<dataDir>/objects`. A key never becomes a path: its SHA-256 does, so
// nothing a client sends can name a file outside the data dir. Writes go to a temp file under
// `<dataDir>/tmp`, are fsynced and renamed into place, so an object is either whole or absent.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makeDir, makeDirSync } from '../fs/make-dir.js';

export interface Storage {
  /** Streams `body` into the object `key`; resolves only when exactly `expectedBytes` arrived and are on disk. */
  write(key: string, body: Readable, expectedBytes: number): Promise<void>;
  read(key: string): Readable;
  /** The first `n` bytes of an object (for magic-byte checks). */
  head(key: string, n: number): Promise<Buffer>;
  size(key: string): Promise<number | null>;
  /** The object's file, for readers that need a path (duration). Never shown to clients. */
  pathOf(key: string): string;
  /** Removes an object; a missing one counts as removed. */
  remove(key: string): Promise<void>;
  /** Temp files that belong to no write in progress and were last touched before `olderThanMs`. */
  sweepTemp(olderThanMs: number): Promise<number>;
}

export class LengthMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`the body had ${received} bytes, the signed length is ${expected}`);
  }
}

export function createStorage(dataDir: string): Storage {
  const objects = join(dataDir, 'objects');
  const tmp = join(dataDir, 'tmp');
  makeDirSync(objects);
  makeDirSync(tmp);
  const active = new Set<string>();

  const pathOf = (key: string): string => {
    const hash = createHash('sha256').update(key).digest('hex');
    return join(objects, hash.slice(0, 2), hash);
  };

  async function write(key: string, body: Readable, expectedBytes: number): Promise<void> {
    const name = `${randomUUID()}.part`;
    const temp = join(tmp, name);
    active.add(name);
    try {
      // `flush` fsyncs before the file is closed: once renamed, the object survives a crash.
      const out = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 1024 * 1024 });
      // Straight pipe: no per-chunk work of ours, so a big PUT runs at disk/loopback speed.
      await pipeline(body, out);
      if (!out.closed) await once(out, 'close');
      if (out.bytesWritten !== expectedBytes) throw new LengthMismatchError(expectedBytes, out.bytesWritten);
      const final = pathOf(key);
      await makeDir(dirname(final));
      await rename(temp, final);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    } finally {
      active.delete(name);
    }
  }

  async function head(key: string, n: number): Promise<Buffer> {
    const fh = await open(pathOf(key), 'r');
    try {
      const buf = Buffer.alloc(n);
      const { bytesRead } = await fh.read(buf, 0, n, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  }

  async function size(key: string): Promise<number | null> {
    try {
      return (await stat(pathOf(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async function remove(key: string): Promise<void> {
    try {
      await unlink(pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  async function sweepTemp(olderThanMs: number): Promise<number> {
    let removed = 0;
    for (const name of await readdir(tmp)) {
      if (active.has(name)) continue;
      const file = join(tmp, name);
      const info = await stat(file).catch(() => null);
      if (!info || info.mtimeMs >= olderThanMs) continue;
      await rm(file, { force: true, recursive: true });
      removed++;
    }
    return removed;
  }

  return { write, read: (key) => createReadStream(pathOf(key)), head, size, pathOf, remove, sweepTemp };
}
