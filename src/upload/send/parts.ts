// Sends a file's parts to a service that offered a multipart upload (an extension, docs/api.md
// "Multipart uploads"; issue 28): at most `concurrency` parts at once, each read from the file
// in place and retried on its own (a fresh URL when its URL expired), so memory stays within
// part size × concurrency. Parts already received (`done`, e.g. from a journal or the service's
// list) are not sent again. The engine's multipart transfer (./multipart.ts) drives it.
import { type FileHandle, open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Transport } from '../../api/undici.js';
import { request } from '../../api/undici.js';
import type { ApiClient } from '../../api/client.js';
import { classifyForRetry, errorFromResponse, errorFromThrown } from '../../api/errors.js';
import { type RetryPolicy, withRetry } from '../../api/retry.js';
import { type PartPlan, partRange } from '../../rules/parts.js';
import { mayStall } from '../../fs/stalling-fs.js';
import { isExpired, redactUrl } from '../../api/storage-url.js';
import { FileChangedError, type LocalFile, type SliceRead, fileSlices } from './put.js';
import { SLOW_READ_MS, pacedRead } from './paced-read.js';
import { type Pool, createPool } from '../../concurrency/pool.js';
import type { FileReads } from './file-reads.js';

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
  dispatcher: Transport;
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
   * The pool the parts run in: shared by every file of a run, so that `concurrency` bounds the
   * parts in flight (and the memory) of the whole run. Without it, this call has its own.
   */
  pool?: Pool;
  /** Told what the parts read, as they read it: a hash fed from those bytes (./hash-fed.ts). */
  reads?: FileReads;
  /** How the slices are read; by default synchronously while quick (./paced-read.ts). Tests pass their own. */
  read?: SliceRead;
}

/**
 * A part is read from the file as it is sent, in slices this big through a ring of three
 * (fileSlices, as the single PUT): 3 MiB per part in flight, not the whole part held in memory
 * (six 8 MiB parts at once took a 200 MB embedded upload's peak RSS 48 MB higher).
 */
const PART_SLICE_BYTES = 1024 * 1024;

/**
 * The rings of slice buffers of one file's parts: a part takes a spare one and gives it back once
 * stored, so a 1 GiB file reads into `concurrency` rings, not 128 fresh ones. Fresh rings were
 * ~400 MB of short-lived buffers per GiB, and collecting them cost the client more CPU than the
 * whole single PUT's sending (bench/notes.md, issue 41). A ring is given back only after a 2xx
 * answer: the service has read every byte then, so no socket write still points into it; after a
 * failure the connection may still hold a slice, and that ring is left to the collector.
 */
export function sliceRings(): { take(): Buffer[]; giveBack(ring: Buffer[]): void } {
  const spare: Buffer[][] = [];
  return { take: () => spare.pop() ?? [], giveBack: (ring) => void spare.push(ring) };
}

/**
 * One read handle of the file for the parts being sent at once: opened by the first, closed when
 * the last in flight ends (and opened again by a later one), as the single PUT reads through one
 * handle: not an open and a close per part. Each part still checks the file's size and mtime.
 */
export function sharedHandle(path: string): <T>(use: (handle: FileHandle) => Promise<T>) => Promise<T> {
  let opened: Promise<FileHandle> | null = null;
  let users = 0;
  return async (use) => {
    users++;
    try {
      const handle = (opened ??= open(path, 'r'));
      // A failed open is not kept: the next part tries again.
      handle.catch(() => opened === handle && (opened = null));
      return await use(await handle);
    } finally {
      if (--users === 0 && opened) {
        const last = opened;
        opened = null;
        await last.then((h) => h.close()).catch(() => {});
      }
    }
  };
}

/** Every part of the file, in part order, with the ETag for complete. */
export async function sendParts(
  file: LocalFile,
  key: string,
  plan: PartPlan,
  o: SendPartsOptions,
): Promise<SentPart[]> {
  try {
    return await sendMissing(file, key, plan, o);
  } finally {
    // Stored, failed or stopped: these parts read no more, and a hash fed from them reads the rest.
    o.reads?.done();
  }
}

