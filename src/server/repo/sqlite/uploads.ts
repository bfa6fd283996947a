// Uploads on SQLite: one row per presigned key (../uploads.ts says what it holds).
import type { Db } from './db.js';
import type { ReservationLimits } from '../../limits.js';
import { type Holdings, holdingsParams, holdingsSql } from '../reservations.js';
import { NEW_UPLOAD_COLUMNS, type NewUpload, type Upload, type UploadRef, newUploadValues } from '../uploads.js';

const COLUMNS = `key, file_id AS fileId, brand_id AS brandId, user_id AS userId, file_name AS fileName,
  content_type AS contentType, file_size AS fileSize, thumbnail, expires_at AS expiresAt,
  created_at AS createdAt, stored_at AS storedAt, completed_at AS completedAt, item_id AS itemId,
  file_record_id AS fileRecordId, key_id AS keyId, sha256, part_size AS partSize, multipart_id AS multipartId`;

function toUpload(row: Record<string, unknown> | undefined): Upload | null {
  if (!row) return null;
  return { ...(row as unknown as Upload), thumbnail: row.thumbnail === 1 };
}

export function sqliteUploads(db: Db) {
  const byKey = db.prepare(`SELECT ${COLUMNS} FROM uploads WHERE key = ?`);

  const byFileId = db.prepare(`SELECT ${COLUMNS} FROM uploads WHERE file_id = ?`);
  const holdingsQuery = db.prepare(holdingsSql('sqlite'));
  const openByFileId = db.prepare(
    `SELECT ${COLUMNS} FROM uploads
      WHERE file_id = ? AND completed_at IS NULL AND item_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = uploads.key_id
                          AND (k.revoked_at IS NOT NULL OR k.expires_at <= ?))`,
  );

  function insert(u: NewUpload): void {
    // SQLite keeps booleans as 0 and 1.
    const values = newUploadValues(u).map((v) => (typeof v === 'boolean' ? Number(v) : v));
    db.prepare(`INSERT INTO uploads (${NEW_UPLOAD_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`).run(
      ...values,
    );
  }

  /** The upload whose staging object is `staging/<fileId>`. */
  function getByFileId(fileId: string): Upload | null {
    return toUpload(byFileId.get(fileId) as Record<string, unknown> | undefined);
  }

  /**
   * The upload a presigned PUT may still write: not completed, not attached as a thumbnail, and
   * its API key not revoked. Null once complete, PATCH, DELETE, the sweeper or revocation closed it.
   */
  function openForPut(fileId: string, at: string): Upload | null {
    return toUpload(openByFileId.get(fileId, at) as Record<string, unknown> | undefined);
  }

  function get(key: string): Upload | null {
    return toUpload(byKey.get(key) as Record<string, unknown> | undefined);
  }

  function markStored(key: string, at: string): void {
    db.prepare('UPDATE uploads SET stored_at = ? WHERE key = ?').run(at, key);
  }

  /** After a rejected object (magic bytes) was removed: the upload may be PUT again. */
  function markNotStored(key: string): void {
    db.prepare('UPDATE uploads SET stored_at = NULL WHERE key = ?').run(key);
  }

  function markCompleted(key: string, at: string, itemId: string, fileRecordId: string | null): void {
    db.prepare('UPDATE uploads SET completed_at = ?, item_id = ?, file_record_id = ? WHERE key = ?').run(
      at,
      itemId,
      fileRecordId,
      key,
    );
  }

  /** The thumbnail belongs to the item and is completed: its URL is closed. */
  function attachThumbnail(key: string, itemId: string, at: string): void {
    db.prepare('UPDATE uploads SET item_id = ?, completed_at = ? WHERE key = ?').run(itemId, at, key);
  }

  /** A multipart upload still in use keeps its row (and its parts) until `expiresAt` at least. */
  function renew(key: string, expiresAt: number): void {
    db.prepare('UPDATE uploads SET expires_at = MAX(expires_at, ?) WHERE key = ?').run(expiresAt, key);
  }

  /** Removes the upload if it is still open (not completed nor attached); what it was, or null. */
  function removeOpen(key: string): Upload | null {
    const open = toUpload(
      db
        .prepare(`SELECT ${COLUMNS} FROM uploads WHERE key = ? AND completed_at IS NULL AND item_id IS NULL`)
        .get(key) as Record<string, unknown> | undefined,
    );
    if (open) db.prepare('DELETE FROM uploads WHERE key = ?').run(key);
    return open;
  }

  /** Removes the upload; what it was, or null when there was none. */
  function remove(key: string): UploadRef | null {
    const removed = db.prepare('SELECT key, file_id AS fileId FROM uploads WHERE key = ?').get(key) as
      UploadRef | undefined;
    if (removed) db.prepare('DELETE FROM uploads WHERE key = ?').run(key);
    return removed ?? null;
  }

  /** Removes every upload attached to the item (main file, carousel images, thumbnail) and returns them. */
  function removeOfItem(itemId: string): UploadRef[] {
    const attached = db
      .prepare('SELECT key, file_id AS fileId FROM uploads WHERE item_id = ?')
      .all(itemId) as UploadRef[];
    db.prepare('DELETE FROM uploads WHERE item_id = ?').run(itemId);
    return attached;
  }

  /** The brand's and the key's holdings, for judging a reservation (./reservations.ts). */
  function holdings(brandId: string, keyId: string | null, nowMs: number, limits: ReservationLimits): Holdings {
    return holdingsQuery.get(holdingsParams(brandId, keyId, nowMs, limits)) as Holdings;
  }

  /** Removes the uploads never completed (nor attached as a thumbnail) whose URL expired before `beforeMs`; what they were. */
  function removeAbandoned(beforeMs: number): UploadRef[] {
    const where = 'completed_at IS NULL AND item_id IS NULL AND expires_at < ?';
    const abandoned = db
      .prepare(`SELECT key, file_id AS fileId FROM uploads WHERE ${where}`)
      .all(beforeMs) as UploadRef[];
    db.prepare(`DELETE FROM uploads WHERE ${where}`).run(beforeMs);
    return abandoned;
  }

  /** The multipart ones among `removeAbandoned(beforeMs)`: their store uploads, for the sweeper to abort. */
  function abandonedMultipart(beforeMs: number): Array<{ fileId: string; multipartId: string }> {
    return db
      .prepare(
        `SELECT file_id AS fileId, multipart_id AS multipartId FROM uploads
          WHERE completed_at IS NULL AND item_id IS NULL AND expires_at < ? AND multipart_id IS NOT NULL`,
      )
      .all(beforeMs) as Array<{ fileId: string; multipartId: string }>;
  }

  return {
    abandonedMultipart,
    insert,
    get,
    getByFileId,
    openForPut,
    markStored,
    markNotStored,
    markCompleted,
    attachThumbnail,
    renew,
    removeOpen,
    remove,
    removeOfItem,
    holdings,
    removeAbandoned,
  };
}
