// What the routes share: the dependencies buildApp was given, and the repositories over them.
import type { Db } from './db.js';
import { deletionsRepository } from './repo/deletions.js';
import { itemsRepository } from './repo/items.js';
import { keysRepository } from './repo/keys.js';
import { uploadsRepository } from './repo/uploads.js';
import type { Storage } from './storage.js';

export interface AppDeps {
  db: Db;
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
  const items = itemsRepository(deps.db);
  const uploads = uploadsRepository(deps.db);
  const keys = keysRepository(deps.db);
  const deletions = deletionsRepository(deps.db);

  /** Removes objects whose rows are gone (already recorded in pending_deletions); failures stay for the sweeper. */
  async function removeObjects(objectKeys: readonly string[]): Promise<void> {
    for (const key of objectKeys) {
      try {
        await deps.storage.remove(key);
        deletions.done(key);
      } catch (err) {
        deletions.failed(key, err instanceof Error ? err.message : String(err));
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

  return { deps, items, uploads, keys, deletions, removeObjects, track, drain, inFlight };
}
export type Services = ReturnType<typeof createServices>;
