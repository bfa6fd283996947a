// Storage on local disk, under the data dir: final objects in `objects/<aa>/<sha256 of key>`
// (a key never becomes a path, so nothing a client sends can name a file outside the data dir),
// staging objects in `staging/<fileId>`, bodies being received in `tmp/*.part`. URLs point at
// this server's /storage routes and are signed with the data dir's HMAC secret.
//
// A received body is fsynced in `tmp`, then renamed into staging; a promote is a rename from
// staging to the final path. Both renames, and deletions, take a per-key lock, so "is the upload
// still open? then rename" and "is this still the checked version? then promote" each happen as
// one step with respect to the others in this process.
import { createHash, randomUUID } from 'node:crypto';
import { type BigIntStats, createWriteStream } from 'node:fs';
import { access, constants, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { makeDir, makeDirSync } from '../../fs/make-dir.js';
import { keyLocks } from '../key-lock.js';
import { signedUrl } from '../signing.js';
import { type SendOutcome, type SendTarget, sendFile } from './send-file.js';
import {
  type CheckedVersion,
  ObjectStateError,
  type Storage,
  fileIdOfStagingKey,
  sameEtag,
  STAGING_PREFIX,
} from './interface.js';

export interface DiskStorageOptions {
  dataDir: string;
  /** HMAC key of the URLs. */
  secret: Buffer;
  /** The server's public base URL (known once it listens): URLs never come from a Host header. */
  publicUrl: () => string;
  /** Test only: every received body fails with this errno code (e.g. ENOSPC) after its first chunk. */
  writeError?: string;
}

/** What this server does itself because it is the object store: receive PUTs, serve GETs. */
export interface DiskStorage extends Storage {
  /**
   * Streams a PUT body into the staging object `key`. Exactly `expectedBytes` must arrive
   * (LengthMismatchError otherwise) and, when `expectedSha256` is given, their SHA-256 must be
   * that one (DigestMismatchError otherwise): the body is hashed as it passes, and the digest is
   * kept for `hashedOnArrival`. Once the body is on disk, `stillOpen` decides, under the key's
   * lock, whether it becomes the staging object ('stored') or is thrown away ('closed').
   */
  receive(
    key: string,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
    expectedSha256?: string | null,
  ): Promise<'stored' | 'closed'>;
  /** An object opened for reading: its facts and bytes come from the same open file. Null when missing. */
  openRead(key: string): Promise<OpenObject | null>;
  /** Removes `.part` files of no body being received that were last touched before `before`. */
  sweepTemp(before: Date): Promise<number>;
  /** The file of an object (tests look at disk directly). */
  pathOf(key: string): string;
}

/** One open file: read one range of it with stream(), or close() it unread (a HEAD, a 304, a 416). */
export interface OpenObject {
  size: number;
  /** The same version string as head(): inode, size and modification time. */
  etag: string;
  lastModified: Date;
  /**
   * Writes bytes start..end inclusive into `out` (send-file.ts), calling `head` just before the
   * first of them, then closes the file. Throws when a read fails: with `out` destroyed once the
   * head is written (or when no `head` is given: the caller wrote it), untouched before it.
   */
  send(out: SendTarget, start: number, end: number, head?: () => void): Promise<SendOutcome>;
  /** Closes the file when nothing is sent. */
  close(): Promise<void>;
}

export class LengthMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`the body had ${received} bytes, the signed length is ${expected}`);
    this.name = 'LengthMismatchError';
  }
}

/** inode, size and mtime: a rename of a new file over the old one always changes it. */
function etagOf(info: BigIntStats): string {
  return `${info.ino.toString(36)}-${info.size.toString(36)}-${info.mtimeNs.toString(36)}`;
}

/** The body's SHA-256 is not the one declared at presign: its bytes changed on the way (S3's BadDigest). */
export class DigestMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly received: string,
  ) {
    super(`the body's SHA-256 is ${received}, not the ${expected} declared at presign`);
    this.name = 'DigestMismatchError';
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Pipes `body` into `sink` until the sink has closed (fsynced). Unlike stream.pipeline, a sink
 * error (a full disk) leaves the request alive, so the route can still answer it.
 */
function pump(body: Readable, sink: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      body.unpipe(sink);
      sink.destroy();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    body.once('error', fail);
    body.once('close', () => {
      if (!body.readableEnded) fail(new Error('the body ended before its Content-Length (connection lost)'));
    });
    sink.once('error', fail);
    sink.once('close', () => {
      if (!failed) resolve();
    });
    // The connection may have been lost while the upload was looked up (an await on the
    // database): its 'close' came and went, so it would never be heard here.
    if (body.destroyed && !body.readableEnded) {
      fail(new Error('the body ended before its Content-Length (connection lost)'));
      return;
    }
    // Straight pipe: no per-chunk work of ours, so a big PUT runs at disk/loopback speed.
    body.pipe(sink);
  });
}

