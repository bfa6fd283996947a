// A large file sent as parts (issue 28; docs/api.md "Multipart uploads"), as the engine does it:
// the upload is recorded in the journal when presign offers it, each part as it is stored, so a
// re-run after Ctrl-C, kill -9 or a lost link continues with the parts the service lacks. A file
// changed since (size, mtime or SHA-256) starts over and its old upload is aborted; an upload the
// service no longer knows (swept, expired) starts over once with a new presign. Progress counts
// bytes as parts are stored; ./parts.ts sends them (in parallel, each read in place).
import type { Transport } from '../../api/undici.js';
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { RetryPolicy } from '../../api/retry.js';
import type { PresignResponse } from '../../api/schemas.js';
import { type PartPlan, partBytes } from '../../rules/parts.js';
import type { ContentType } from '../../rules/rules.js';
import { escapeName } from '../../text/escape-name.js';
import type { EmitFn, FileRef } from './events.js';
import type { FileReads } from './file-reads.js';
import type { Journal } from './journal.js';
import { type SentPart, sendParts } from './parts.js';

// The one door to the part sender (scripts/check-imports.js): the engine and the transfer see
// parts only through this module, fresh ones by `startParts`, an earlier run's by `continueParts`.
export type { SentPart };
import type { Pool } from '../../concurrency/pool.js';
import type { LocalFile } from './put.js';

export type PartsApi = Pick<ApiClient, 'parts' | 'abortUpload'>;

export interface MultipartContext {
  api: PartsApi;
  dispatcher: Transport;
  journal: Journal;
  /** Parts sent at once in the whole run (PART_CONCURRENCY.default unless --part-concurrency), and their pool. */
  partConcurrency: number;
  partPool: Pool;
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => Date;
  emit: EmitFn;
  /** Bytes handed to the connection (the run's bytesSent). */
  onBytes: (bytes: number) => void;
  /** The bytes of this file's parts the service holds now (what an interrupted run keeps). */
  onHeld: (file: LocalFile, bytes: number) => void;
  /** Told what this file's parts read: its hash fed from those bytes (./hash-alongside.ts). */
  reads?: FileReads;
}

/** The file whose parts are sent: where it is, how events name it, its type and SHA-256 (when known). */
export interface PartsFile {
  file: LocalFile;
  ref: FileRef;
  type: ContentType;
  sha256: string | undefined;
}

/** An upload to continue: its key, plan and the parts the service holds. */
export interface Resumable {
  key: string;
  plan: PartPlan;
  done: Array<SentPart & { size: number }>;
}

/** The service has no parts endpoint although presign offered parts: the single PUT it is. */
export class NoPartsEndpointError extends Error {
  constructor() {
    super('the service offered parts but has no POST /api/v1/upload/parts');
    this.name = 'NoPartsEndpointError';
  }
}

/**
 * The file's unfinished multipart upload from an earlier run, if it can be continued: same size,
 * mtime, SHA-256 (when both are known) and type, and the service still knows it. Otherwise the old
 * upload is forgotten (and aborted, when the file changed) and undefined says: start afresh.
 */
async function resumable(
  { file, ref, type, sha256 }: PartsFile,
  ctx: MultipartContext,
  signal: AbortSignal,
): Promise<Resumable | undefined> {
  const { journal } = ctx;
  const rec = journal.multipart(file.path);
  if (!rec) return undefined;
  const forget = () => {
    journal.dropMultipart(rec.key);
    journal.dropPending({ path: rec.path, size: rec.size, mtimeMs: rec.mtimeMs });
  };
  const changed =
    rec.size !== file.size ||
    rec.mtimeMs !== file.mtimeMs ||
    (sha256 !== undefined && rec.sha256 !== undefined && rec.sha256 !== sha256);
  if (changed || rec.type !== type) {
    forget();
    await abortQuietly(ctx.api, rec.key);
    if (changed)
      ctx.emit({
        type: 'notice',
        message: `${escapeName(ref.name)} changed since its upload began: starting over (the parts sent before were discarded)`,
      });
    return undefined;
  }
  let answer;
  try {
    answer = await ctx.api.parts({ key: rec.key, partNumbers: [] }, { signal });
  } catch (err) {
    // Swept or expired (400 invalid_upload), or a service without parts now (404): start afresh.
    if (err instanceof ApiError && (err.is('invalid_upload') || err.status === 404)) {
      forget();
      return undefined;
    }
    throw err;
  }
  if (answer.partSize !== rec.partSize || answer.partCount !== rec.partCount) {
    forget();
    await abortQuietly(ctx.api, rec.key);
    return undefined;
  }
  const plan: PartPlan = { partSize: rec.partSize, partCount: rec.partCount };
  // The service's list is the truth: a part the journal lacks was stored as its answer was lost;
  // one the service lacks is sent again. A part of the wrong size is sent again too.
  const done = answer.uploaded.filter((p) => p.size === partBytes(plan, file.size, p.partNumber));
  for (const p of done) journal.recordPart(rec.key, p);
  return { key: rec.key, plan, done: done.map((p) => ({ partNumber: p.partNumber, etag: p.etag, size: p.size })) };
}

