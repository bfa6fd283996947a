// The metadata store behind `serve`, as one async interface: SQLite (node:sqlite) for the embedded
// default (sqlite.ts) and PostgreSQL for many instances on one database (pg/repo.ts). Every
// operation that must be atomic across instances is one method here: a decision written once
// (./decisions.ts) that each implementation runs in one transaction (row locks on PostgreSQL, the
// write lock on SQLite), so routes never hold a transaction open across an await of their own.
import type { Actor, AuditEntry, AuditFilter, ItemAuthors } from './audit.js';
import type { CarouselChange, CarouselResult } from './carousel.js';
import type { HeldFile, MissingChecksum } from './checksums.js';
import type { MissingMedia } from './media.js';
import type { MissingPreview } from './previews.js';
import type { ItemUpdate } from './item-changes.js';
import type { FileRow, ItemChanges, ItemRow, ListFilter, ListPage, NewItem } from './items.js';
import type { BrandRef, Caller, KeyOptions, KeyRecord, KeyRow, NewKey, RevokeOptions, RevokeOutcome } from './keys.js';
import type { NewUpload, ObjectKeysOf, Upload } from './uploads.js';
import type { ReservationLimits } from '../limits.js';
import type { ReservationRefusal } from './reservations.js';

export type {
  Actor,
  AuditEntry,
  AuditFilter,
  BrandRef,
  ItemAuthors,
  Caller,
  FileRow,
  HeldFile,
  ItemChanges,
  ItemRow,
  KeyOptions,
  KeyRecord,
  KeyRow,
  ListFilter,
  MissingChecksum,
  NewItem,
  NewKey,
  NewUpload,
  RevokeOptions,
  RevokeOutcome,
  Upload,
};

export { type ObjectKeysOf, ownKey } from './uploads.js';

/**
 * A complete: the stored file as a new item would hold it (its brand, type, title, name, size,
 * duration, verified SHA-256 and media facts, as NewItem), and where and by whom it goes.
 */
export interface CompleteInput extends Omit<NewItem, 'id' | 'fileKey' | 'createdAt'> {
  key: string;
  /** Add to this carousel; otherwise a new item is made. */
  contentItemId?: string;
  /** With contentItemId: take this image's place instead of adding one (docs/api.md, Carousel images). */
  replaceFileId?: string;
  /** Ids for what this call may create (a retry that finds the key completed uses the first call's). */
  newItemId: string;
  newFileId: string;
  maxCarouselFiles: number;
  at: string;
  /** Who completes it: the item.created / item.image_added entry, written in the same transaction. */
  actor: Actor;
}

export type CompleteResult =
  /**
   * The item and the carousel image's file record, as the transaction left them; `discarded`: the
   * objects of a replaced image, queued for deletion, to remove now.
   */
  | { kind: 'done'; item: ItemRow; file: FileRow | null; discarded: string[] }
  /** The upload is gone: swept after its URL expired, or removed with its item. */
  | { kind: 'upload_gone' }
  /** The carousel to add to was deleted (or never was the caller's). */
  | { kind: 'carousel_gone' }
  | { kind: 'carousel_full' }
  /** The image to replace is not (or no longer) one of the carousel's. */
  | { kind: 'file_gone' };

export interface Repo {
  /** 'sqlite' or 'postgres' (messages and health output). */
  readonly kind: 'sqlite' | 'postgres';

  // ---- keys
  /** The stored key a presented one is (revoked and expired too), or null for a malformed or unknown key. */
  authenticate(key: string): Promise<KeyRecord | null>;
  /** Records that the key was used at `at`, unless a use after `notAfter` is recorded already. */
  touchKey(id: string, at: string, notAfter: string): Promise<void>;
  /** A new key for a new user of the brand (created by name when new), with its key.created entry. */
  createKey(brand: BrandRef, now: Date, o?: KeyOptions): Promise<NewKey>;
  /** Every key, or one brand's; oldest first. */
  listKeys(brandId?: string): Promise<KeyRow[]>;
  /** Revokes an active key with its key.revoked entry, in one transaction with the last-admin check. */
  revokeKey(id: string, now: Date, o?: RevokeOptions): Promise<RevokeOutcome>;

  // ---- audit log
  /** A page of the brand's entries, newest first. */
  listAudit(brandId: string, f: AuditFilter): Promise<{ entries: AuditEntry[]; hasMore: boolean }>;
  /** For each item: the entry that created it and its latest entry (null when none is kept). */
  itemAuthors(brandId: string, itemIds: readonly string[]): Promise<Map<string, ItemAuthors>>;
  /** Deletes entries older than `before` (ISO); returns how many. */
  pruneAudit(before: string): Promise<number>;

