// Housekeeping: uploads presigned but never completed (after their URL expired and a grace
// period for a late complete), staging objects no open upload owns (a PUT that landed after
// its upload was completed, attached or deleted), stray `.part` files of interrupted PUTs,
// objects whose deletion failed earlier, the disk space held in reserve, and audit entries older
// than their retention; then the checksums of files stored before checksums were kept
// (checksum-backfill.ts), and the media facts of files stored before facts were kept
// (media-backfill.ts). Runs at start and then on an unref'd interval.
import { backfillChecksums } from './checksum-backfill.js';
import { backfillMedia } from './media-backfill.js';
import type { Services } from './context.js';
import { fileIdOfStagingKey, objectKeysOf, stagingKeyOf } from './storage/interface.js';

/** A PUT that finished just before its URL expired may still be completed for this long. */
export const COMPLETE_GRACE_MS = 60 * 60 * 1000;
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const DELETION_BATCH = 100;
/** How long a claimed deletion is this instance's: far longer than deleting a batch takes. */
const DELETION_LEASE_SECONDS = 300;

export interface SweepReport {
  uploads: number;
  staging: number;
  tempFiles: number;
  objects: number;
  /** Audit entries past their retention. */
  auditEntries: number;
  /** Stored files whose SHA-256 was computed and recorded. */
  checksums: number;
  /** Stored files whose media facts were measured and recorded (issue 39). */
  media: number;
}

/** `signal` cuts the checksums' backfill short (the server is stopping); the rest always runs. */
export async function sweep(s: Services, signal?: AbortSignal): Promise<SweepReport> {
  const now = s.deps.now();
  await s.deps.reserve?.ensure();
  // Its bytes may be in staging, or already promoted by a complete that never committed; its
  // parts in the store's multipart upload, aborted once its row is gone.
  const cutoff = now.getTime() - COMPLETE_GRACE_MS;
  const multipart = s.deps.multipart ? await s.repo.abandonedMultipart(cutoff) : [];
  const uploads = await s.repo.abandonUploads(cutoff, now.toISOString(), objectKeysOf);
  const staging = (await abortAbandoned(s, multipart)) + (await sweepStaging(s)) + (await sweepParts(s, now));
  // `.part` files live no longer than a URL may be used (live ones are skipped anyway).
  const before = new Date(now.getTime() - s.deps.urlLifetimeSeconds * 1000);
  const tempFiles = s.deps.disk ? await s.deps.disk.sweepTemp(before) : 0;
  // Claimed in batches: another instance's sweeper skips what this one holds, so each object is deleted once.
  let objects = 0;
  for (;;) {
    const claimed = await s.repo.claimDeletions(DELETION_BATCH, DELETION_LEASE_SECONDS);
    if (claimed.length === 0) break;
    await s.removeObjects(claimed);
    // Only the batch's own keys: the queue may hold many thousands after a store's outage.
    const left = new Set(await s.repo.pendingDeletions(claimed));
    const removed = claimed.filter((k) => !left.has(k)).length;
    objects += removed;
    // What failed stays queued for the next sweep, not this one.
    if (removed < claimed.length) break;
  }
  const auditEntries = await s.repo.pruneAudit(new Date(now.getTime() - s.deps.auditRetentionMs).toISOString());
  const checksums = await backfillChecksums(s, signal);
  const media = await backfillMedia(s, signal);
  return { uploads, staging, tempFiles, objects, auditEntries, checksums, media };
}

/** Staging objects whose upload is gone, completed or attached can never be promoted: removed now. */
async function sweepStaging(s: Services): Promise<number> {
  let removed = 0;
  for (const key of await s.deps.storage.listStaging()) {
    const fileId = fileIdOfStagingKey(key);
    const upload = fileId ? await s.repo.getUploadByFileId(fileId) : null;
    if (upload && !upload.completedAt && !upload.itemId) continue;
    await s.deps.storage.delete(key);
    removed++;
  }
  return removed;
}

/** The store's multipart uploads of abandoned uploads, each once its row is gone (a complete may have won the row). */
async function abortAbandoned(s: Services, abandoned: Array<{ fileId: string; multipartId: string }>): Promise<number> {
  let aborted = 0;
  for (const { fileId, multipartId } of abandoned) {
    if (await s.repo.getUploadByFileId(fileId)) continue;
    try {
      await s.deps.multipart!.abort(stagingKeyOf(fileId), multipartId);
      aborted++;
    } catch (err) {
      // Left to sweepParts' listing next time, and to the bucket's lifecycle rule (docs/deploy.md).
      s.deps.onInternalError?.(err);
    }
  }
  return aborted;
}

/**
 * The store's multipart uploads that no open upload owns (its row abandoned above, aborted,
 * completed, attached, or never recorded: a presign that failed after opening it) are aborted,
 * freeing their parts. One presigned this very moment is not recorded yet: only those opened
 * before the grace period are judged. A failed abort is reported and retried next sweep; the
 * bucket's lifecycle rule is the backstop (docs/deploy.md).
 */
async function sweepParts(s: Services, now: Date): Promise<number> {
  const multipart = s.deps.multipart;
  if (!multipart) return 0;
  let open;
  try {
    open = await multipart.listUploads();
  } catch (err) {
    s.deps.onInternalError?.(err);
    return 0;
  }
  let removed = 0;
  for (const { stagingKey, uploadId, initiated } of open) {
    if (initiated.getTime() > now.getTime() - COMPLETE_GRACE_MS) continue;
    const fileId = fileIdOfStagingKey(stagingKey);
    const upload = fileId ? await s.repo.getUploadByFileId(fileId) : null;
    if (upload && !upload.completedAt && !upload.itemId && upload.multipartId === uploadId) continue;
    try {
      await multipart.abort(stagingKey, uploadId);
      removed++;
    } catch (err) {
      s.deps.onInternalError?.(err);
    }
  }
  return removed;
}

/** Runs `sweep` now and every `intervalMs`, never keeping the process alive; returns the stopper. */
export function startSweeper(
  s: Services,
  onError: (err: unknown) => void,
  intervalMs = SWEEP_INTERVAL_MS,
  observe?: { done(report: SweepReport): void; failed(): void },
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const stopping = new AbortController();
  const tick = () => {
    running = sweep(s, stopping.signal).then(
      (report) => observe?.done(report),
      (err: unknown) => {
        observe?.failed();
        onError(err);
      },
    );
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    // Hashing old files must not hold up a stop (the embedded library stops after every command).
    stopping.abort();
    await running;
  };
}