/**
 * An earlier run's upload of the file, continued when `resumable` allows: the parts the service
 * lacks are sent. Undefined: there is none to continue, and the file goes to presign afresh.
 */
export async function continueParts(
  f: PartsFile,
  ctx: MultipartContext,
  signal: AbortSignal,
): Promise<{ key: string; parts: SentPart[] } | undefined> {
  const earlier = await resumable(f, ctx, signal);
  if (!earlier) return undefined;
  return { key: earlier.key, parts: await sendAll(f, earlier, ctx, signal) };
}

/** A fresh upload that presign offered as parts: recorded, then sent. */
export function startParts(
  f: PartsFile,
  presigned: PresignResponse & { multipart: { partSize: number; partCount: number } },
  ctx: MultipartContext,
  signal: AbortSignal,
): Promise<SentPart[]> {
  const { file, type, sha256 } = f;
  const plan = { partSize: presigned.multipart.partSize, partCount: presigned.multipart.partCount };
  ctx.journal.recordMultipart(file, {
    key: presigned.key,
    type,
    partSize: plan.partSize,
    partCount: plan.partCount,
    ...(sha256 ? { sha256 } : {}),
  });
  return sendAll(f, { key: presigned.key, plan, done: [] }, ctx, signal, true);
}

/**
 * Sends the parts still missing, with `started`, a `progress` per stored part (the bytes the
 * service holds of the file) and `uploaded`. `fresh`: a 404 of the first parts request means the
 * service has no such endpoint (NoPartsEndpointError), not a lost upload.
 */
async function sendAll(
  { file, ref }: PartsFile,
  upload: Resumable,
  ctx: MultipartContext,
  signal: AbortSignal,
  fresh = false,
): Promise<SentPart[]> {
  const t0 = ctx.now().getTime();
  let held = upload.done.reduce((n, p) => n + p.size, 0);
  ctx.emit({ type: 'started', file: ref, ...(held > 0 ? { resumedFrom: held } : {}) });
  ctx.emit({ type: 'progress', file: ref, sent: held });
  ctx.onHeld(file, held);
  let stored = 0;
  try {
    const parts = await sendParts(file, upload.key, upload.plan, {
      api: ctx.api,
      dispatcher: ctx.dispatcher,
      concurrency: ctx.partConcurrency,
      pool: ctx.partPool,
      policy: ctx.policy,
      sleep: ctx.sleep,
      now: ctx.now,
      signal,
      done: upload.done,
      onBytes: ctx.onBytes,
      ...(ctx.reads ? { reads: ctx.reads } : {}),
      onPart: (p) => {
        ctx.journal.recordPart(upload.key, { partNumber: p.partNumber, etag: p.etag, size: p.bytes });
        stored++;
        held += p.bytes;
        ctx.onHeld(file, held);
        ctx.emit({ type: 'progress', file: ref, sent: held });
      },
    });
    ctx.emit({ type: 'uploaded', file: ref, ms: ctx.now().getTime() - t0 });
    return parts;
  } catch (err) {
    if (fresh && stored === 0 && err instanceof ApiError && err.status === 404 && err.code === 'not_found') {
      ctx.journal.dropMultipart(upload.key);
      throw new NoPartsEndpointError();
    }
    throw err;
  }
}

/** Closes an upload no longer wanted; a service without the endpoint (404) or any failure leaves it to the sweeper. */
export async function abortQuietly(api: Pick<PartsApi, 'abortUpload'>, key: string): Promise<void> {
  await api.abortUpload({ key }).catch(() => {});
}
