// The storage PUT: the file's bytes streamed from disk, in place, to a presigned URL.
//
// - Exactly the presigned Content-Type and Content-Length, so undici sends a fixed-length body
//   (never chunked), the other headers presign named (an S3 store's signed
//   x-amz-checksum-sha256), and no Authorization header: storage is not the API, and a remote's
//   object store must never see the API key.
// - The body is the file read in large slices into a few reused buffers (fileSlices); progress
//   is a counter bumped as slices pass to the socket (no copying Transform).
// - Its own retry loop, because a stream cannot be replayed: each try opens the file afresh and
//   sends from byte 0. A 403 `expired` (or a URL that would expire before the file could be
//   sent at a conservative speed) gets a fresh presign. A signature, type or length mismatch is
//   final. A file that changes while it is being sent is stopped, not retried.
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { request } from '../../api/undici.js';
import type { Dispatcher } from 'undici';
import type { Transport } from '../../api/undici.js';
import { StorageError, classifyForRetry, errorFromResponse, errorFromThrown } from '../../api/errors.js';
import type { RetryDecision, RetryPolicy } from '../../api/retry.js';
import { withRetry } from '../../api/retry.js';
import type { PresignResponse } from '../../api/schemas.js';
import { describeRefusal } from '../../api/storage-refusal.js';
import { isExpired, redactUrl, urlExpiry } from '../../api/storage-url.js';
import type { FileReads } from './file-reads.js';

/** Large reads: fewer syscalls and socket writes; at most a few of these are in memory per file. */
export const READ_SLICE_BYTES = 2 * 1024 * 1024;

/** The speed we plan for when judging whether a URL lives long enough: slow, not pessimistic. */
export const CONSERVATIVE_BYTES_PER_SECOND = 1024 * 1024;
/** Extra time a URL must still have beyond the estimated transfer time. */
const EXPIRY_MARGIN_MS = 60_000;
/** How often a file is re-checked for changes while it is sent. */
const CHANGE_CHECK_BYTES = 64 * 1024 * 1024;
/** No byte accepted by the server, or no answer after the last one, for this long: the PUT has stalled. */
const STALL_TIMEOUT_MS = 120_000;

/** The file as planned: a change of size or mtime since then means it is being edited. */
export interface LocalFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The file changed while it was being sent (or since it was checked): never retried. */
export class FileChangedError extends Error {
  readonly path: string;
  constructor(path: string, what: string) {
    super(
      `${path} changed while it was being uploaded (${what}); wait until it is finished being written, then run the upload again`,
    );
    this.name = 'FileChangedError';
    this.path = path;
  }
}

/** Whether the URL would expire before `size` bytes could be sent at the conservative speed. */
export function expiresTooSoon(url: string, size: number, now: Date): boolean {
  const expiry = urlExpiry(url);
  if (!expiry) return false;
  const needMs = (size / CONSERVATIVE_BYTES_PER_SECOND) * 1000 + EXPIRY_MARGIN_MS;
  return expiry.getTime() - now.getTime() < needMs;
}

export interface PutOnceOptions {
  dispatcher: Transport;
  now: () => Date;
  signal?: AbortSignal;
  /** Headers presign asked for besides Content-Type and Content-Length (presignedHeaders). */
  headers?: Record<string, string>;
  /** Called after each slice is handed to the connection, with the bytes sent so far in this try. */
  onSent?: (sent: number) => void;
  /** Told what this try reads, as it reads it: a hash fed from those bytes (./hash-fed.ts). */
  reads?: FileReads;
}

