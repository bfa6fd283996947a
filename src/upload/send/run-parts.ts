// A run's multipart side (issue 28), beside the multipart transfer (./multipart.ts): what that
// transfer needs of the run (`multipartContext`), the parts an earlier run sent of a file, as its
// journal kept them (`journalParts`), forgetting them when the file is sent afresh
// (`forgetParts`), and the bytes of parts the service keeps for the next run (`bytesKept`).
import { createPool } from '../../concurrency/pool.js';
import { PART_CONCURRENCY } from '../../rules/parts.js';
import { type MultipartContext, type SentPart, abortQuietly } from './multipart.js';
import type { Run } from './run.js';
import type { SendableFile } from './transfer.js';

/** What the multipart transfer needs of the run; undefined when the service cannot take parts. */
export function multipartContext(run: Run): MultipartContext | undefined {
  const { api } = run.deps;
  if (run.noParts || !api.parts || !api.abortUpload) return undefined;
  const partConcurrency = run.deps.partConcurrency ?? PART_CONCURRENCY.default;
  run.parts ??= { pool: createPool(partConcurrency, run.signal) };
  return {
    api: { parts: api.parts, abortUpload: api.abortUpload },
    dispatcher: api.dispatcher,
    journal: run.deps.journal,
    partConcurrency,
    partPool: run.parts.pool,
    policy: run.deps.policy,
    sleep: run.deps.sleep,
    now: run.deps.now,
    emit: run.emit,
    onBytes: (n) => (run.bytesSent += n),
    onHeld: (file, bytes) => run.held.set(file, bytes),
  };
}

/**
 * The parts an earlier run sent of `key` (all of them: its PUTs were done), for complete, and the
 * file's SHA-256 when it was known (complete declares it: it may never have been declared at presign).
 */
export function journalParts(run: Run, file: SendableFile, key: string): { parts?: SentPart[]; sha256?: string } {
  const rec = run.deps.journal.multipart(file.path);
  if (rec?.key !== key) return {};
  return {
    parts: rec.parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })),
    ...(rec.sha256 ? { sha256: rec.sha256 } : {}),
  };
}

/** The file is sent afresh: its multipart upload, if any, is forgotten and closed. */
export async function forgetParts(run: Run, file: SendableFile): Promise<void> {
  const rec = run.deps.journal.multipart(file.path);
  if (!rec) return;
  run.deps.journal.dropMultipart(rec.key);
  run.held.delete(file);
  const { abortUpload } = run.deps.api;
  if (abortUpload) await abortQuietly({ abortUpload }, rec.key);
}

/** The bytes of parts the service holds for files not completed: what the next run need not send. */
export function bytesKept(run: Run): { bytesKept?: number } {
  let kept = 0;
  for (const bytes of run.held.values()) kept += bytes;
  return kept > 0 ? { bytesKept: kept } : {};
}
