// One file's bytes to storage: presign (as media or as a thumbnail), then the streaming PUT with
// its retries, reporting started / progress / retrying / uploaded. Shared by the engine and by
// `edit --thumbnail`.
import { performance } from 'node:perf_hooks';
import type { Transport } from '../../api/undici.js';
import type { RetryPolicy } from '../../api/retry.js';
import type { CallOptions } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { PresignRequest, PresignResponse } from '../../api/schemas.js';
import { CONTROL_CHARACTERS } from '../../api/schemas.js';
import { asksForParts } from '../../rules/parts.js';
import type { ContentType } from '../../rules/rules.js';
import { type EmitFn, type FileRef, StepError } from './events.js';
import { NoPartsEndpointError, type SentPart } from './multipart.js';
import { presignAndPut } from './put.js';
import type { FileReads } from './file-reads.js';

/** A file to send, as the plan describes it (src/upload/plan/decide.ts PlannedFile fits). */
export interface SendableFile {
  path: string;
  name: string;
  size: number;
  mtimeMs: number;
  /** MIME type of the bytes' real format: what presign signs and the PUT sends. */
  contentType: string;
  durationSeconds?: number;
}

/** How a file is described to the service, the same to presign and to complete (which refuses any difference). */
export interface WireFile {
  fileName: string;
  contentType: string;
  fileSize: number;
}

/** The file as presign and complete describe it; `type` for media (a thumbnail's presign has none). */
export function wireFile(file: SendableFile): WireFile;
export function wireFile(file: SendableFile, type: ContentType): WireFile & { type: ContentType };
export function wireFile(file: SendableFile, type?: ContentType): WireFile & { type?: ContentType } {
  return {
    fileName: wireFileName(file.name),
    contentType: file.contentType,
    fileSize: file.size,
    ...(type ? { type } : {}),
  };
}

export interface TransferDeps {
  api: {
    dispatcher: Transport;
    presign(body: PresignRequest, o?: CallOptions): Promise<PresignResponse>;
  };
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  policy: RetryPolicy;
  random?: () => number;
  /** Monotonic milliseconds, for throttling progress events. */
  clock?: () => number;
  /** At most one progress event per file this often (the first and last are always sent). */
  progressIntervalMs?: number;
}

/** For the engine's journal, which records each key. */
export interface TransferHooks {
  /** A presign answered (each one: an expired URL is presigned again). */
  onPresigned?: (presigned: PresignResponse) => void;
  /**
   * What stops a presign already asked, when not `signal`: a file found in the library while its
   * presign is on its way lets the presign answer (its upload is then known, and aborted) rather
   * than leave an upload the service opened behind (./hash-alongside.ts).
   */
  presignSignal?: AbortSignal;
  /**
   * Bytes just handed to the connection (every try counts: a retried PUT sends its bytes again).
   * The engine's bytesSent adds these, so that an interrupted run counts what was on the wire.
   */
  onBytes?: (bytes: number) => void;
  /**
   * The file's SHA-256, declared at presign (an extension) so the store refuses bytes changed on
   * the way; `declares()` false leaves it out, and `refused()` is told when the service answers
   * 400 to the field (it has no such extension): presign is then sent again without it.
   */
  checksum?: { sha256: string | undefined; declares(): boolean; refused(): void };
  /**
   * Multipart (an extension, docs/api.md): presign asks for parts while `asks()`; `refused()` is
   * told when the service answers 400 to the field (presign is then sent again without it). When
   * the answer offers parts, `send` sends them (./multipart.ts) instead of the single PUT; it
   * rejects with NoPartsEndpointError when the service cannot take parts after all.
   */
  multipart?: {
    asks(): boolean;
    refused(): void;
    send(presigned: PresignResponse & { multipart: { partSize: number; partCount: number } }): Promise<SentPart[]>;
  };
  /** Told what the single PUT reads, as it reads it: a hash fed from those bytes (./hash-fed.ts). */
  reads?: FileReads;
}

/** What was sent: the presign whose upload succeeded, and the parts' ETags when it went as parts. */
export type Transferred = PresignResponse & { parts?: SentPart[] };

/** A 400 naming `field`: a service that keeps to the spec's presign and refuses unknown fields. */
function refusesField(err: unknown, field: string): boolean {
  if (!(err instanceof ApiError) || err.status !== 400) return false;
  const named = (d: unknown) => typeof d === 'object' && d !== null && JSON.stringify(d).includes(field);
  return err.message.includes(field) || err.details.some(named);
}

/** A 400 naming the sha256 field: a service that keeps to the spec's presign and refuses unknown fields. */
export function refusesChecksumField(err: unknown): boolean {
  return refusesField(err, 'sha256');
}

/**
 * presign → PUT for one file; resolves with the presign whose PUT succeeded (complete needs its
 * key). Fails with a StepError naming the step that failed: 'presign' or 'put'.
 */
