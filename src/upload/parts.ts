// Sends a file's parts to a service that offered a multipart upload (an extension, docs/api.md
// "Multipart uploads"; issue 28): at most `concurrency` parts at once, each read from the file
// in place and retried on its own (a fresh URL when its URL expired), so memory stays within
// part size × concurrency. Parts already received (`done`, e.g. from a journal or the service's
// list) are not sent again. The engine's multipart transfer (./multipart.ts) drives it.
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { request } from '../api/undici.js';
import type { ApiClient } from '../api/client.js';
import { classifyForRetry, errorFromResponse, errorFromThrown } from '../api/errors.js';
import { type RetryPolicy, withRetry } from '../api/retry.js';
import { FileChangedError, type LocalFile, isExpired, redactUrl } from './put.js';
import { type Pool, createPool } from './pool.js';

/** At most this many part URLs per request (the service's batch). */
const URL_BATCH = 100;
/** No answer, or a body that stalls, for this long: the part's PUT has stalled (as put.ts). */
const STALL_TIMEOUT_MS = 120_000;

export interface SentPart {
  partNumber: number;
  etag: string;
}

export interface SendPartsOptions {
  api: Pick<ApiClient, 'parts'>;
  dispatcher: Dispatcher;
  concurrency: number;
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => Date;
  signal?: AbortSignal;
  /** Parts the service already holds, with their ETags: not sent again. */
  done?: SentPart[];
  /** Called as each part is stored (progress counts bytes as parts finish; a journal records it). */
  onPart?: (part: SentPart & { bytes: number }) => void;
  /** Bytes just handed to the connection (every try counts: a part sent again sends them again). */
  onBytes?: (bytes: number) => void;
  /**
   * The pool the parts run in, and the buffers they are read into: shared by every file of a run,
   * so that `concurrency` bounds the parts in flight (and the memory) of the whole run. Without
   * them, this call has its own of `concurrency`.
   */
  pool?: Pool;
  buffers?: PartBuffers;
}

/** Part-sized buffers taken and given back: never more than the parts in flight at once. */
export interface PartBuffers {
  take(bytes: number): Buffer;
  give(buffer: Buffer): void;
}

/** A free list of buffers; one given back is reused for any part up to its size. */
export function createPartBuffers(): PartBuffers {
  const spare: Buffer[] = [];
  return {
    take(bytes) {
      const i = spare.findIndex((b) => b.length >= bytes);
      return i >= 0 ? spare.splice(i, 1)[0]! : Buffer.allocUnsafe(bytes);
    },
    give(buffer) {
      spare.push(buffer);
    },
  };
}

/** The part's buffer is handed to the connection in slices this big, each counted as it goes. */
const SEND_SLICE_BYTES = 1024 * 1024;