  // ---- uploads
  /**
   * Records a presigned upload when the brand's quota (or the thumbnails' own) and the key's
   * reservation limits allow it, checked and inserted in one transaction (./reservations.ts);
   * otherwise says which limit it met.
   */
  reserveUpload(
    u: NewUpload,
    limits: ReservationLimits,
    nowMs: number,
  ): Promise<{ ok: true } | { ok: false; refusal: ReservationRefusal }>;
  getUpload(key: string): Promise<Upload | null>;
  /** The upload whose staging object is `staging/<fileId>`. */
  getUploadByFileId(fileId: string): Promise<Upload | null>;
  /** The upload a presigned PUT may still write at `at`: not completed nor attached, its API key neither revoked nor expired. */
  openForPut(fileId: string, at: string): Promise<Upload | null>;
  markStored(key: string, at: string): Promise<void>;
  markNotStored(key: string): Promise<void>;
  /** Keeps a multipart upload in use (its row, so its parts) until `expiresAt` (Unix ms) at least. */
  renewUpload(key: string, expiresAt: number): Promise<void>;
  /**
   * Closes an open upload now (not completed nor attached): its row goes and its objects are
   * queued for deletion, in one transaction. What it was (its multipart upload is the caller's
   * to abort in the store), or null when no open upload has this key.
   */
  abortUpload(key: string, at: string, objectKeysOf?: ObjectKeysOf): Promise<Upload | null>;
  /**
   * Turns a stored upload into an item or a carousel image, idempotent per key across instances:
   * the decision in ./completion.ts, run in one transaction.
   */
  complete(c: CompleteInput, objectKeysOf?: ObjectKeysOf): Promise<CompleteResult>;

  // ---- items
  getItem(brandId: string, id: string): Promise<ItemRow | null>;
  listItems(brandId: string, f: ListFilter): Promise<ListPage<ItemRow>>;
  files(itemId: string): Promise<FileRow[]>;
  file(id: string): Promise<FileRow | null>;
  /**
   * Applies what really differs (./item-changes.ts `updateItem`); a new thumbnailKey is attached
   * (and its upload closed) and the previous thumbnail's upload goes to the deletion outbox.
   * Null when the item is gone or another brand's; else the item as it now is and the object
   * keys queued for deletion.
   */
  updateItem(
    brandId: string,
    id: string,
    changes: ItemChanges,
    at: string,
    actor: Actor,
    objectKeysOf?: ObjectKeysOf,
  ): Promise<ItemUpdate>;
  /** Drops the item and its uploads, queueing every object for deletion; null when not found. Its audit entries stay. */
  deleteItem(
    brandId: string,
    id: string,
    at: string,
    actor: Actor,
    objectKeysOf?: ObjectKeysOf,
  ): Promise<string[] | null>;

  /** Puts a carousel's images in the order of `fileIds` (./carousel.ts `reorder`), in one transaction. */
  reorderImages(c: CarouselChange & { fileIds: readonly string[] }): Promise<CarouselResult>;
  /** Removes one image of a carousel, never below `minFiles` (./carousel.ts `removeImage`), in one transaction. */
  removeImage(
    c: CarouselChange & { fileId: string; minFiles: number },
    objectKeysOf?: ObjectKeysOf,
  ): Promise<CarouselResult>;

  // ---- content identity
  /** The brand's stored files whose SHA-256 is one of `sha256s`, oldest item first. */
  heldFiles(brandId: string, sha256s: readonly string[]): Promise<HeldFile[]>;
  /** Up to `limit` stored files whose SHA-256 is not known yet (rows made before checksums were kept). */
  missingChecksums(limit: number): Promise<MissingChecksum[]>;
  /** Records a computed SHA-256, if the row still names that object and has none. */
  recordChecksum(m: MissingChecksum, sha256: string): Promise<void>;
  /** Up to `limit` stored files without media facts (rows made before facts were kept). */
  missingMedia(limit: number): Promise<MissingMedia[]>;
  /** Records measured facts (JSON text), if the row still names that object and has none. */
  recordMedia(m: MissingMedia, media: string): Promise<void>;

  // ---- posters and previews (./previews.ts)
  /** Up to `limit` stored files without their preview (not failed PREVIEW_TRIES times), newest first; videos only when `videos`. */
  missingPreviews(limit: number, videos: boolean): Promise<MissingPreview[]>;
  /** Records a preview made; false when the row no longer names that file (deleted or replaced meanwhile). */
  recordPreview(m: MissingPreview, previewKey: string): Promise<boolean>;
  /** Counts a failed try and keeps why. */
  previewFailed(m: MissingPreview, error: string): Promise<void>;

  // ---- housekeeping
  /** The store's multipart uploads of the uploads abandonUploads(beforeMs) would take now. */
  abandonedMultipart(beforeMs: number): Promise<Array<{ fileId: string; multipartId: string }>>;
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
  /** The objects still queued for deletion, oldest first; only those among `among` when given. */
  pendingDeletions(among?: readonly string[]): Promise<string[]>;

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