async function sendMissing(file: LocalFile, key: string, plan: PartPlan, o: SendPartsOptions): Promise<SentPart[]> {
  const etags = new Map((o.done ?? []).map((p) => [p.partNumber, p.etag]));
  const missing = Array.from({ length: plan.partCount }, (_, i) => i + 1).filter((n) => !etags.has(n));
  const pool = o.pool ?? createPool(o.concurrency, o.signal);
  const urls = new Map<number, { url: string; headers: Record<string, string> }>();
  const sign = async (numbers: number[]) => {
    const answer = await o.api.parts({ key, partNumbers: numbers }, { signal: o.signal });
    for (const p of answer.parts) urls.set(p.partNumber, { url: p.url, headers: p.headers });
  };
  const rings = sliceRings();
  const withHandle = sharedHandle(file.path);
  // Read synchronously while quick, one judgment for the whole file (./paced-read.ts); never on
  // a network share or a FUSE mount, where each read waits for a server.
  const read = o.read ?? pacedRead(SLOW_READ_MS, await mayStall(file.path));
  const tasks: Promise<void>[] = [];
  o.reads?.planned(missing.map((n) => partRange(plan, file.size, n)));
  for (let i = 0; i < missing.length; i += URL_BATCH) {
    await sign(missing.slice(i, i + URL_BATCH));
    for (const n of missing.slice(i, i + URL_BATCH)) {
      tasks.push(
        pool.run(async () => {
          // Queued behind other files' parts in a shared pool: this file may have stopped meanwhile.
          o.signal?.throwIfAborted();
          const { start, end } = partRange(plan, file.size, n);
          // Every retry takes a freshly signed URL (one small request): a store that refuses a
          // part before reading its body (an expired URL) closes the connection, and that
          // refusal often reaches us as a reset while sending, not as its answer — retrying the
          // same URL would only be refused again.
          let tried = false;
          const etag = await withRetry(
            async () => {
              if (tried) await sign([n]);
              tried = true;
              const ring = rings.take();
              const reading = o.reads?.reading({ start, end });
              let stored = false;
              try {
                const etag = await withHandle((handle) =>
                  putPart(handle, file, { start, end }, urls.get(n)!, { ring, read }, o, reading?.slice),
                );
                stored = true;
                rings.giveBack(ring);
                return etag;
              } finally {
                reading?.end(stored);
              }
            },
            {
              policy: o.policy,
              sleep: o.sleep,
              ...(o.signal ? { signal: o.signal } : {}),
              classify: (err) => {
                if (err instanceof FileChangedError) return { retry: false };
                if (isExpired(err)) return { retry: true, afterMs: 0 };
                return classifyForRetry(err);
              },
            },
          );
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

/** One part's bytes, read from the file in place as they are sent, PUT as one body; resolves with the ETag. */
async function putPart(
  handle: FileHandle,
  file: LocalFile,
  range: { start: number; end: number },
  signed: { url: string; headers: Record<string, string> },
  slices: { ring: Buffer[]; read: SliceRead },
  o: SendPartsOptions,
  onSlice?: (offset: number, bytes: Buffer) => void,
): Promise<string> {
  const st = await handle.stat();
  if (st.size !== file.size || st.mtimeMs !== file.mtimeMs)
    throw new FileChangedError(file.path, 'since the upload started');
  // Each slice counted once the connection took it (undici pulls the next one only then).
  async function* body(): AsyncGenerator<Buffer> {
    let offset = range.start;
    for await (const slice of fileSlices(handle, file, range, PART_SLICE_BYTES, slices.ring, slices.read)) {
      // Told now: the ring reuses this buffer for a later slice once the connection took it.
      onSlice?.(offset, slice);
      offset += slice.length;
      yield slice;
      o.onBytes?.(slice.length);
    }
  }
  const shown = redactUrl(signed.url);
  let res: Dispatcher.ResponseData<null>;
  try {
    res = await request(signed.url, {
      dispatcher: o.dispatcher,
      method: 'PUT',
      headers: withLength(signed.headers, range.end - range.start),
      // undici documents (Dispatcher.md) and accepts async iterables as bodies; its types lag.
      body: body() as unknown as Readable,
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
