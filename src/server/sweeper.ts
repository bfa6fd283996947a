// Housekeeping: uploads presigned but never completed (after their URL expired and a grace
// period for a late complete), staging objects no open upload owns (a PUT that landed after
// its upload was completed, attached or deleted), stray `.part` files of interrupted PUTs,
// objects whose deletion failed earlier, and the disk space held in reserve. Runs at start and
// then on an unref'd interval.
import type { Services } from './context.js';
import { fileIdOfStagingKey, stagingKeyOf } from './storage/interface.js';

/** A PUT that finished just before its URL expired may still be completed for this long. */
export const COMPLETE_GRACE_MS = 60 * 60 * 1000;
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface SweepReport {
  uploads: number;
  staging: number;
  tempFiles: number;
  objects: number;
}

export async function sweep(s: Services): Promise<SweepReport> {
  const now = s.deps.now();
  await s.deps.reserve?.ensure();
  const abandoned = s.uploads.abandoned(now.getTime() - COMPLETE_GRACE_MS);
  if (abandoned.length > 0) {
    s.deps.db
      .transaction(() => {
        for (const u of abandoned) s.uploads.remove(u.key);
        // Its bytes may be in staging, or already promoted by a complete that never committed.
        s.deletions.add(
          abandoned.flatMap((u) => [u.key, stagingKeyOf(u.fileId)]),
          now.toISOString(),
        );
      })
      .immediate();
  }
  const staging = await sweepStaging(s);
  // `.part` files live no longer than a URL may be used (live ones are skipped anyway).
  const before = new Date(now.getTime() - s.deps.urlLifetimeSeconds * 1000);
  const tempFiles = s.deps.disk ? await s.deps.disk.sweepTemp(before) : 0;
  const pending = s.deletions.all();
  await s.removeObjects(pending);
  const left = new Set(s.deletions.all());
  return { uploads: abandoned.length, staging, tempFiles, objects: pending.filter((k) => !left.has(k)).length };
}

/** Staging objects whose upload is gone, completed or attached can never be promoted: removed now. */
async function sweepStaging(s: Services): Promise<number> {
  let removed = 0;
  for (const key of await s.deps.storage.listStaging()) {
    const fileId = fileIdOfStagingKey(key);
    const upload = fileId ? s.uploads.getByFileId(fileId) : null;
    if (upload && !upload.completedAt && !upload.itemId) continue;
    await s.deps.storage.delete(key);
    removed++;
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
  const tick = () => {
    running = sweep(s).then(
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
    await running;
  };
}
