// Items stored before checksums were kept have none (their rows' sha256 is NULL, and the API shows
// null): the sweeper fills them in from the stored objects, a batch per sweep, hashing each object
// through Storage's ranged reads (stored-file.ts), so it works alike on disk and S3. A sweep stops
// between objects when the server stops, and spends at most BACKFILL_BUDGET_MS; what is left waits
// for the next one. An object that cannot be read (gone) is skipped for the life of the process.
import type { Services } from './context.js';
import type { MissingChecksum } from './repo/interface.js';
import { sha256OfObject } from './stored-file.js';

const BATCH = 50;
/** A sweep's time for hashing: the rest waits for the next sweep (every 10 minutes). */
export const BACKFILL_BUDGET_MS = 60_000;

/** Keys that could not be hashed, per server: not asked for again by its later sweeps. */
const unreadable = new WeakMap<Services, Set<string>>();

/** Fills in missing checksums until none is left, the budget is spent or `signal` aborts; returns how many. */
export async function backfillChecksums(s: Services, signal?: AbortSignal, budgetMs = BACKFILL_BUDGET_MS) {
  const skip = unreadable.get(s) ?? new Set<string>();
  unreadable.set(s, skip);
  const started = Date.now();
  let filled = 0;
  for (;;) {
    const batch = (await s.repo.missingChecksums(BATCH + skip.size)).filter((m) => !skip.has(m.key));
    if (batch.length === 0) return filled;
    for (const m of batch.slice(0, BATCH)) {
      if (signal?.aborted || Date.now() - started > budgetMs) return filled;
      if (await fill(s, m, signal)) filled++;
      else if (!signal?.aborted) skip.add(m.key);
    }
  }
}

async function fill(s: Services, m: MissingChecksum, signal?: AbortSignal): Promise<boolean> {
  const { storage } = s.deps;
  try {
    const head = await storage.head(m.key);
    if (!head) return false;
    await s.repo.recordChecksum(m, head.sha256 ?? (await sha256OfObject({ storage, key: m.key, head }, signal)));
    return true;
  } catch {
    // Replaced or deleted while it was read: the row no longer names it, or the next sweep tries again.
    return false;
  }
}
