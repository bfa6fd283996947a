// One file out of the library: a streamed GET of its signed URL, written to a part file beside
// its destination (or to stdout), hashed (SHA-256) as it is written, checked against the size and
// — when the library knows it — the SHA-256, and only then renamed into place.
//
// - A transfer that breaks resumes where the bytes on disk end, with `Range: bytes=N-`; a store
//   that answers 200 instead of 206 sends the whole file again, which is written from byte 0.
//   A part file left by an interrupted run is resumed the same way (its name says which file of
//   which item it holds: names.ts partName).
// - Counting and hashing happen after each write is done, so `have` and the hash always describe
//   exactly the bytes on disk: a resume needs no re-reading, except of a part file from an
//   earlier run.
// - Retries as the API client's: network errors, timeouts, 5xx and 429, with backoff. An expired
//   URL is fetched afresh (refreshUrl) and tried again. A size or checksum mismatch is final:
//   the part file is removed.
// - The signed URL is never printed or written anywhere: messages name it without its query.
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import type { Transport } from '../api/undici.js';
import { classifyForRetry, errorFromResponse, errorFromThrown } from '../api/errors.js';
import { type RetryPolicy, withRetry } from '../api/retry.js';
import { request } from '../api/undici.js';
import { isExpired, redactUrl } from '../api/storage-url.js';
import { MismatchError } from './errors.js';

/** A file as the library describes it. */
export interface RemoteFile {
  /** Signed GET URL: kept in memory only. */
  url: string;
  /** Bytes, when the library says. */
  size?: number;
  /** Hex SHA-256, when the library knows it. */
  sha256?: string;
}

export interface FetchDeps {
  dispatcher: Transport;
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => Date;
  signal: AbortSignal;
  random?: () => number;
  /** A fresh signed URL for the same file, after the store said the old one expired. */
  refreshUrl?: () => Promise<string>;
  /** Monotonic milliseconds, for throttling progress. */
  clock?: () => number;
  progressIntervalMs?: number;
  /** No header or no body byte for this long: the try has stalled. */
  stallMs?: number;
  /** Told when bytes start to arrive, with where this try starts (0, or the bytes resumed). */
  onStart?: (from: number, size: number | undefined) => void;
  /** Bytes on disk so far (at most one call per progressIntervalMs, and the last). */
  onProgress?: (have: number) => void;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown; from: number }) => void;
  /**
   * Compute the SHA-256 even when the library gives none to check against (export records it).
   * Default true. Hashing is on the main thread: ~1.5 s of CPU per GiB on a shared 2-core
   * machine, which a plain download skips when there is nothing to check.
   */
  hash?: boolean;
}

export interface Fetched {
  bytes: number;
  /** Computed when the library gave one to check against, or when FetchDeps.hash asks for it. */
  sha256?: string;
  /** Bytes that were already there (an earlier try or run) and were not fetched again. */
  resumedFrom: number;
  ms: number;
}

const STALL_MS = 120_000;

/** Where the bytes go: a part file (resumable) or a stream such as stdout (resumable within the run). */
interface Sink {
  /** Bytes written (and hashed) so far. */
  have: number;
  /** Undefined when no checksum is wanted (FetchDeps.hash). */
  hash: Hash | undefined;
  /**
   * A fresh writable for one try; counts and hashes each chunk once it is written. `idle`
   * resolves when no write is in flight: a try that failed waits for it, so the next one asks
   * for the range after the last byte really written.
   */
  writable(onWritten: (chunk: Buffer) => void): { stream: Writable; idle: () => Promise<void> };
  /** Start over from byte 0 (the store ignored the Range). */
  reset(): Promise<void>;
}

/** Fetches `file` into `dest` through the part file `part`; resolves once it is checked and renamed. */
export async function fetchToFile(file: RemoteFile, dest: string, part: string, deps: FetchDeps): Promise<Fetched> {
  // 'a+' that never follows a symbolic link: a link planted at the part's name would have the
  // bytes appended wherever it leads (ELOOP instead).
  const handle = await open(part, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW);
  let result: Fetched;
  try {
    result = await fetchInto(file, await fileSink(handle, file.size, wantsHash(file, deps)), deps, dest);
  } catch (err) {
    await handle.close().catch(() => {});
    // Bytes that are not the file are worth nothing; anything else leaves the part file for a
    // later try or run to resume.
    if (err instanceof MismatchError) await unlink(part).catch(() => {});
    throw err;
  }
  await handle.close();
  await rename(part, dest);
  return result;
}

