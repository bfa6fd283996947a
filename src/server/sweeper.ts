// Housekeeping: uploads presigned but never completed (after their URL expired and a grace
// period for a late complete), stray temp files of interrupted PUTs, and objects whose deletion
// failed earlier. Runs at start and then on an unref'd interval.
import type { Services } from './context.js';

/** A PUT that finished just before its URL expired may still be completed for this long. */
export const COMPLETE_GRACE_MS = 60 * 60 * 1000;
/** Temp files untouched this long belong to no live PUT (live ones are skipped anyway). */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface SweepReport {
  uploads: number;
  tempFiles: number;
  objects: number;
}

export async function sweep(s: Services): Promise<SweepReport> {
  const now = s.deps.now();
  const abandoned = s.uploads.abandoned(now.getTime() - COMPLETE_GRACE_MS);
  if (abandoned.length > 0) {
    s.deps.db
      .transaction(() => {
        for (const key of abandoned) s.uploads.remove(key);
        s.deletions.add(abandoned, now.toISOString());
      })
      .immediate();
  }
  const tempFiles = await s.deps.storage.sweepTemp(now.getTime() - TEMP_MAX_AGE_MS);
  const pending = s.deletions.all();
  await s.removeObjects(pending);
  const left = new Set(s.deletions.all());
  return { uploads: abandoned.length, tempFiles, objects: pending.filter((k) => !left.has(k)).length };
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