/** Every part of the file, in part order, with the ETag for complete. */
export async function sendParts(
  file: LocalFile,
  key: string,
  plan: { partSize: number; partCount: number },
  o: SendPartsOptions,
): Promise<SentPart[]> {
  const etags = new Map((o.done ?? []).map((p) => [p.partNumber, p.etag]));
  const missing = Array.from({ length: plan.partCount }, (_, i) => i + 1).filter((n) => !etags.has(n));
  const pool = o.pool ?? createPool(o.concurrency, o.signal);
  const buffers = o.buffers ?? createPartBuffers();
  const urls = new Map<number, { url: string; headers: Record<string, string> }>();
  const sign = async (numbers: number[]) => {
    const answer = await o.api.parts({ key, partNumbers: numbers }, { signal: o.signal });
    for (const p of answer.parts) urls.set(p.partNumber, { url: p.url, headers: p.headers });
  };
  // One buffer per part in flight, reused by the next part: memory is part size × concurrency,
  // without a fresh part-sized allocation per part waiting for the garbage collector.
  const tasks: Promise<void>[] = [];
  for (let i = 0; i < missing.length; i += URL_BATCH) {
    await sign(missing.slice(i, i + URL_BATCH));
    for (const n of missing.slice(i, i + URL_BATCH)) {
      tasks.push(
        pool.run(async () => {
          // Queued behind other files' parts in a shared pool: this file may have stopped meanwhile.
          o.signal?.throwIfAborted();
          const start = (n - 1) * plan.partSize;
          const end = Math.min(file.size, start + plan.partSize);
          let stale = false;
          const buffer = buffers.take(Math.min(plan.partSize, file.size));
          const etag = await withRetry(
            async () => {
              if (stale) await sign([n]);
              return putPart(file, buffer.subarray(0, end - start), start, urls.get(n)!, o);
            },
            {
              policy: o.policy,
              sleep: o.sleep,
              ...(o.signal ? { signal: o.signal } : {}),
              classify: (err) => {
                if (err instanceof FileChangedError) return { retry: false };
                if (isExpired(err)) {
                  stale = true;
                  return { retry: true, afterMs: 0 };
                }
                return classifyForRetry(err);
              },
            },
          );
          // Stored: the service has every byte, so no write of the buffer is pending any more.
          buffers.give(buffer);
          etags.set(n, etag);
          o.onPart?.({ partNumber: n, etag, bytes: end - start });
        }),
      );
    }
  }
  await Promise.all(tasks);
  return [...etags].map(([partNumber, etag]) => ({ partNumber, etag })).sort((a, b) => a.partNumber - b.partNumber);
}

/** The headers given, with the part's length when they lack it: a fixed-length body, never chunked. */
function withLength(headers: Record<string, string>, length: number): Record<string, string> {
  const named = Object.keys(headers).some((h) => h.toLowerCase() === 'content-length');
  return named ? headers : { ...headers, 'content-length': String(length) };
}

/** The part's bytes as views of its one buffer (no copy), each counted once the connection took it. */
async function* slices(body: Buffer, onBytes?: (bytes: number) => void): AsyncGenerator<Buffer> {
  for (let at = 0; at < body.length; at += SEND_SLICE_BYTES) {
    const slice = body.subarray(at, Math.min(body.length, at + SEND_SLICE_BYTES));
    yield slice;
    onBytes?.(slice.length);
  }
}

/** One part's bytes, read from the file in place into `body`, PUT as one body; resolves with the ETag. */
async function putPart(
  file: LocalFile,
  body: Buffer,
  start: number,
  signed: { url: string; headers: Record<string, string> },
  o: SendPartsOptions,
): Promise<string> {
  const end = start + body.length;
  const handle = await open(file.path, 'r');
  try {
    const st = await handle.stat();
    if (st.size !== file.size || st.mtimeMs !== file.mtimeMs)
      throw new FileChangedError(file.path, 'since the upload started');
    const { bytesRead } = await handle.read(body, 0, body.length, start);
    if (bytesRead !== body.length) throw new FileChangedError(file.path, `it ended before byte ${end}`);
  } finally {
    await handle.close();
  }
  const shown = redactUrl(signed.url);
  let res: Dispatcher.ResponseData<null>;
  try {
    res = await request(signed.url, {
      dispatcher: o.dispatcher,
      method: 'PUT',
      headers: withLength(signed.headers, body.length),
      // undici documents (Dispatcher.md) and accepts async iterables as bodies; its types lag.
      body: slices(body, o.onBytes) as unknown as Readable,
      signal: o.signal,
      headersTimeout: STALL_TIMEOUT_MS,
      bodyTimeout: STALL_TIMEOUT_MS,
    });
  } catch (err) {
    throw errorFromThrown(err, {
      method: 'PUT',
      url: shown,
      timeoutMs: STALL_TIMEOUT_MS,
      ...(o.signal ? { signal: o.signal } : {}),
      sending: true,
    });
  }
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300)
    throw errorFromResponse(res.statusCode, res.headers, text, 'PUT', shown, o.now());
  const etag = res.headers.etag;
  return Array.isArray(etag) ? etag[0]! : (etag ?? '');
}