/** Fetches `file` into a stream (stdout): no part file, but a break still resumes with Range. */
export async function fetchToStream(file: RemoteFile, out: Writable, deps: FetchDeps, label: string): Promise<Fetched> {
  const sink: Sink = {
    have: 0,
    hash: wantsHash(file, deps) ? createHash('sha256') : undefined,
    writable: (onWritten) => {
      let inFlight = Promise.resolve();
      const stream = new Writable({
        highWaterMark: 1 << 20,
        write(chunk: Buffer, _enc, cb) {
          inFlight = new Promise((resolve) =>
            out.write(chunk, (err) => {
              if (!err) onWritten(chunk);
              resolve();
              cb(err ?? null);
            }),
          );
        },
      });
      return { stream, idle: () => inFlight };
    },
    reset: async () => {
      // What went out cannot be taken back: a store that ignores Range cannot resume a stream.
      throw new Error(
        `${label}: the store does not resume transfers (it ignored Range), and the bytes already written to stdout cannot be taken back; run the command again`,
      );
    },
  };
  return fetchInto(file, sink, deps, label);
}

function wantsHash(file: RemoteFile, deps: FetchDeps): boolean {
  return deps.hash !== false || Boolean(file.sha256);
}

async function fileSink(handle: FileHandle, expected: number | undefined, hashing: boolean): Promise<Sink> {
  const hash = hashing ? createHash('sha256') : undefined;
  let { size: have } = await handle.stat();
  // A part file longer than the file cannot be the start of it.
  if (expected !== undefined && have > expected) {
    await handle.truncate(0);
    have = 0;
  }
  if (have > 0 && hash) await hashExisting(handle, have, hash);
  const sink: Sink = {
    have,
    hash,
    writable: (onWritten) => handleWritable(handle, onWritten),
    reset: async () => {
      await handle.truncate(0);
      sink.have = 0;
      sink.hash = hashing ? createHash('sha256') : undefined;
    },
  };
  return sink;
}

/** Reads the first `length` bytes of a part file from an earlier run into the hash. */
async function hashExisting(handle: FileHandle, length: number, hash: Hash): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (let at = 0; at < length;) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - at), at);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
}

/** A writable over a file handle opened for appending; each chunk is reported once it is on disk. */
function handleWritable(
  handle: FileHandle,
  onWritten: (chunk: Buffer) => void,
): { stream: Writable; idle: () => Promise<void> } {
  let inFlight: Promise<void> = Promise.resolve();
  const writeAll = (buffers: Buffer[]): Promise<void> => {
    inFlight = (async () => {
      const total = buffers.reduce((n, b) => n + b.length, 0);
      const { bytesWritten } = await handle.writev(buffers);
      // A short write (rare on files): the rest, in one more call.
      if (bytesWritten < total) await handle.write(Buffer.concat(buffers).subarray(bytesWritten));
      for (const b of buffers) onWritten(b);
    })();
    return inFlight;
  };
  const stream = new Writable({
    highWaterMark: 1 << 20,
    writev(chunks, cb) {
      writeAll(chunks.map((c) => c.chunk as Buffer)).then(() => cb(), cb);
    },
    write(chunk: Buffer, _enc, cb) {
      writeAll([chunk]).then(() => cb(), cb);
    },
  });
  return { stream, idle: () => inFlight.catch(() => {}) };
}

