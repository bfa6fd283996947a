// What the routes share: the dependencies buildApp was given, and the repositories over them.
import { keyLocks } from './key-lock.js';
import { type PutLimits, type RateLimit, type ReservationLimits, reservationLimits } from './limits.js';
import type { Repo } from './repo/interface.js';
import type { Reserve } from './reserve.js';
import type { DiskStorage } from './storage/disk.js';
import type { DiskParts } from './storage/disk-parts.js';
import type { MultipartStore } from './storage/interface.js';
import type { Storage } from './storage/interface.js';

/** The disk store's ways in for a PUT's body: the one receiver's (routes/storage.ts) dependency. */
export interface DiskReceiver {
  /** A single PUT's body into its staging object (DiskStorage.receive). */
  object: DiskStorage['receive'];
  /** One part's body into its upload's data file (DiskParts.receive, an extension). */
  part: DiskParts['receive'];
}

export interface AppDeps {
  /** Metadata: SQLite (embedded) or PostgreSQL (many instances). */
  repo: Repo;
  storage: Storage;
  /** Set when this server is itself the object store: it receives PUTs and serves GETs (/storage). */
  disk?: DiskStorage;
  /** Set with `disk`: where its PUTs' bodies land, single and part, behind the outage guard (routes/storage.ts). */
  receiver?: DiskReceiver;
  /** The store's multipart uploads, when it has them (Storage.multipart; on disk `parts`), guarded. */
  multipart?: MultipartStore;
  /** Disk space held back so that a DELETE still works on a full disk. */
  reserve?: Reserve;
  /** HMAC key of the disk storage's URLs (verified by the /storage routes). */
  secret: Buffer;
  now: () => Date;
  /** Bytes a brand may hold (stored + pending, thumbnails excepted). */
  quotaBytes: number;
  /** What one key may hold reserved, and the thumbnails' own quota (defaults: reservationLimits). */
  reservations?: Partial<Omit<ReservationLimits, 'quotaBytes'>>;
  /** Slow and concurrent storage PUTs on the disk store (defaults: DEFAULT_PUT_LIMITS). */
  putLimits?: Partial<PutLimits>;
  /** The process's open-file limit, when known better than /proc/self/limits says. */
  fileLimit?: number;
  urlLifetimeSeconds: number;
  /** How long audit entries are kept (the sweeper deletes older ones). */
  auditRetentionMs: number;
  rateLimit?: RateLimit;
  /** Milliseconds a connection may stay silent before it is closed (default IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  /** The background maker of posters and previews (src/server/previews/worker.ts), told after each complete. */
  previews?: { nudge(): void };
  /** Where unexpected (500) errors are reported, with the request's id; they never reach a response body. */
  onInternalError?: (err: unknown, requestId?: string) => void;
}

export function createServices(deps: AppDeps) {
  const { repo } = deps;

  /** Removes objects whose rows are gone (already recorded in pending_deletions); failures stay for the sweeper. */
  async function removeObjects(objectKeys: readonly string[]): Promise<void> {
    for (const key of objectKeys) {
      try {
        await deps.storage.delete(key);
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

  // One complete (or thumbnail attach) of a key at a time in this process: the second sees the
  // first one's result instead of racing it for the staging object.
  const oneAtATime = keyLocks();

  const inFlight = () => running.size;

  const limits = reservationLimits(deps.quotaBytes, deps.reservations);

  return { deps, repo, limits, removeObjects, track, drain, inFlight, oneAtATime };
}
export type Services = ReturnType<typeof createServices>;
