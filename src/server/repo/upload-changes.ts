// Reserving, aborting and abandoning uploads, decided once for both databases (./steps.ts, like
// ./completion.ts): the decisions ask for steps; SQLite answers them under its write lock,
// PostgreSQL over one connection with row locks.
import type { ReservationLimits } from '../limits.js';
import type { ItemSteps } from './item-changes.js';
import { type Holdings, type ReservationRefusal, judgeReservation } from './reservations.js';
import { type Decision, stepsOf } from './steps.js';
import type { NewUpload, ObjectKeysOf, Upload, UploadRef } from './uploads.js';

/** The small operations of an upload's changes, each run inside the change's transaction. */
export interface UploadSteps extends Pick<ItemSteps, 'queueDeletions'> {
  /**
   * Holds the brand's quota until the transaction ends: two presigns of one brand cannot both fit
   * the last bytes (PostgreSQL locks the brand's row; SQLite's write lock holds it already).
   */
  lockQuota(brandId: string): void;
  /** The brand's and the key's holdings (./reservations.ts). */
  holdings(brandId: string, keyId: string | null, nowMs: number, limits: ReservationLimits): Holdings;
  insertUpload(u: NewUpload): void;
  /** Deletes the upload's row if it is still open (not completed nor attached); what it was, or null. */
  removeOpenUpload(key: string): Upload | null;
  /**
   * Deletes the uploads never completed nor attached whose URL expired before `beforeMs` (on
   * PostgreSQL skipping rows a complete in progress holds); what they were.
   */
  removeAbandoned(beforeMs: number): UploadRef[];
}

const step = stepsOf<UploadSteps>();

export type Reservation = { ok: true } | { ok: false; refusal: ReservationRefusal };

/** Records a presigned upload if the brand's quota and the key's limits allow it (./reservations.ts). */
export function* reserveUpload(
  u: NewUpload,
  limits: ReservationLimits,
  nowMs: number,
): Decision<UploadSteps, Reservation> {
  yield* step('lockQuota', u.brandId);
  const refusal = judgeReservation(u, yield* step('holdings', u.brandId, u.keyId, nowMs, limits), limits);
  if (refusal) return { ok: false, refusal };
  yield* step('insertUpload', u);
  return { ok: true };
}

/** Closes an open upload now: its row goes and its objects are queued for deletion. What it was, or null. */
export function* abortUpload(
  key: string,
  at: string,
  objectKeysOf: ObjectKeysOf,
): Decision<UploadSteps, Upload | null> {
  const open = yield* step('removeOpenUpload', key);
  if (open) yield* step('queueDeletions', objectKeysOf(open), at);
  return open;
}

/** The uploads whose URL expired before `beforeMs` unused go, their objects to the outbox; how many. */
export function* abandonUploads(
  beforeMs: number,
  at: string,
  objectKeysOf: ObjectKeysOf,
): Decision<UploadSteps, number> {
  const abandoned = yield* step('removeAbandoned', beforeMs);
  yield* step('queueDeletions', abandoned.flatMap(objectKeysOf), at);
  return abandoned.length;
}