/** One PUT of the whole file from byte 0. Throws a typed error; resolves when storage answered 2xx. */
export async function putOnce(file: LocalFile, url: string, contentType: string, o: PutOnceOptions): Promise<void> {
  const shownUrl = redactUrl(url);
  const handle = await open(file.path, 'r');
  const reading = o.reads?.reading({ start: 0, end: file.size });
  let stored = false;
  try {
    await assertUnchanged(handle, file, 'before sending');
    let sent = 0;
    let nextCheck = CHANGE_CHECK_BYTES;
    // Passes each slice on as is and only counts: no copying, no per-chunk work beyond a number.
    async function* body(): AsyncGenerator<Buffer> {
      for await (const slice of fileSlices(handle, file)) {
        // Told now: the ring reuses this buffer for a later slice once the connection took it.
        reading?.slice(sent, slice);
        sent += slice.length;
        yield slice;
        o.onSent?.(sent);
        if (sent >= nextCheck) {
          nextCheck += CHANGE_CHECK_BYTES;
          await assertUnchanged(handle, file, 'during sending');
        }
      }
    }
    let res: Dispatcher.ResponseData<null>;
    try {
      res = await request(url, {
        dispatcher: o.dispatcher,
        method: 'PUT',
        headers: { ...o.headers, 'content-type': contentType, 'content-length': String(file.size) },
        // undici documents (Dispatcher.md) and accepts async iterables as bodies; its types lag.
        body: body() as unknown as Readable,
        signal: o.signal,
        headersTimeout: STALL_TIMEOUT_MS,
        bodyTimeout: STALL_TIMEOUT_MS,
      });
    } catch (err) {
      // A short read or a content-length mismatch is what a file shrinking or growing looks like.
      await assertUnchanged(handle, file, 'while sending');
      if (err instanceof FileChangedError) throw err;
      throw errorFromThrown(err, {
        method: 'PUT',
        url: shownUrl,
        timeoutMs: STALL_TIMEOUT_MS,
        signal: o.signal,
        sending: true,
      });
    }
    const text = res.statusCode >= 200 && res.statusCode < 300 ? (await res.body.dump(), '') : await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw errorFromResponse(res.statusCode, res.headers, text, 'PUT', shownUrl, o.now());
    }
    // Stored: but if the file changed meanwhile, what was stored is a mix of old and new bytes.
    await assertUnchanged(handle, file, 'while sending');
    stored = true;
  } finally {
    reading?.end(stored);
    await handle.close().catch(() => {});
  }
}

/** Buffers each file's reads rotate through: one being sent, one being read ahead, one spare. */
export const READ_RING = 3;

/**
 * The file's bytes (all of them, or the `range` [start, end) of one part), as slices of a few
 * reused buffers of at most `maxSliceBytes`, each read while the one before is being sent.
 * `ring`: the buffers to read into (filled in as needed); a caller that sends many ranges passes
 * the same ring again once the connection is done with it, instead of a fresh one per range.
 *
 * Why reuse: a read stream allocates a fresh 2 MiB buffer per read, and those wait for the
 * garbage collector; across a 1 GiB file that was ~35 MB of the peak RSS (bench/results.md).
 * Why it is safe: a buffer is refilled two slices after it was handed on, and undici asks for
 * the next slice only once the socket has taken the previous one (it awaits 'drain' whenever a
 * write is buffered). test/upload/put.test.ts checks the stored bytes against the file's.
 * `read`: how each slice is read; through the thread pool unless the caller says otherwise (a
 * multipart upload reads synchronously while that is quick: ./paced-read.ts).
 */
export async function* fileSlices(
  handle: FileHandle,
  file: LocalFile,
  range: { start: number; end: number } = { start: 0, end: file.size },
  maxSliceBytes = READ_SLICE_BYTES,
  ring: Buffer[] = [],
  read: SliceRead = readThroughPool,
): AsyncGenerator<Buffer> {
  const { start, end } = range;
  const sliceBytes = Math.max(1, Math.min(maxSliceBytes, end - start));
  const bufferAt = (i: number): Buffer => (ring[i % READ_RING] ??= Buffer.allocUnsafe(sliceBytes));
  const readInto = (buf: Buffer, at: number): Promise<number> => read(handle, buf, Math.min(buf.length, end - at), at);
  let pos = start;
  let k = 0;
  let pending: Promise<number> | null = end > start ? readInto(bufferAt(0), start) : null;
  while (pending) {
    const buf = bufferAt(k);
    const n = await pending;
    if (n === 0) throw new FileChangedError(file.path, `it ended after ${pos} of ${file.size} bytes while sending`);
    pos += n;
    pending = pos < end ? readInto(bufferAt(k + 1), pos) : null;
    // Awaited on the next pull; if the consumer stops first, its failure must not go unhandled.
    pending?.catch(() => {});
    k++;
    yield buf.subarray(0, n);
  }
}

