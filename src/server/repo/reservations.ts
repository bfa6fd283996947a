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
// function judges a presign against them, inside the reserving transaction. What is held until
// its row goes is kept as a count on the brand's row (./held-bytes.ts), so a presign costs the
// same however many uploads the brand has made.
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
 * The brand's and the key's holdings in one statement (so one snapshot on PostgreSQL: a PUT stored
 * meanwhile is counted once, in the held count or as a reservation, never in both or neither).
 * What stays held is the brand's count (./held-bytes.ts); the rest is bounded by time, read
 * through the indexes of the rows not yet stored: the brand's reservations younger than the
 * window, and the key's whose URL still works. Parameters: the brand, the key, now (Unix ms), and
 * the start of the reservation window (an ISO time, as created_at).
 */
export function holdingsSql(dialect: Dialect): string {
  const [brand, key, now, since] =
    dialect === 'postgres' ? ['$1', '$2', '$3', '$4'] : ['@brand', '@key', '@now', '@since'];
  const [isThumb, notThumb] =
    dialect === 'postgres' ? ['thumbnail', 'NOT thumbnail'] : ['thumbnail = 1', 'thumbnail = 0'];
  const int = dialect === 'postgres' ? '::bigint' : '';
  // The terms of uploads_reserved_brand's and uploads_reserved_key's WHERE, word for word: SQLite
  // uses a partial index only for a query that names them.
  const brandCount = (column: string) => `COALESCE((SELECT ${column} FROM brands WHERE id = ${brand}), 0)`;
  return `SELECT
      (${brandCount('held_bytes')} + COALESCE(r.bytes, 0))${int} AS "brandBytes",
      (${brandCount('held_thumbnail_bytes')} + COALESCE(r.thumbnails, 0))${int} AS "thumbnailBytes",
      COALESCE(k.bytes, 0)${int} AS "keyBytes",
      k.uploads${int} AS "keyUploads",
      k.first${int} AS "keyFirstExpiry"
    FROM (SELECT SUM(CASE WHEN ${notThumb} THEN file_size END) AS bytes,
                 SUM(CASE WHEN ${isThumb} THEN file_size END) AS thumbnails
            FROM uploads
           WHERE brand_id = ${brand} AND completed_at IS NULL AND stored_at IS NULL AND part_size IS NULL
             AND created_at > ${since} AND expires_at > ${now}) r,
         (SELECT SUM(file_size) AS bytes, COUNT(*) AS uploads, MIN(expires_at) AS first
            FROM uploads
           WHERE key_id = ${key} AND completed_at IS NULL AND stored_at IS NULL AND expires_at > ${now}) k`;
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
