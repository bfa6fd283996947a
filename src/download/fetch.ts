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
//   earlier run. A large file is hashed on a worker thread that reads the part file back as it
//   is written (running-hash.ts), beside the transfer instead of between its socket reads.
// - Retries as the API client's: network errors, timeouts, 5xx and 429, with backoff. An expired
//   URL is fetched afresh (refreshUrl) and tried again. A size or checksum mismatch is final:
//   the part file is removed.
// - The signed URL is never printed or written anywhere: messages name it without its query.
import { constants, writeSync, writevSync } from 'node:fs';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { type HttpPool, type OpenAnswer, endedEarly } from '../api/http-transport.js';
import { classifyForRetry, errorFromResponse, errorFromThrown } from '../api/errors.js';
import { type RetryPolicy, withRetry } from '../api/retry.js';
import { isExpired, redactUrl } from '../api/storage-url.js';
import { MismatchError } from './errors.js';
import { DOWNLOAD_SCAVENGE_BYTES, scavenger } from '../heap/scavenge.js';
import { HashError, type RunningHash, inThreadHash, tryThreadHash } from './running-hash.js';
import { type RawOutcome, rawGet } from './raw-get.js';
import { slowPace } from '../fs/slow-pace.js';
import { mayStall } from '../fs/stalling-fs.js';

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
  /** The run's node:http pools (ApiClient.http): the GETs go through them. */
  http: Pick<HttpPool, 'open'>;
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
  /**
   * No header, or no body byte while one is awaited, for this long: the try has stalled. Time
   * the disk write holds the body back is not counted.
   */
  stallMs?: number;
  /** Told when bytes start to arrive, with where this try starts (0, or the bytes resumed). */
  onStart?: (from: number, size: number | undefined) => void;
  /** Bytes on disk so far (at most one call per progressIntervalMs, and the last). */
  onProgress?: (have: number) => void;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown; from: number }) => void;
  /**
   * Compute the SHA-256 even when the library gives none to check against (export records it).
   * Default true. Hashing costs ~1 s of CPU per GiB on a shared 2-core machine, which a plain
   * download skips when there is nothing to check.
   */
  hash?: boolean;
  /**
   * A file to a part file of at least this many bytes is hashed on a worker thread
   * (running-hash.ts); smaller ones, and streams, on the main thread. Default 32 MiB with 4
   * cores or more, else none (hashThreadMin).
   */
  hashThreadMinBytes?: number;
  /**
   * A file of at least this many bytes, fetched to a part file from an http: URL, is read
   * straight off its socket into one reused buffer (raw-get.ts); smaller ones, https: and
   * streams over node:http's pools. Default 16 MiB; tests set 0 or Infinity.
   */
  rawMinBytes?: number;
  /**
   * A part file's writes are synchronous until SLOW_IN_A_ROW in a row each take longer than this;
   * then asynchronous (handleWritable, src/fs/slow-pace.ts). Default 20 ms; tests set -1 for
   * asynchronous writes after the first SLOW_IN_A_ROW.
   */
  syncWriteMs?: number;
  /**
   * The part file's folder is on a network share or a FUSE mount (src/fs/stalling-fs.ts), when
   * the caller knows it once for all its files (export: its folder); otherwise asked per file.
   */
  stalls?: boolean;
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
/** A synchronous write slower than this is slow (src/fs/slow-pace.ts). */
const SYNC_WRITE_MS = 20;
/**
 * From this size on a file's GET gets a connection of its own, read into one reused buffer
 * (raw-get.ts); below it the pools' kept-alive connections save more (an export's many images).
 */
const RAW_MIN = 16 << 20;
/** Below this, a worker thread (~30 ms and 15–19 MB to start) costs more than it saves. */
const HASH_THREAD_MIN = 32 << 20;

