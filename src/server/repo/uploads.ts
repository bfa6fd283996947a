// Uploads: one row per presigned key, from presign through PUT to complete. The row is what the
// storage PUT checks against, what complete consumes, and what the quota counts.
import type { ContentType } from '../../rules/rules.js';

export interface Upload {
  key: string;
  fileId: string;
  brandId: string;
  userId: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  thumbnail: boolean;
  /** Unix ms after which the presigned URL is refused. */
  expiresAt: number;
  createdAt: string;
  storedAt: string | null;
  completedAt: string | null;
  itemId: string | null;
  fileRecordId: string | null;
  /** The API key that presigned it (null for uploads made before keys were recorded). */
  keyId: string | null;
  /** The SHA-256 declared at presign (lower-case hex); null when the client declared none. */
  sha256: string | null;
  /** Set exactly when presign offered a multipart upload: the size of every part but the last. */
  partSize: number | null;
  /** The store's multipart upload id (S3's UploadId), set with partSize. */
  multipartId: string | null;
}

/**
 * A presigned upload's row. `type` is the type presign resolved: the column is NOT NULL (and
 * migrations only add), so it is written, but nothing reads it: complete is told the type again.
 */
export type NewUpload = Omit<Upload, 'storedAt' | 'completedAt' | 'itemId' | 'fileRecordId'> & { type: ContentType };

/** The objects an upload may have: with staging → promote, its staging object and its final one. */
export type ObjectKeysOf = (upload: UploadRef) => string[];

/** An upload's key and file id: what its objects are named from. */
export interface UploadRef {
  key: string;
  fileId: string;
}

/** Before staging: an upload's one object is its key. */
export const ownKey: ObjectKeysOf = (u) => [u.key];

/** The columns of a new upload's row, in the order of newUploadValues (SQLite and PostgreSQL). */
export const NEW_UPLOAD_COLUMNS =
  'key, file_id, brand_id, user_id, file_name, content_type, file_size, type, thumbnail, expires_at, created_at, key_id, sha256, part_size, multipart_id';

/** A new upload's values, in the order of NEW_UPLOAD_COLUMNS (thumbnail as a boolean). */
export function newUploadValues(u: NewUpload): unknown[] {
  return [
    u.key,
    u.fileId,
    u.brandId,
    u.userId,
    u.fileName,
    u.contentType,
    u.fileSize,
    u.type,
    u.thumbnail,
    u.expiresAt,
    u.createdAt,
    u.keyId,
    u.sha256,
    u.partSize,
    u.multipartId,
  ];
}
