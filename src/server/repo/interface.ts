// The metadata store behind `serve`, as one async interface: better-sqlite3 for the embedded
// default (sqlite.ts) and PostgreSQL for many instances on one database (pg/repo.ts). Every
// operation that must be atomic across instances is one method here, run in one transaction by
// each implementation (row locks on PostgreSQL, the write lock on SQLite), so routes never hold
// a transaction open across an await of their own.
import type { ContentType } from '../../rules/rules.js';
import type { HeldFile, MissingChecksum } from './checksums.js';
import type { FileRow, ItemChanges, ItemRow, ListFilter, NewItem } from './items.js';
import type { Caller, KeyRow } from './keys.js';
import type { NewUpload, Upload } from './uploads.js';

export type {
  Caller,
  FileRow,
  HeldFile,
  ItemChanges,
  ItemRow,
  KeyRow,
  ListFilter,
  MissingChecksum,
  NewItem,
  NewUpload,
  Upload,
};

/** The objects an upload may have: with staging → promote, its staging object and its final one. */
export type ObjectKeysOf = (upload: { key: string; fileId: string }) => string[];

/** Before staging: an upload's one object is its key. */
export const ownKey: ObjectKeysOf = (u) => [u.key];

export interface CompleteInput {
  brandId: string;
  key: string;
  /** Add to this carousel; otherwise a new item is made. */
  contentItemId?: string;
  type: ContentType;
  title: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  durationSeconds: number | null;
  /** The stored bytes' SHA-256, verified before the bytes were promoted. */
  sha256: string;
  /** Ids for what this call may create (a retry that finds the key completed uses the first call's). */
  newItemId: string;
  newFileId: string;
  maxCarouselFiles: number;
  at: string;
}

export type CompleteResult =
  /** The item and the carousel image's file record, as the transaction left them. */
  | { kind: 'done'; item: ItemRow; file: FileRow | null }
  /** The upload is gone: swept after its URL expired, or removed with its item. */
  | { kind: 'upload_gone' }
  /** The carousel to add to was deleted (or never was the caller's). */
  | { kind: 'carousel_gone' }
  | { kind: 'carousel_full' };

export interface Repo {
  /** 'sqlite' or 'postgres' (messages and health output). */
  readonly kind: 'sqlite' | 'postgres';

  // ---- keys
  /** The caller a presented key belongs to, or null for a malformed, unknown or revoked key. */
  authenticate(key: string): Promise<Caller | null>;
  createKey(brandName: string, now: Date): Promise<{ id: string; key: string; brand: string; userId: string }>;
  listKeys(): Promise<KeyRow[]>;
  /** True when the key existed and was active. */
  revokeKey(id: string, now: Date): Promise<boolean>;

  // ---- uploads
  /**
   * Records a presigned upload when the brand's quota allows it (thumbnails do not count),
   * checked and inserted in one transaction; otherwise says how many bytes are used.
   */
  reserveUpload(u: NewUpload, quotaBytes: number, nowMs: number): Promise<{ ok: true } | { ok: false; used: number }>;
  getUpload(key: string): Promise<Upload | null>;
  /** The upload whose staging object is `staging/<fileId>`. */
  getUploadByFileId(fileId: string): Promise<Upload | null>;
  /** The upload a presigned PUT may still write: not completed nor attached, its API key not revoked. */
  openForPut(fileId: string): Promise<Upload | null>;
  markStored(key: string, at: string): Promise<void>;
  markNotStored(key: string): Promise<void>;
  /**
   * Turns a stored upload into an item or a carousel image, idempotent per key across instances:
   * the decision in ./completion.ts, run in one transaction.
   */
  complete(c: CompleteInput): Promise<CompleteResult>;

  // ---- items
  getItem(brandId: string, id: string): Promise<ItemRow | null>;
  listItems(brandId: string, f: ListFilter): Promise<{ items: ItemRow[]; hasMore: boolean }>;
  files(itemId: string): Promise<FileRow[]>;
  file(id: string): Promise<FileRow | null>;
  /**
   * Applies changes; a new thumbnailKey is attached (and its upload closed) and the previous
   * thumbnail's upload goes to the deletion outbox. Null when the item is gone; else the object
   * keys queued for deletion.
   */
  updateItem(
    brandId: string,
    id: string,
    changes: ItemChanges,
    at: string,
    objectKeysOf?: ObjectKeysOf,
  ): Promise<string[] | null>;
  /** Drops the item and its uploads, queueing every object for deletion; null when not found. */
  deleteItem(brandId: string, id: string, at: string, objectKeysOf?: ObjectKeysOf): Promise<string[] | null>;

  // ---- content identity
  /** The brand's stored files whose SHA-256 is one of `sha256s`, oldest item first. */
  heldFiles(brandId: string, sha256s: readonly string[]): Promise<HeldFile[]>;
  /** Up to `limit` stored files whose SHA-256 is not known yet (rows made before checksums were kept). */
  missingChecksums(limit: number): Promise<MissingChecksum[]>;
  /** Records a computed SHA-256, if the row still names that object and has none. */
  recordChecksum(m: MissingChecksum, sha256: string): Promise<void>;

  // ---- housekeeping
  /** Uploads never completed nor attached whose URL expired before `beforeMs` go to the outbox; returns how many. */
  abandonUploads(beforeMs: number, at: string, objectKeysOf?: ObjectKeysOf): Promise<number>;
  /**
   * Up to `limit` queued deletions this caller now owns for `leaseSeconds` (another instance's
   * sweeper skips them): each object is deleted by one instance at a time.
   */
  claimDeletions(limit: number, leaseSeconds: number): Promise<string[]>;
  deletionDone(key: string): Promise<void>;
  /** Releases the claim and records the error; the next sweep retries. */
  deletionFailed(key: string, error: string): Promise<void>;
  pendingDeletions(): Promise<string[]>;

  /** A 32-byte secret every instance shares (created once, by whichever instance comes first). */
  sharedSecret(name: string): Promise<Buffer>;
  /** Cheap round trip to the database. */
  ping(): Promise<void>;
  /** Readiness (/readyz): throws, saying why, when the database cannot be used right now. */
  check(): Promise<void>;
  /** Items by type, for the contentlib_items gauge. */
  itemsByType(): Promise<Record<string, number>>;
  /** Connections in use and waiting, for the database pool gauges. */
  poolUse(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}
