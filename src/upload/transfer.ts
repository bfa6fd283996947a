// One file's bytes to storage: presign (as media or as a thumbnail), then the streaming PUT with
// its retries, reporting started / progress / retrying / uploaded. Shared by the engine and by
// `edit --thumbnail`.
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { RetryPolicy } from '../api/retry.js';
import type { CallOptions } from '../api/client.js';
import type { PresignRequest, PresignResponse } from '../api/schemas.js';
import { CONTROL_CHARACTERS } from '../api/schemas.js';
import type { ContentType } from '../rules/rules.js';
import type { EmitFn, FileRef } from './events.js';
import { presignAndPut } from './put.js';

/** A file to send, as the plan describes it (src/media/inspect.ts InspectedFile fits). */
export interface SendableFile {
  path: string;
  name: string;
  size: number;
  mtimeMs: number;
  /** MIME type of the bytes' real format: what presign signs and the PUT sends. */
  contentType?: string;
  durationSeconds?: number;
}

export interface TransferDeps {
  api: {
    dispatcher: Dispatcher;
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

/** The file's MIME type, or a clear error: the plan should never hand over a file without one. */
export function contentTypeOf(file: SendableFile): string {
  if (!file.contentType) throw new Error(`${file.name}: its format could not be determined, so it cannot be sent`);
  return file.contentType;
}

/** Where a transfer is, for the engine: the journal records each key, and a failure names its step. */
export interface TransferHooks {
  /** The step now under way: a failure thrown from here on happened in it. */
  onStep?: (step: 'presign' | 'put') => void;
  /** A presign answered (each one: an expired URL is presigned again). */
  onPresigned?: (presigned: PresignResponse) => void;
}

/** presign → PUT for one file; resolves with the presign whose PUT succeeded (complete needs its key). */
export async function transferFile(
  file: SendableFile,
  ref: FileRef,
  as: { type: ContentType } | { thumbnail: true },
  deps: TransferDeps,
  emit: EmitFn,
  signal: AbortSignal,
  hooks: TransferHooks = {},
): Promise<PresignResponse> {
  const contentType = contentTypeOf(file);
  const fileName = wireFileName(file.name);
  const body: PresignRequest =
    'thumbnail' in as
      ? { fileName, contentType, fileSize: file.size, thumbnail: true }
      : { fileName, contentType, fileSize: file.size, type: as.type };
  const clock = deps.clock ?? (() => performance.now());
  const interval = deps.progressIntervalMs ?? 100;
  const started = clock();
  let lastEmit = -Infinity;
  emit({ type: 'started', file: ref });
  const presigned = await presignAndPut(file, contentType, {
    dispatcher: deps.api.dispatcher,
    now: deps.now,
    sleep: deps.sleep,
    policy: deps.policy,
    random: deps.random,
    signal,
    presign: async () => {
      hooks.onStep?.('presign');
      const presigned = await deps.api.presign(body, {
        signal,
        onRetry: ({ attempt, delayMs, error }) =>
          emit({ type: 'retrying', step: 'presign', file: ref, attempt, delayMs, reason: reasonOf(error) }),
      });
      hooks.onPresigned?.(presigned);
      hooks.onStep?.('put');
      return presigned;
    },
    onSent: (sent) => {
      const t = clock();
      if (sent === 0 || sent === file.size || t - lastEmit >= interval) {
        lastEmit = t;
        emit({ type: 'progress', file: ref, sent });
      }
    },
    onRetry: ({ attempt, delayMs, reason }) =>
      emit({ type: 'retrying', step: 'put', file: ref, attempt, delayMs, reason }),
  });
  emit({ type: 'uploaded', file: ref, ms: Math.round(clock() - started) });
  return presigned;
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
export function wireFileName(name: string): string {
  return name.replace(CONTROLS, '_');
}
