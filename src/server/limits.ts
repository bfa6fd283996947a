// The server's protective limits in one place, with their defaults: how long a dependency may
// take, how much a key may hold reserved, how slowly a PUT body may arrive, how many requests a
// key may make. `serve` flags override some of them (docs/deploy.md, Timeouts and limits).
import { GB, MB } from '../rules/rules.js';

export interface Timeouts {
  /** Each database statement, and waiting for a connection (at most CONNECT_TIMEOUT_MS of it). */
  databaseMs: number;
  /** Each call to the object store (S3 request, retries included; a disk operation). */
  storageMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { databaseMs: 10_000, storageMs: 10_000 };

/** Opening a database connection never waits longer than this (nor longer than databaseMs). */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A transaction left open by a process that stopped (frozen, not dead) releases its row locks
 * after this long, so one frozen instance cannot block the others.
 */
export const IDLE_IN_TRANSACTION_MS = 30_000;

/** What a key may hold reserved (presigned, not yet stored or completed) at once. */
export interface ReservationLimits {
  /** Bytes a brand may hold: stored, completed and recently reserved uploads (thumbnails apart). */
  quotaBytes: number;
  /** Bytes of thumbnails a brand may hold: attached, stored, or recently reserved. */
  thumbnailQuotaBytes: number;
  /**
   * Bytes one key may hold in reservations whose URL still works; a key with none may always
   * reserve one file, whatever its size.
   */
  keyReservedBytes: number;
  /** Uploads one key may hold reserved whose URL still works. */
  keyReservedUploads: number;
  /**
   * A reservation counts towards the brand's quota this long after its presign, unless its
   * bytes were stored (or completed) by then: presigns alone cannot hold a brand's quota.
   */
  reservationWindowMs: number;
}

/** A few full-size thumbnails always fit, whatever the quota. */
const MIN_THUMBNAIL_QUOTA = 100 * MB;

export function reservationLimits(quotaBytes: number, o: Partial<ReservationLimits> = {}): ReservationLimits {
  return {
    quotaBytes,
    // A tenth of the quota: thumbnails are small, and a brand has at most one per item.
    thumbnailQuotaBytes: Math.max(MIN_THUMBNAIL_QUOTA, Math.floor(quotaBytes / 10)),
    // A quarter of the quota (at most 16 GiB): one key's presigns leave three quarters to the others.
    keyReservedBytes: Math.min(16 * GB, Math.floor(quotaBytes / 4)),
    // The CLI holds at most 4 × --concurrency files presigned (64 at --concurrency 16).
    keyReservedUploads: 100,
    reservationWindowMs: 5 * 60_000,
    ...o,
  };
}

/** Storage PUT bodies on the built-in disk store (S3 enforces its own). */
export interface PutLimits {
  /** At least this many bytes a second, measured over each `rateWindowMs`, or the PUT is cut. */
  minBytesPerSecond: number;
  rateWindowMs: number;
  /** No PUT body takes longer than this, however fast it goes. */
  maxMs: number;
  /** PUTs one API key may have in flight at once (the CLI sends --concurrency at a time). */
  perKey: number;
}

export const DEFAULT_PUT_LIMITS: PutLimits = {
  minBytesPerSecond: 4 * 1024,
  rateWindowMs: 30_000,
  maxMs: 4 * 60 * 60_000,
  perKey: 32,
};

/**
 * File descriptors kept free for what must keep working under load: health probes, API requests,
 * the database, logs. A PUT (a socket and a file) is refused with 503 before it would eat into them.
 */
export const FD_RESERVE = 64;

export interface RateLimit {
  max: number;
  windowMs: number;
}

/** `serve --rate-limit`'s default on PostgreSQL (a team's service): generous for a person, stops a loop. */
export const TEAM_RATE_LIMIT: RateLimit = { max: 10_000, windowMs: 60_000 };

/** Requests without a valid key, per client address, whenever a rate limit is on. */
export const UNAUTHENTICATED_RATE_LIMIT: RateLimit = { max: 100, windowMs: 60_000 };