/**
 * Cores from which a large file is hashed on a worker thread by default.
 *
 * The main thread's work is serial (a socket read, the part file's write, the hash of those
 * bytes): the SHA-256 is ~0.55 s of CPU per GiB, about as much as the rest of it, so once bytes
 * come faster than the main thread takes them (a fast LAN, a local server) the worker is what
 * keeps up, for +0.1–0.2 s of CPU and ~13 MB. On 2 cores that held as soon as `serve` sent its
 * files in 1 MiB reads (now src/server/storage/send-file.ts): 1 GiB from a local `serve`
 * 1.14–1.16 s on a worker (one run of four 1.49) against 1.44–2.16 s in-thread, `curl -o`
 * 0.95–1.08 s; 86–88 MiB.
 * Against the `serve` before it, which spent 1.2–1.8 s of the same two cores per GiB sent, the
 * worker lost (1.78–2.07 s against 1.35–1.64 s in-thread): with the server on the machine's other
 * core there was none to spare, which is why this was 4 cores until then (bench/notes.md, issue
 * 41). One core: in-thread, between socket reads.
 */
const HASH_THREAD_CORES = 2;

/** Where a large file is hashed by default (HASH_THREAD_CORES). */
function hashThreadMin(): number {
  return availableParallelism() >= HASH_THREAD_CORES ? HASH_THREAD_MIN : Infinity;
}

/** Where the bytes go: a part file (resumable) or a stream such as stdout (resumable within the run). */
interface Sink {
  /** Bytes written (and hashed) so far. */
  have: number;
  /** Undefined when no checksum is wanted (FetchDeps.hash). */
  hash: RunningHash | undefined;
  /**
   * A fresh writable for one try; counts and hashes each chunk once it is written. `idle`
   * resolves when no write is in flight: a try that failed waits for it, so the next one asks
   * for the range after the last byte really written.
   */
  writable(onWritten: (chunk: Buffer) => void): { stream: Writable; idle: () => Promise<void> };
  /** Start over from byte 0 (the store ignored the Range). */
  reset(): Promise<void>;
  /**
   * A part file's writer of borrowed bytes (raw-get.ts's views of its reused buffer), for one
   * try: each view is written (or copied, on a slow disk) before take returns, then counted and
   * hashed as `writable`'s chunks are. Streams have none.
   */
  direct?(onWritten: (chunk: Buffer) => void): DirectWriter;
}

interface DirectWriter {
  /** Undefined once `view` is written; a promise while it is written asynchronously (a slow disk). */
  take(view: Buffer): Promise<void> | undefined;
  /** Resolves when no write is in flight. */
  idle(): Promise<void>;
}

/** Fetches `file` into `dest` through the part file `part`; resolves once it is checked and renamed. */
export async function fetchToFile(file: RemoteFile, dest: string, part: string, deps: FetchDeps): Promise<Fetched> {
  // 'a+' that never follows a symbolic link: a link planted at the part's name would have the
  // bytes appended wherever it leads (ELOOP instead).
  // Asked beside the open (no extra wait): a part file on a network share or a FUSE mount is
  // never written synchronously, as each write there waits for a server (src/fs/stalling-fs.ts).
  const [handle, stalls] = await Promise.all([
    open(part, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW),
    deps.stalls ?? mayStall(dirname(part)),
  ]);
  let result: Fetched;
  let sink: Sink | undefined;
  try {
    sink = await fileSink(handle, file.size, {
      hashing: wantsHash(file, deps),
      threadMin: deps.hashThreadMinBytes ?? hashThreadMin(),
      syncWriteMs: deps.syncWriteMs ?? SYNC_WRITE_MS,
      stalls,
    });
    result = await fetchInto(file, sink, deps, dest);
  } catch (err) {
    // The worker reads through the handle's descriptor: it is stopped before the handle closes,
    // so that it never reads a descriptor number reused by another file.
    await sink?.hash?.close();
    await handle.close().catch(() => {});
    // Bytes that are not the file are worth nothing; anything else leaves the part file for a
    // later try or run to resume.
    if (err instanceof MismatchError) await unlink(part).catch(() => {});
    throw err;
  }
  await sink.hash?.close();
  await handle.close();
  await rename(part, dest);
  return result;
}

