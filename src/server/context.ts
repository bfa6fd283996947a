// What the routes share: the dependencies buildApp was given, and the repositories over them.
import type { Repo } from './repo/interface.js';
import type { Storage } from './storage.js';

export interface AppDeps {
  /** Metadata: SQLite (embedded) or PostgreSQL (many instances). */
  repo: Repo;
  storage: Storage;
  /** HMAC key of presigned and signed-GET URLs. */
  secret: Buffer;
  now: () => Date;
  /** Bytes a brand may hold (stored + pending, thumbnails excepted). */
  quotaBytes: number;
  urlLifetimeSeconds: number;
  rateLimit?: { max: number; windowMs: number };
  /** Test only: the first `count` storage PUTs lose their connection after `dropPutAfterBytes`. */
  faults?: { dropPutAfterBytes: number; count: number };
  /** Where unexpected (500) errors are reported, with the request's id; they never reach a response body. */
  onInternalError?: (err: unknown, requestId?: string) => void;
}

export function createServices(deps: AppDeps) {
  const { repo } = deps;

  /** Removes objects whose rows are gone (already recorded in pending_deletions); failures stay for the sweeper. */
  async function removeObjects(objectKeys: readonly string[]): Promise<void> {
    for (const key of objectKeys) {
      try {
        await deps.storage.remove(key);
        await repo.deletionDone(key);
      } catch (err) {
        await repo.deletionFailed(key, err instanceof Error ? err.message : String(err));
      }
    }
  }

  // Handlers still running, even for clients that went away: close() waits for them before the
  // database is closed under their feet.
  const running = new Set<Promise<unknown>>();
  function track<T>(work: Promise<T>): Promise<T> {
    running.add(work);
    const forget = () => running.delete(work);
    work.then(forget, forget);
    return work;
  }
  async function drain(): Promise<void> {
    while (running.size > 0) await Promise.allSettled([...running]);
  }

  const inFlight = () => running.size;

  return { deps, repo, removeObjects, track, drain, inFlight };
}
export type Services = ReturnType<typeof createServices>;