async function fetchInto(file: RemoteFile, sink: Sink, deps: FetchDeps, label: string): Promise<Fetched> {
  const clock = deps.clock ?? (() => performance.now());
  const started = clock();
  const resumedFrom = sink.have;
  let url = file.url;
  let refresh = false;
  let lastProgress = -Infinity;
  const progress = (force = false) => {
    const t = clock();
    if (force || t - lastProgress >= (deps.progressIntervalMs ?? 100)) {
      lastProgress = t;
      deps.onProgress?.(sink.have);
    }
  };
  const onWritten = (chunk: Buffer) => {
    sink.hash?.update(chunk);
    sink.have += chunk.length;
    progress();
  };
  await withRetry(
    async () => {
      if (refresh && deps.refreshUrl) url = await deps.refreshUrl();
      refresh = false;
      if (file.size !== undefined && sink.have === file.size) return; // all there: check it
      await tryOnce(url, file, sink, deps, onWritten);
    },
    {
      policy: deps.policy,
      sleep: deps.sleep,
      signal: deps.signal,
      random: deps.random,
      classify: (err) => {
        if (isExpired(err) && deps.refreshUrl) {
          refresh = true;
          return { retry: true, afterMs: 0 };
        }
        return classifyForRetry(err);
      },
      onRetry: (info) => deps.onRetry?.({ ...info, from: sink.have }),
    },
  );
  progress(true);
  const sha256 = sink.hash?.digest('hex');
  if (file.size !== undefined && sink.have !== file.size)
    throw mismatch(label, 'size', String(file.size), String(sink.have));
  if (file.sha256 && file.sha256.toLowerCase() !== sha256)
    throw mismatch(label, 'sha256', file.sha256.toLowerCase(), sha256 ?? '');
  return { bytes: sink.have, ...(sha256 ? { sha256 } : {}), resumedFrom, ms: Math.round(clock() - started) };
}

function mismatch(path: string, kind: 'size' | 'sha256', expected: string, actual: string): MismatchError {
  return new MismatchError({ kind, expected, actual, path });
}

/** One GET, from where the sink ends; resolves when the body has been written to the end. */
async function tryOnce(
  url: string,
  file: RemoteFile,
  sink: Sink,
  deps: FetchDeps,
  onWritten: (chunk: Buffer) => void,
): Promise<void> {
  const shown = redactUrl(url);
  const stallMs = deps.stallMs ?? STALL_MS;
  const from = sink.have;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: 'GET',
      dispatcher: deps.dispatcher,
      signal: deps.signal,
      headersTimeout: stallMs,
      bodyTimeout: stallMs,
      headers: from > 0 ? { range: `bytes=${from}-` } : {},
    });
  } catch (err) {
    throw errorFromThrown(err, { method: 'GET', url: shown, timeoutMs: stallMs, signal: deps.signal });
  }
  if (res.statusCode === 416 && from > 0) {
    // Nothing after byte `from`: the part file holds at least the whole object. Start over.
    await res.body.dump();
    await sink.reset();
    return tryOnce(url, file, sink, deps, onWritten);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const text = await res.body.text().catch(() => '');
    throw errorFromResponse(res.statusCode, res.headers, text, 'GET', shown, deps.now());
  }
  if (res.statusCode === 206) {
    const start = rangeStart(res.headers['content-range']);
    if (start !== from) {
      // Not the range asked for: take no chances, fetch it whole.
      await res.body.dump();
      await sink.reset();
      return tryOnce(url, file, sink, deps, onWritten);
    }
  } else if (from > 0) {
    await sink.reset(); // 200: the store ignored the Range and sends it all
  }
  deps.onStart?.(sink.have, file.size);
  const { stream, idle } = sink.writable(onWritten);
  try {
    await pipeline(res.body, stream);
  } catch (err) {
    await idle();
    throw errorFromThrown(err, { method: 'GET', url: shown, timeoutMs: stallMs, signal: deps.signal });
  }
}

/** The first byte of `Content-Range: bytes 100-199/200`, or undefined. */
export function rangeStart(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value ? /^bytes\s+(\d+)-\d+\/(?:\d+|\*)$/i.exec(value.trim()) : null;
  return m ? Number(m[1]) : undefined;
}

/** The size and SHA-256 of a file on disk, read once in large slices. */
export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const handle = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const { size } = await handle.stat();
    await hashExisting(handle, size, hash);
    return { size, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}

/** The size of a file on disk, or undefined when there is none. */
export async function sizeOnDisk(path: string): Promise<number | undefined> {
  return stat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
}