/** Fetches `file` into a stream (stdout): no part file, but a break still resumes with Range. */
export async function fetchToStream(file: RemoteFile, out: Writable, deps: FetchDeps, label: string): Promise<Fetched> {
  const sink: Sink = {
    have: 0,
    hash: wantsHash(file, deps) ? inThreadHash() : undefined,
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

async function fileSink(
  handle: FileHandle,
  expected: number | undefined,
  {
    hashing,
    threadMin,
    syncWriteMs,
    stalls,
  }: { hashing: boolean; threadMin: number; syncWriteMs: number; stalls: boolean },
): Promise<Sink> {
  let { size: have } = await handle.stat();
  // A part file longer than the file cannot be the start of it.
  if (expected !== undefined && have > expected) {
    await handle.truncate(0);
    have = 0;
  }
  // A file of unknown size is hashed in-thread: it may well be small.
  const hash = !hashing
    ? undefined
    : ((expected !== undefined && expected >= threadMin ? tryThreadHash(handle.fd) : undefined) ?? inThreadHash());
  const sink: Sink = {
    have,
    hash,
    writable: (onWritten) => handleWritable(handle, onWritten, syncWriteMs, stalls),
    direct: (onWritten) => handleDirect(handle, onWritten, syncWriteMs, stalls),
    reset: async () => {
      // The worker is done reading before the file shrinks under it.
      await sink.hash?.reset();
      await handle.truncate(0);
      sink.have = 0;
    },
  };
  try {
    if (have > 0) await hash?.addExisting(handle, have);
  } catch (err) {
    await hash?.close();
    throw err;
  }
  return sink;
}

/**
 * A writable over a file handle opened for appending; each chunk is reported once it is on disk
 * (in the page cache: written, not synced).
 */
function handleWritable(
  handle: FileHandle,
  onWritten: (chunk: Buffer) => void,
  syncWriteMs: number,
  stalls: boolean,
): { stream: Writable; idle: () => Promise<void> } {
  let inFlight: Promise<void> = Promise.resolve();
  // Written synchronously while that is quick: a write into the page cache (one socket read, up
  // to 64 KiB) takes tens of microseconds, and handing each to the thread pool (then pausing the
  // socket until it answered) left the main thread idle ~70 % of a 1 GiB download
  // (bench/notes.md, issue 41). Once the disk proves slow (src/fs/slow-pace.ts: slow writes in a row,
  // not one, which a loaded machine gives any disk), this file's writes are asynchronous, so
  // that such a disk never holds the event loop (progress, Ctrl-C, the other transfers of an
  // export) for long; on a network share or a FUSE mount (`stalls`) none is synchronous.
  const slowDisk = slowPace(syncWriteMs);
  let quick = !stalls;
  const writeAll = (buffers: Buffer[]): Promise<void> => {
    inFlight = (async () => {
      const total = buffers.reduce((n, b) => n + b.length, 0);
      let bytesWritten: number;
      if (quick) {
        const started = performance.now();
        bytesWritten = writevSync(handle.fd, buffers);
        if (slowDisk(performance.now() - started)) quick = false;
      } else ({ bytesWritten } = await handle.writev(buffers));
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

/**
 * handleWritable's twin for borrowed bytes: written synchronously straight from the view while
 * the disk is quick; once it proves slow (src/fs/slow-pace.ts), each view is copied and written
 * asynchronously, the socket held meanwhile.
 */
function handleDirect(
  handle: FileHandle,
  onWritten: (chunk: Buffer) => void,
  syncWriteMs: number,
  stalls: boolean,
): DirectWriter {
  const slowDisk = slowPace(syncWriteMs);
  let quick = !stalls;
  let inFlight: Promise<void> = Promise.resolve();
  return {
    take(view) {
      if (quick) {
        const started = performance.now();
        // A short write (rare on files): the rest, until all of it is written.
        for (let at = 0; at < view.length;) at += writeSync(handle.fd, view, at);
        if (slowDisk(performance.now() - started)) quick = false;
        onWritten(view);
        return undefined;
      }
      const copy = Buffer.from(view); // the view's buffer is refilled by the next socket read
      inFlight = (async () => {
        for (let at = 0; at < copy.length;) at += (await handle.write(copy, at)).bytesWritten;
        onWritten(copy);
      })();
      return inFlight;
    },
    idle: () => inFlight.catch(() => {}),
  };
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
    sink.have += chunk.length;
    sink.hash?.add(chunk, sink.have);
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
  let sha256: string | undefined;
  try {
    sha256 = await sink.hash?.digest();
  } catch (err) {
    if (err instanceof HashError) err.message = `${label}: ${err.message}`;
    throw err;
  }
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
  const thrown = (err: unknown) =>
    errorFromThrown(err, { method: 'GET', url: shown, timeoutMs: stallMs, signal: deps.signal });
  if (sink.direct && file.size !== undefined && file.size >= (deps.rawMinBytes ?? RAW_MIN)) {
    const target = new URL(url);
    if (target.protocol === 'http:') {
      const writer = sink.direct(onWritten);
      let outcome: RawOutcome;
      try {
        outcome = await rawGet({
          url: target,
          headers: from > 0 ? { Range: `bytes=${from}-` } : {},
          timeoutMs: stallMs,
          signal: deps.signal,
          // What the GET answers when all goes well; anything else is asked again over
          // node:http below, which knows how to read, report and retry it.
          accept: (status, headers) => {
            const ok =
              from === 0 ? status === 200 : status === 206 && rangeStart(headers.get('content-range')) === from;
            if (ok) deps.onStart?.(sink.have, file.size);
            return ok;
          },
          body: (view) => writer.take(view),
        });
      } catch (err) {
        // The next try asks for the range after the last byte really written.
        await writer.idle();
        throw thrown(err);
      }
      if (outcome === 'done') return;
    }
  }
  let res: OpenAnswer;
  try {
    res = await deps.http.open({
      url,
      headers: from > 0 ? { range: `bytes=${from}-` } : {},
      timeoutMs: stallMs,
      signal: deps.signal,
    });
  } catch (err) {
    throw thrown(err);
  }
  if (res.status === 416 && from > 0) {
    // Nothing after byte `from`: the part file holds at least the whole object. Start over.
    res.body.destroy();
    await sink.reset();
    return tryOnce(url, file, sink, deps, onWritten);
  }
  if (res.status < 200 || res.status >= 300) {
    const text = await readText(res, stallMs).catch(() => '');
    throw errorFromResponse(res.status, res.headers, text, 'GET', shown, deps.now());
  }
  if (res.status === 206) {
    const start = rangeStart(res.headers['content-range']);
    if (start !== from) {
      // Not the range asked for: take no chances, fetch it whole.
      res.body.destroy();
      await sink.reset();
      return tryOnce(url, file, sink, deps, onWritten);
    }
  } else if (from > 0) {
    await sink.reset(); // 200: the store ignored the Range and sends it all
  }
  deps.onStart?.(sink.have, file.size);
  const { stream, idle } = sink.writable(onWritten);
  try {
    await copyBody(res, stream, stallMs, deps.signal);
  } catch (err) {
    stream.destroy();
    await idle();
    throw thrown(err);
  }
}

/**
 * Writes the body into `stream`, pausing it while the stream asks to drain. The stall timer
 * runs only while the body flows: a slow disk holding it back is not a stall. ('data' events,
 * not async iteration: the iterator's read() joins buffered chunks into new buffers, a copy of
 * every byte.)
 */
function copyBody(res: OpenAnswer, stream: Writable, stallMs: number, signal: AbortSignal): Promise<void> {
  const body = res.body;
  return new Promise<void>((resolve, reject) => {
    let held = false;
    const timer = setTimeout(function stalled() {
      if (held) return void timer.refresh();
      fail(Object.assign(new Error(`the body stalled for ${stallMs} ms`), { code: 'ETIMEDOUT' }));
    }, stallMs);
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (err: unknown) => {
      if (done) return;
      finish();
      // Not read to its end: its connection cannot be used again.
      body.destroy();
      reject(err);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const received = scavenger(DOWNLOAD_SCAVENGE_BYTES);
    body.on('data', (chunk: Buffer) => {
      timer.refresh();
      received(chunk.length);
      if (stream.write(chunk)) return;
      held = true;
      body.pause();
      stream.once('drain', () => {
        held = false;
        timer.refresh();
        body.resume();
      });
    });
    body.on('error', fail);
    body.on('close', () => {
      if (!body.complete) fail(endedEarly());
    });
    body.on('end', () => {
      clearTimeout(timer);
      stream.end();
    });
    stream.on('error', fail);
    stream.on('finish', () => {
      if (done) return;
      finish();
      resolve();
    });
  });
}

/** An error answer's body as text: small, and read only to say what went wrong. */
async function readText(res: OpenAnswer, stallMs: number): Promise<string> {
  const timer = setTimeout(() => res.body.destroy(), stallMs);
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > 64 * 1024) break;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    clearTimeout(timer);
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
    const hash = inThreadHash();
    const { size } = await handle.stat();
    await hash.addExisting(handle, size);
    return { size, sha256: await hash.digest() };
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