/** Reads `length` bytes at `position` into the start of `buf`; resolves with the bytes read (0 at the end of the file). */
export type SliceRead = (handle: FileHandle, buf: Buffer, length: number, position: number) => Promise<number>;

/** Each read through libuv's thread pool, overlapping whatever the main thread does meanwhile. */
export const readThroughPool: SliceRead = (handle, buf, length, position) =>
  handle.read(buf, 0, length, position).then((r) => r.bytesRead);

async function assertUnchanged(handle: FileHandle, file: LocalFile, when: string): Promise<void> {
  const st = await handle.stat();
  if (st.size !== file.size) throw new FileChangedError(file.path, `size ${file.size} → ${st.size} bytes ${when}`);
  if (st.mtimeMs !== file.mtimeMs) throw new FileChangedError(file.path, `modified ${when}`);
}

export interface PutWithRetryOptions {
  dispatcher: Transport;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  policy: RetryPolicy;
  random?: () => number;
  signal?: AbortSignal;
  /** Asks the service for a (fresh) presigned URL; the client retries it on its own. */
  presign: () => Promise<PresignResponse>;
  onSent?: (sent: number) => void;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** Told what each try reads: a hash fed from those bytes (./hash-fed.ts); `done` once the PUT succeeded or failed. */
  reads?: FileReads;
}

/**
 * The headers presign asked the PUT to carry besides Content-Type and Content-Length (which the
 * PUT sets from the file itself): an S3 store's signed x-amz-checksum-sha256. Never an
 * Authorization header (see above), whatever a service answers.
 */
export function presignedHeaders(presigned: Pick<PresignResponse, 'headers'>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(presigned.headers ?? {}).filter(
      ([name]) => !/^(content-type|content-length|authorization|host)$/i.test(name),
    ),
  );
}

/** Most presigns per file: the first plus fresh ones for expired URLs. */
const MAX_PRESIGNS = 3;

/**
 * Presign, then PUT until it succeeds or a final error: restarts from byte 0 after a network
 * failure or 5xx/429, presigns again when the URL expired or is about to. Returns the presign
 * whose PUT succeeded (its key is what complete needs).
 */
export async function presignAndPut(
  file: LocalFile,
  contentType: string,
  o: PutWithRetryOptions,
): Promise<PresignResponse> {
  let presigned = await o.presign();
  let presignedAt = o.now().getTime();
  let presigns = 1;
  let needFresh = false;
  const fresh = async () => {
    presigned = await o.presign();
    presignedAt = o.now().getTime();
    presigns++;
    needFresh = false;
  };
  const classify = (err: unknown): RetryDecision => {
    if (isExpired(err) && presigns < MAX_PRESIGNS) {
      needFresh = true;
      return { retry: true, afterMs: 0 };
    }
    return classifyForRetry(err);
  };
  o.reads?.planned([{ start: 0, end: file.size }]);
  await withRetry(
    async () => {
      if (needFresh) await fresh();
      // A retry after a long wait may hold a URL that would die mid-transfer: a fresh one lives
      // longer. A URL just issued is as long-lived as this server makes them, so it is used as is.
      const now = o.now();
      if (
        presigns < MAX_PRESIGNS &&
        now.getTime() - presignedAt > 1000 &&
        expiresTooSoon(presigned.presignedUrl, file.size, now)
      ) {
        await fresh();
      }
      o.onSent?.(0);
      await putOnce(file, presigned.presignedUrl, contentType, {
        dispatcher: o.dispatcher,
        now: o.now,
        signal: o.signal,
        onSent: o.onSent,
        headers: presignedHeaders(presigned),
        ...(o.reads ? { reads: o.reads } : {}),
      });
    },
    {
      policy: o.policy,
      sleep: o.sleep,
      signal: o.signal,
      random: o.random,
      classify,
      onRetry: ({ attempt, delayMs, error }) => o.onRetry?.({ attempt, delayMs, reason: retryReason(error) }),
    },
  ).finally(() => o.reads?.done());
  return presigned;
}

function retryReason(err: unknown): string {
  if (isExpired(err)) return 'the upload URL expired; presigning again';
  if (err instanceof StorageError) return `storage: ${describeRefusal(err)}`;
  return err instanceof Error ? err.message : String(err);
}