export async function transferFile(
  file: SendableFile,
  ref: FileRef,
  as: { type: ContentType } | { thumbnail: true },
  deps: TransferDeps,
  emit: EmitFn,
  signal: AbortSignal,
  hooks: TransferHooks = {},
): Promise<Transferred> {
  const plain: PresignRequest = 'thumbnail' in as ? { ...wireFile(file), thumbnail: true } : wireFile(file, as.type);
  // Parts only for media of more than one part's size; a thumbnail is never sent in parts.
  const parts = 'thumbnail' in as || !asksForParts(file.size) ? undefined : hooks.multipart;
  const declared = (): PresignRequest => {
    const sha256 = hooks.checksum?.declares() ? hooks.checksum.sha256 : undefined;
    return { ...plain, ...(sha256 ? { sha256 } : {}), ...(parts?.asks() ? { multipart: true } : {}) };
  };
  const clock = deps.clock ?? (() => performance.now());
  const interval = deps.progressIntervalMs ?? 100;
  const started = clock();
  let lastEmit = -Infinity;
  // `started` when the bytes start (the PUT's first try), not before presign: a file whose
  // presign fails was never started, and says so with its `failed` event alone.
  let begun = false;
  let lastSent = 0;
  // A fresh presign for an expired URL happens inside the PUT's retries: what fails is the step
  // last begun. (The presign's own error is not wrapped there: the PUT's retry loop classifies it.)
  let step: 'presign' | 'put' = 'presign';
  const options: CallOptions = {
    signal: hooks.presignSignal ?? signal,
    onRetry: ({ attempt, delayMs, error }) =>
      emit({ type: 'retrying', step: 'presign', file: ref, attempt, delayMs, reason: reasonOf(error) }),
  };
  const presign = async () => {
    step = 'presign';
    const body = declared();
    const presigned = await deps.api.presign(body, options).catch(async (err: unknown) => {
      // A strict spec service refuses an extension's field: drop it, remember, and ask again.
      if ('multipart' in body && refusesField(err, 'multipart')) {
        parts?.refused();
        const { multipart: _, ...without } = body;
        return deps.api.presign(without, options).catch((again: unknown) => {
          if (!('sha256' in without) || !refusesChecksumField(again)) throw again;
          hooks.checksum?.refused();
          return deps.api.presign(plain, options);
        });
      }
      if (!('sha256' in body) || !refusesChecksumField(err)) throw err;
      hooks.checksum?.refused();
      const { sha256: _, ...without } = body;
      return deps.api.presign(without, options);
    });
    hooks.onPresigned?.(presigned);
    step = 'put';
    return presigned;
  };
  const onSent = (sent: number) => {
    if (!begun) {
      begun = true;
      emit({ type: 'started', file: ref });
    }
    // A retry starts again from byte 0: what it sends is counted afresh.
    if (sent < lastSent) lastSent = 0;
    if (sent > lastSent) hooks.onBytes?.(sent - lastSent);
    lastSent = sent;
    const t = clock();
    if (sent === 0 || sent === file.size || t - lastEmit >= interval) {
      lastEmit = t;
      emit({ type: 'progress', file: ref, sent });
    }
  };
  try {
    // Offered parts: they go instead of the single PUT (whose URL the answer carries too, for a
    // service that offers parts but then cannot take them).
    let offered: PresignResponse | undefined;
    if (parts?.asks()) {
      offered = await presign();
      // Stopped while presign was answered (its upload is known to the caller now): nothing sent.
      signal.throwIfAborted();
      const plan = offered.multipart;
      if (plan) {
        try {
          return { ...offered, parts: await parts.send({ ...offered, multipart: plan }) };
        } catch (err) {
          if (!(err instanceof NoPartsEndpointError)) throw err;
          parts.refused();
          begun = true; // `started` was said as the parts began; the single PUT goes on from there
        }
      }
    }
    const presigned = await presignAndPut(file, file.contentType, {
      dispatcher: deps.api.dispatcher,
      now: deps.now,
      sleep: deps.sleep,
      policy: deps.policy,
      random: deps.random,
      signal,
      // The answer in hand is used first: a fresh one only for an expired URL.
      presign: () => {
        const first = offered;
        offered = undefined;
        return first ? Promise.resolve(first) : presign();
      },
      onSent,
      ...(hooks.reads ? { reads: hooks.reads } : {}),
      onRetry: ({ attempt, delayMs, reason }) =>
        emit({ type: 'retrying', step: 'put', file: ref, attempt, delayMs, reason }),
    });
    emit({ type: 'uploaded', file: ref, ms: Math.round(clock() - started) });
    return presigned;
  } catch (err) {
    throw new StepError(step, err);
  }
}

export function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const CONTROLS = new RegExp(CONTROL_CHARACTERS.source, 'g');

/**
 * The name the service is told: it refuses control and direction characters in names (they can
 * split a log line or disguise an extension), while a creator's disk may hold a file named with a
 * newline or a tab. Such a file is still uploaded, under its name with each of them as `_`;
 * everything local (the journal, the output) keeps the real name, escaped where printed.
 */
function wireFileName(name: string): string {
  return name.replace(CONTROLS, '_');
}