/** A Writable that fails with `code` on its first chunk: the injected full disk. */
function failingSink(code: string): Writable {
  return new Writable({
    write(_chunk, _enc, cb) {
      cb(Object.assign(new Error(`${code}: fault injected, the disk refuses writes`), { code }));
    },
  });
}

export function createDiskStorage(o: DiskStorageOptions): DiskStorage {
  const objects = join(o.dataDir, 'objects');
  const staging = join(o.dataDir, 'staging');
  const tmp = join(o.dataDir, 'tmp');
  for (const dir of [objects, staging, tmp]) makeDirSync(dir);
  const receiving = new Set<string>();
  const withLock = keyLocks();
  // The SHA-256 of each staging object received in this process, by key, for the version (etag)
  // it was computed of: complete verifies with it instead of reading the file back. A restart
  // forgets them all (complete then reads), a new PUT replaces an entry, a promote or a delete
  // drops it.
  const arrived = new Map<string, { etag: string; sha256: string }>();

  function pathOf(key: string): string {
    if (key.startsWith(STAGING_PREFIX)) {
      const fileId = fileIdOfStagingKey(key);
      if (!fileId) throw new Error(`not a staging key: ${key}`);
      return join(staging, fileId);
    }
    const hash = createHash('sha256').update(key).digest('hex');
    return join(objects, hash.slice(0, 2), hash);
  }

  async function headOf(path: string) {
    const info = await stat(path, { bigint: true }).catch((err: unknown) => {
      if (errnoOf(err) === 'ENOENT') return null;
      throw err;
    });
    if (!info) return null;
    return {
      size: Number(info.size),
      contentType: null,
      etag: etagOf(info),
      lastModified: new Date(Number(info.mtimeMs)),
    };
  }

  async function readRange(key: string, offset: number, length: number, etag?: string): Promise<Buffer> {
    const handle = await open(pathOf(key), 'r').catch((err: unknown) => {
      throw errnoOf(err) === 'ENOENT' ? new ObjectStateError('missing', key) : err;
    });
    try {
      if (etag !== undefined) {
        if (!sameEtag(etagOf(await handle.stat({ bigint: true })), etag)) throw new ObjectStateError('changed', key);
      }
      const buf = Buffer.alloc(Math.max(0, length));
      let filled = 0;
      while (filled < buf.length) {
        const { bytesRead } = await handle.read(buf, filled, buf.length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buf.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  // A rename under the staging key's lock moves exactly the version it names: no proof needed.
  async function promote(stagingKey: string, finalKey: string, checked?: CheckedVersion): Promise<void> {
    const etag = checked?.etag;
    if (!stagingKey.startsWith(STAGING_PREFIX) || finalKey.startsWith(STAGING_PREFIX))
      throw new Error(`promote goes from a staging key to a final key, not ${stagingKey} → ${finalKey}`);
    const from = pathOf(stagingKey);
    const to = pathOf(finalKey);
    await withLock(stagingKey, async () => {
      const head = await headOf(from);
      if (!head) throw new ObjectStateError('missing', stagingKey);
      if (etag !== undefined && !sameEtag(head.etag, etag)) throw new ObjectStateError('changed', stagingKey);
      await makeDir(dirname(to));
      await rename(from, to);
      // Promoted once checked: its digest has served (kept, it would be held for as long as the
      // server runs, one per stored file).
      arrived.delete(stagingKey);
    });
  }

  async function remove(key: string): Promise<void> {
    await withLock(key, async () => {
      arrived.delete(key);
      try {
        await unlink(pathOf(key));
      } catch (err) {
        if (errnoOf(err) !== 'ENOENT') throw err;
      }
    });
  }

  // Written beside, then renamed: a reader sees the old object or the new one, never half of one.
  async function putObject(key: string, body: Buffer): Promise<void> {
    if (key.startsWith(STAGING_PREFIX)) throw new Error(`putObject writes final keys, not ${key}`);
    const target = pathOf(key);
    const temp = join(tmp, `${randomUUID()}.part`);
    try {
      await writeFile(temp, body, { mode: 0o600, flag: 'wx', flush: true });
      await makeDir(dirname(target));
      await withLock(key, () => rename(temp, target));
    } finally {
      await rm(temp, { force: true });
    }
  }

  async function receive(
    key: string,
    body: Readable,
    expectedBytes: number,
    stillOpen: () => Promise<boolean>,
    expectedSha256?: string | null,
  ): Promise<'stored' | 'closed'> {
    const target = pathOf(key);
    const name = `${randomUUID()}.part`;
    const temp = join(tmp, name);
    receiving.add(name);
    // `flush` fsyncs before the file is closed: once renamed, the bytes survive a crash.
    const out = createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true, highWaterMark: 1024 * 1024 });
    try {
      const sink = o.writeError ? failingSink(o.writeError) : out;
      if (o.writeError) out.destroy();
      const pumped = pump(body, sink);
      // Hashed beside the pipe (after it is attached, so no chunk is missed): one pass over the
      // bytes, whether a checksum was declared or not, so complete need not read them again.
      const hash = createHash('sha256');
      body.on('data', (chunk: Buffer) => hash.update(chunk));
      await pumped;
      if (out.bytesWritten !== expectedBytes) throw new LengthMismatchError(expectedBytes, out.bytesWritten);
      const received = hash.digest('hex');
      if (expectedSha256 && received !== expectedSha256) throw new DigestMismatchError(expectedSha256, received);
      return await withLock(key, async () => {
        if (!(await stillOpen())) return 'closed';
        await rename(temp, target);
        const landed = await headOf(target);
        if (landed) arrived.set(key, { etag: landed.etag, sha256: received });
        else arrived.delete(key);
        return 'stored';
      });
    } finally {
      // The stream opens its file asynchronously, and a body that fails early (or the injected
      // fault) destroys it while it is still opening: the file appears only then. Waiting for
      // the close first means the rm below always finds it, and no `.part` is left behind.
      if (!out.closed) {
        // Not events.once: it rejects on an 'error' (a failed open), and this only waits.
        const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
        out.destroy();
        await closed;
      }
      // Whatever did not become the staging object goes (a no-op after the rename).
      await rm(temp, { force: true });
      receiving.delete(name);
    }
  }

  async function openRead(key: string): Promise<OpenObject | null> {
    const handle = await open(pathOf(key), 'r').catch((err: unknown) => {
      if (errnoOf(err) === 'ENOENT') return null;
      throw err;
    });
    if (!handle) return null;
    try {
      const info = await handle.stat({ bigint: true });
      let taken = false;
      return {
        size: Number(info.size),
        etag: etagOf(info),
        lastModified: new Date(Number(info.mtimeMs)),
        async send(out, start, end, head) {
          taken = true;
          try {
            return await sendFile(handle, out, start, end, head ? { head } : {});
          } finally {
            await handle.close();
          }
        },
        async close() {
          if (!taken) await handle.close();
        },
      };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async function listStaging(): Promise<string[]> {
    const names = await readdir(staging);
    return names.map((name) => `${STAGING_PREFIX}${name}`).filter((key) => fileIdOfStagingKey(key) !== null);
  }

  async function sweepTemp(before: Date): Promise<number> {
    let removed = 0;
    for (const name of await readdir(tmp)) {
      if (receiving.has(name)) continue;
      const file = join(tmp, name);
      const info = await stat(file).catch(() => null);
      if (!info || info.mtimeMs >= before.getTime()) continue;
      await rm(file, { force: true, recursive: true });
      removed++;
    }
    return removed;
  }

  return {
    hashedOnArrival(key, etag) {
      const hashed = arrived.get(key);
      return hashed?.etag === etag ? hashed.sha256 : undefined;
    },
    async presignPut(put) {
      const expires = Math.floor(put.expiresAt.getTime() / 1000);
      const url = signedUrl(o.publicUrl(), o.secret, {
        method: 'PUT',
        key: put.key,
        expires,
        contentType: put.contentType,
        contentLength: put.contentLength,
      });
      return { url, headers: { 'Content-Type': put.contentType, 'Content-Length': String(put.contentLength) } };
    },
    async presignGet(get) {
      const expires = Math.floor(get.expiresAt.getTime() / 1000);
      return signedUrl(o.publicUrl(), o.secret, { method: 'GET', key: get.key, expires });
    },
    head: (key) => headOf(pathOf(key)),
    readRange,
    promote,
    delete: remove,
    putObject,
    listStaging,
    async check() {
      for (const dir of [objects, staging, tmp]) await access(dir, constants.W_OK);
    },
    receive,
    openRead,
    sweepTemp,
    pathOf,
  };
}
