// Uploads on PostgreSQL: the queries of ../uploads.ts in PostgreSQL's words, over a Query that is
// the pool or one transaction's connection.
import type { UploadCompletion } from '../completion.js';
import { NEW_UPLOAD_COLUMNS, type NewUpload, type Upload, type UploadRef, newUploadValues } from '../uploads.js';
import type { ReservationLimits } from '../../limits.js';
import { held } from '../held-bytes.js';
import { type Holdings, holdingsParams, holdingsSql } from '../reservations.js';
import type { Query } from './query.js';

const UPLOAD_COLUMNS = `key, file_id AS "fileId", brand_id AS "brandId", user_id AS "userId", file_name AS "fileName",
  content_type AS "contentType", file_size AS "fileSize", thumbnail, expires_at AS "expiresAt",
  created_at AS "createdAt", stored_at AS "storedAt", completed_at AS "completedAt", item_id AS "itemId",
  file_record_id AS "fileRecordId", key_id AS "keyId", sha256, part_size AS "partSize",
  multipart_id AS "multipartId"`;

export function pgUploads(q: Query) {
  async function one(where: string, value: string): Promise<Upload | null> {
    const { rows } = await q<Upload>(`SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE ${where}`, [value]);
    return rows[0] ?? null;
  }

  async function insert(u: NewUpload): Promise<void> {
    const values = newUploadValues(u);
    await q(
      `INSERT INTO uploads (${NEW_UPLOAD_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
  }

  /** The brand's and the key's holdings, for judging a reservation (../reservations.ts). */
  async function holdings(
    brandId: string,
    keyId: string | null,
    nowMs: number,
    limits: ReservationLimits,
  ): Promise<Holdings> {
    const p = holdingsParams(brandId, keyId, nowMs, limits);
    const { rows } = await q<Holdings>(holdingsSql('postgres'), [p.brand, p.key, p.now, p.since]);
    return rows[0]!;
  }

  /** What an earlier complete left on the upload's row, the row locked until the transaction ends. */
  async function lockForCompletion(key: string): Promise<UploadCompletion | null> {
    const { rows } = await q<UploadCompletion>(
      `SELECT completed_at AS "completedAt", item_id AS "itemId", file_record_id AS "fileRecordId"
         FROM uploads WHERE key = $1 FOR UPDATE`,
      [key],
    );
    return rows[0] ?? null;
  }

  async function markCompleted(key: string, at: string, itemId: string, fileRecordId: string | null): Promise<void> {
    await q('UPDATE uploads SET completed_at = $1, item_id = $2, file_record_id = $3 WHERE key = $4', [
      at,
      itemId,
      fileRecordId,
      key,
    ]);
  }

  /** The thumbnail belongs to the item and is completed: its URL is closed. */
  async function attachThumbnail(key: string, itemId: string, at: string): Promise<void> {
    await q('UPDATE uploads SET item_id = $1, completed_at = $2 WHERE key = $3', [itemId, at, key]);
  }

  /** Removes the upload if it is still open (not completed nor attached); what it was, or null. */
  async function removeOpen(key: string): Promise<Upload | null> {
    const { rows } = await q<Upload>(
      `DELETE FROM uploads WHERE key = $1 AND completed_at IS NULL AND item_id IS NULL RETURNING ${UPLOAD_COLUMNS}`,
      [key],
    );
    return rows[0] ?? null;
  }

  /** Removes the upload; what it was, or null when there was none. */
  async function remove(key: string): Promise<UploadRef | null> {
    const { rows } = await q<UploadRef>('DELETE FROM uploads WHERE key = $1 RETURNING key, file_id AS "fileId"', [key]);
    return rows[0] ?? null;
  }

  /** Removes every upload attached to the item (main file, carousel images, thumbnail) and returns them. */
  async function removeOfItem(itemId: string): Promise<UploadRef[]> {
    const { rows } = await q<UploadRef>('DELETE FROM uploads WHERE item_id = $1 RETURNING key, file_id AS "fileId"', [
      itemId,
    ]);
    return rows;
  }

  /**
   * Removes the uploads never completed (nor attached as a thumbnail) whose URL expired before
   * `beforeMs`, skipping rows another transaction holds (a complete in progress), and returns them.
   */
  async function removeAbandoned(beforeMs: number): Promise<UploadRef[]> {
    // Each held row removed lowers its brand's count (../held-bytes.ts), locking the brand's row:
    // taken first, in one order, two instances sweeping at once cannot each hold a brand the
    // other waits for (a deadlock PostgreSQL would end by failing one sweep).
    await q(
      `SELECT 1 FROM brands WHERE id IN (
         SELECT brand_id FROM uploads WHERE completed_at IS NULL AND item_id IS NULL AND expires_at < $1
           AND ${held('uploads')})
       ORDER BY id FOR NO KEY UPDATE`,
      [beforeMs],
    );
    const { rows } = await q<UploadRef>(
      `DELETE FROM uploads WHERE key IN (
         SELECT key FROM uploads WHERE completed_at IS NULL AND item_id IS NULL AND expires_at < $1
         FOR UPDATE SKIP LOCKED)
       RETURNING key, file_id AS "fileId"`,
      [beforeMs],
    );
    return rows;
  }

  /** The multipart ones among the uploads removeAbandoned(beforeMs) would take: their store uploads. */
  async function abandonedMultipart(beforeMs: number): Promise<Array<{ fileId: string; multipartId: string }>> {
    const { rows } = await q<{ fileId: string; multipartId: string }>(
      `SELECT file_id AS "fileId", multipart_id AS "multipartId" FROM uploads
        WHERE completed_at IS NULL AND item_id IS NULL AND expires_at < $1 AND multipart_id IS NOT NULL`,
      [beforeMs],
    );
    return rows;
  }

  return {
    abandonedMultipart,
    insert,
    holdings,
    get: (key: string) => one('key = $1', key),
    /** The upload whose staging object is `staging/<fileId>`. */
    getByFileId: (fileId: string) => one('file_id = $1', fileId),
    /** The upload a presigned PUT may still write: not completed nor attached, its API key not revoked. */
    openForPut: async (fileId: string, at: string): Promise<Upload | null> => {
      const { rows } = await q<Upload>(
        `SELECT ${UPLOAD_COLUMNS} FROM uploads
          WHERE file_id = $1 AND completed_at IS NULL AND item_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = uploads.key_id
                              AND (k.revoked_at IS NOT NULL OR k.expires_at <= $2))`,
        [fileId, at],
      );
      return rows[0] ?? null;
    },
    markStored: async (key: string, at: string) => {
      await q('UPDATE uploads SET stored_at = $1 WHERE key = $2', [at, key]);
    },
    /** After a rejected object (magic bytes) was removed: the upload may be PUT again. */
    markNotStored: async (key: string) => {
      await q('UPDATE uploads SET stored_at = NULL WHERE key = $1', [key]);
    },
    /** A multipart upload still in use keeps its row (and its parts) until `expiresAt` at least. */
    renew: async (key: string, expiresAt: number) => {
      await q('UPDATE uploads SET expires_at = GREATEST(expires_at, $1) WHERE key = $2', [expiresAt, key]);
    },
    removeOpen,
    lockForCompletion,
    markCompleted,
    attachThumbnail,
    remove,
    removeOfItem,
    removeAbandoned,
  };
}
