// Items stored before media facts were kept (issue 39) have none (`media` null in the API): the
// sweeper measures them from the stored objects, as it fills in missing checksums
// (./checksum-backfill.ts): a batch per sweep, through Storage's ranged reads (disk and S3
// alike), within a time budget, stopping when the server stops. A file whose facts cannot be
// read (damaged, or gone) is skipped for the life of the process.
import type { Services } from './context.js';
import type { MissingMedia } from './repo/media.js';
import { mediaFactsOf } from './stored-file.js';

const BATCH = 50;
/** A sweep's time for measuring: the rest waits for the next sweep. */
export const MEDIA_BACKFILL_BUDGET_MS = 60_000;

const unreadable = new WeakMap<Services, Set<string>>();

/** Measures files without facts until none is left, the budget is spent or `signal` aborts; returns how many. */
export async function backfillMedia(s: Services, signal?: AbortSignal, budgetMs = MEDIA_BACKFILL_BUDGET_MS) {
  const skip = unreadable.get(s) ?? new Set<string>();
  unreadable.set(s, skip);
  const started = Date.now();
  let filled = 0;
  for (;;) {
    const batch = (await s.repo.missingMedia(BATCH + skip.size)).filter((m) => !skip.has(m.key));
    if (batch.length === 0) return filled;
    for (const m of batch.slice(0, BATCH)) {
      if (signal?.aborted || Date.now() - started > budgetMs) return filled;
      if (await fill(s, m)) filled++;
      else if (!signal?.aborted) skip.add(m.key);
    }
  }
}

async function fill(s: Services, m: MissingMedia): Promise<boolean> {
  const { storage } = s.deps;
  try {
    const head = await storage.head(m.key);
    if (!head) return false;
    // The same parsers as at complete (src/media/facts.ts, by the file's first bytes).
    const facts = await mediaFactsOf({ storage, key: m.key, head });
    if (!facts) return false;
    await s.repo.recordMedia(m, JSON.stringify(facts));
    return true;
  } catch {
    // Replaced or deleted while it was read: the row no longer names it, or the next sweep tries again.
    return false;
  }
}
