// What a presign may reserve (docs/api.md, Quota and reservations). Presigns alone used to hold
// a brand's whole quota for the URL's hour: one key's burst of presigns, without a byte sent,
// locked every teammate out, and thumbnails escaped any bound. Now:
// - the brand's quota counts what is stored or completed, plus reservations younger than the
//   reservation window: a presign whose bytes never arrive stops counting after that window;
// - one key may hold only so many reservations (uploads and bytes) whose URL still works;
// - a multipart upload (part_size set) counts until it is completed, aborted or swept: its parts
//   are bytes the store holds, whether or not the server can see them (on S3 it cannot);
// - thumbnails have a quota of their own, counted the same way (the service's contract keeps
//   them out of the brand's quota).
// One query reads a brand's holdings (the same SQL on SQLite and PostgreSQL), and one pure
// function judges a presign against them, inside the reserving transaction.
import type { ReservationLimits } from '../limits.js';

export interface Holdings {
  /** Non-thumbnail bytes the brand holds: stored, completed, or reserved within the window. */
  brandBytes: number;
  /** Thumbnail bytes the brand holds, counted the same way. */
  thumbnailBytes: number;
  /** Bytes of this key's reservations not yet stored or completed whose URL still works. */
  keyBytes: number;
  keyUploads: number;
  /** When the first of those URLs expires (Unix ms), or null when there are none. */
  keyFirstExpiry: number | null;
}

export type ReservationRefusal =
  | { kind: 'quota' | 'thumbnail_quota'; used: number; limit: number }
  | { kind: 'key_bytes' | 'key_uploads'; used: number; limit: number; retryAtMs: number };

/** Whether one more upload of `fileSize` bytes fits; the refusal says which limit it meets. */
export function judgeReservation(
  u: { fileSize: number; thumbnail: boolean },
  h: Holdings,
  limits: ReservationLimits,
): ReservationRefusal | null {
  // The brand's quota first: when it is full, deleting items is what helps, whoever asks.
  if (u.thumbnail) {
    if (h.thumbnailBytes + u.fileSize > limits.thumbnailQuotaBytes)
      return { kind: 'thumbnail_quota', used: h.thumbnailBytes, limit: limits.thumbnailQuotaBytes };
  } else if (h.brandBytes + u.fileSize > limits.quotaBytes) {
    return { kind: 'quota', used: h.brandBytes, limit: limits.quotaBytes };
  }
  const retryAtMs = h.keyFirstExpiry ?? 0;
  if (h.keyUploads >= limits.keyReservedUploads)
    return { kind: 'key_uploads', used: h.keyUploads, limit: limits.keyReservedUploads, retryAtMs };
  // A key holding nothing may always reserve one file, however large: the cap is on bursts.
  if (h.keyUploads > 0 && h.keyBytes + u.fileSize > limits.keyReservedBytes)
    return { kind: 'key_bytes', used: h.keyBytes, limit: limits.keyReservedBytes, retryAtMs };
  return null;
}

export type Dialect = 'sqlite' | 'postgres';

/**
 * The brand's and the key's holdings in one pass over the brand's uploads. Parameters: the brand,
 * the key, now (Unix ms), and the start of the reservation window (an ISO time, as created_at).
 */
export function holdingsSql(dialect: Dialect): string {
  const [brand, key, now, since] =
    dialect === 'postgres' ? ['$1', '$2', '$3', '$4'] : ['@brand', '@key', '@now', '@since'];
  const [isThumb, notThumb] =
    dialect === 'postgres' ? ['thumbnail', 'NOT thumbnail'] : ['thumbnail = 1', 'thumbnail = 0'];
  const held = `(completed_at IS NOT NULL OR stored_at IS NOT NULL OR part_size IS NOT NULL
    OR (expires_at > ${now} AND created_at > ${since}))`;
  const reserved = `(key_id = ${key} AND completed_at IS NULL AND stored_at IS NULL AND expires_at > ${now})`;
  const int = dialect === 'postgres' ? '::bigint' : '';
  return `SELECT
      COALESCE(SUM(CASE WHEN ${notThumb} AND ${held} THEN file_size END), 0)${int} AS "brandBytes",
      COALESCE(SUM(CASE WHEN ${isThumb} AND ${held} THEN file_size END), 0)${int} AS "thumbnailBytes",
      COALESCE(SUM(CASE WHEN ${reserved} THEN file_size END), 0)${int} AS "keyBytes",
      COUNT(CASE WHEN ${reserved} THEN 1 END)${int} AS "keyUploads",
      MIN(CASE WHEN ${reserved} THEN expires_at END)${int} AS "keyFirstExpiry"
    FROM uploads WHERE brand_id = ${brand}`;
}

/** The parameters of holdingsSql, in its order (PostgreSQL) or by name (SQLite). */
export function holdingsParams(
  brandId: string,
  keyId: string | null,
  nowMs: number,
  limits: ReservationLimits,
): { brand: string; key: string | null; now: number; since: string } {
  return { brand: brandId, key: keyId, now: nowMs, since: new Date(nowMs - limits.reservationWindowMs).toISOString() };
}
