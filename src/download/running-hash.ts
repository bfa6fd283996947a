// The SHA-256 of a file as it is written, computed on the main thread or on a thread of its own.
//
// Hashing costs ~1 s of CPU per GiB on this project's 2-core machines, as much as the rest of a
// download (bench/notes.md, issue 41). On the main thread it is done between socket reads, so
// the transfer waits for it; a worker thread does it beside the transfer. That worker is not fed
// the bytes (a copy per chunk, or buffers handed over): it reads them back from the part file,
// through the same file descriptor, right after they were written, while they are still in the
// page cache. So the main thread only says how far the file is written, the worker holds one
// reused slice of memory, and the hash can fall behind without holding anything in this process.
// It is told every 16 MiB: a message per 4 MiB cost the main thread 0.1–0.3 s per GiB in
// wake-ups. Small files are hashed in-thread: a worker costs ~30 ms and 15–19 MB to start.
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { HashError } from './errors.js';

export { HashError };

/** The SHA-256 of the bytes of a file (or stream) from byte 0, kept up as more are written. */
export interface RunningHash {
  /** `chunk` was just written; it ends at byte `end` of the file. */
  add(chunk: Buffer, end: number): void;
  /** The first `end` bytes of `handle`, written before this run (a part file resumed). */
  addExisting(handle: FileHandle, end: number): Promise<void>;
  /** Forget everything: the file starts over from byte 0. Resolves once nothing reads it any more. */
  reset(): Promise<void>;
  /** The hex digest of everything added. Rejects with HashError if it could not be computed. */
  digest(): Promise<string>;
  /** Stops the worker, if any; the file descriptor must stay open until this resolves. */
  close(): Promise<void>;
}

const SLICE = 1 << 20;

/** Hashing on the calling thread: each chunk as it is written, a resumed part file read once. */
export function inThreadHash(): RunningHash {
  let hash: Hash = createHash('sha256');
  return {
    add: (chunk) => void hash.update(chunk),
    addExisting: async (handle, end) => {
      const buffer = Buffer.allocUnsafe(SLICE);
      for (let at = 0; at < end;) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - at), at);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        at += bytesRead;
      }
    },
    reset: async () => {
      hash = createHash('sha256');
    },
    digest: async () => hash.digest('hex'),
    close: async () => {},
  };
}

// The worker, as CommonJS source (eval): no file of its own to find beside the bundle. Messages
// are handled one at a time, in order: `{ to }` hashes the file up to byte `to`; with an `id`
// it answers (with `sha256` when `digest` is set); `{ reset, id }` starts over. A failure
// answers `{ error, code }` and ends the worker.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(workerData.slice);
let hash = createHash('sha256');
let at = 0;
parentPort.on('message', (m) => {
  try {
    if (m.reset) { hash = createHash('sha256'); at = 0; }
    while (at < m.to) {
      const n = readSync(workerData.fd, buffer, 0, Math.min(buffer.length, m.to - at), at);
      if (n === 0) throw Object.assign(new Error('the file ends at byte ' + at + ', before byte ' + m.to), { code: 'ESHORT' });
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
      at += n;
    }
    if (m.id !== undefined) parentPort.postMessage({ id: m.id, sha256: m.digest ? hash.digest('hex') : undefined });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err), code: err && err.code });
    process.exit(1);
  }
});
`;

/** Tell the worker how far the file is written once this many bytes more are there. */
const POST_EVERY = 16 << 20;

interface Answer {
  id?: number;
  sha256?: string;
  error?: string;
  code?: string;
}

/** Workers running now: at most MAX_THREADS, so an export of many large files holds one. */
let running = 0;
const MAX_THREADS = 1;

/**
 * threadHash(fd), unless a worker is hashing another file already (an export's transfers run
 * side by side): then undefined, and that file is hashed in-thread. Each worker costs 15–19 MB,
 * and on a 2-core machine a second one would have no core of its own.
 */
export function tryThreadHash(fd: number): RunningHash | undefined {
  if (running >= MAX_THREADS) return undefined;
  running++;
  const hash = threadHash(fd);
  let released = false;
  return {
    ...hash,
    close: async () => {
      if (!released) running--;
      released = true;
      await hash.close();
    },
  };
}

/**
 * Hashing on a worker thread that reads the file behind `fd` (kept open by the caller until
 * close() resolves). Writes are never held up by it; digest() waits for it to catch up.
 */
export function threadHash(fd: number, source = WORKER_SOURCE): RunningHash {
  // `source`: a test's stand-in, to see a worker that dies.
  const worker = new Worker(source, { eval: true, workerData: { fd, slice: SLICE } });
  const waiting = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: HashError | undefined;
  let closing = false;
  let written = 0;
  let posted = 0;

  const fail = (err: HashError) => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  worker.on('message', (a: Answer) => {
    if (a.error !== undefined) return fail(new HashError(a.error, a.code));
    const w = a.id === undefined ? undefined : waiting.get(a.id);
    if (!w) return;
    waiting.delete(a.id!);
    w.resolve(a);
  });
  worker.on('error', (err) => fail(new HashError(err.message, (err as { code?: string }).code)));
  worker.on('exit', (code) => {
    if (!closing) fail(new HashError(`its thread exited (code ${code})`));
  });

  const ask = (m: { to: number; reset?: true; digest?: true }): Promise<Answer> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<Answer>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...m, id });
    });
  };
  const tell = (to: number) => {
    written = to;
    if (failure || to - posted < POST_EVERY) return;
    posted = to;
    worker.postMessage({ to });
  };

  return {
    add: (_chunk, end) => tell(end),
    addExisting: async (_handle, end) => tell(end),
    reset: async () => {
      written = posted = 0;
      await ask({ to: 0, reset: true });
    },
    digest: async () => {
      posted = written;
      const { sha256 } = await ask({ to: written, digest: true });
      if (sha256 === undefined) throw new HashError('no digest came back');
      return sha256;
    },
    close: async () => {
      closing = true;
      await worker.terminate();
    },
  };
}
