// Changing and deleting an item, decided once for both databases, like the completion
// (./completion.ts over ./steps.ts): each decision asks for steps and never touches a database;
// SQLite answers them under its write lock, PostgreSQL over one connection with row locks.
//
// The brand is checked here and only here: `lockItem` finds the caller's item or nothing, and
// every write after it names the row by its id alone. So the dialects cannot differ on who may
// change an item (they once did: SQLite's UPDATE filtered by brand, PostgreSQL's did not).
import { previewKeyOf } from '../object-keys.js';
import { type AuditEvent, changedPaths, patchDetails } from './audit.js';
import type { FileRow, ItemChanges, ItemRow } from './items.js';
import { type Decision, stepsOf } from './steps.js';
import type { ObjectKeysOf, UploadRef } from './uploads.js';

/** The small operations a change of an item is made of, each run inside the change's transaction. */
export interface ItemSteps {
  /** The caller's item, its row locked until the transaction ends; null when gone or another brand's. */
  lockItem(brandId: string, id: string): ItemRow | null;
  /** The caller's item as it is now, read in the same transaction. */
  readItem(brandId: string, id: string): ItemRow | null;
  /** A carousel's image records by sortOrder. */
  files(itemId: string): FileRow[];
  /** Sets the columns of `changes` and updatedAt on the item with this id (locked by the decision). */
  writeItem(id: string, changes: ItemChanges, at: string): void;
  /** Deletes the item with this id and its image records. */
  removeItem(id: string): void;
  /** The thumbnail's upload belongs to the item and is completed: its URL is closed. */
  attachThumbnail(key: string, itemId: string, at: string): void;
  /** Deletes the upload's row; what it was, or null when there was none. */
  removeUpload(key: string): UploadRef | null;
  /** Deletes every upload attached to the item (main file, images, thumbnail); what they were. */
  removeUploadsOf(itemId: string): UploadRef[];
  /** Queues objects in the deletion outbox (a key queued already stays queued once). */
  queueDeletions(keys: readonly string[], at: string): void;
  audit(e: AuditEvent): void;
}

const step = stepsOf<ItemSteps>();

/** Who changes which item, when. */
export interface ItemChange {
  brandId: string;
  itemId: string;
  at: string;
  actor: AuditEvent['actor'];
}

/** An updated item as the transaction left it; `discarded`: the replaced thumbnail's objects, to remove now. */
export type ItemUpdate = { item: ItemRow; discarded: string[] } | null;

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The part of a PATCH that really changes the item: a field sent with the value it has already
 * is left out, so it is neither written nor audited. The new thumbnail's checksum goes with its key.
 */
export function realChanges(item: ItemRow, c: ItemChanges): ItemChanges {
  const out: ItemChanges = {};
  if (c.title !== undefined && c.title !== item.title) out.title = c.title;
  if (c.description !== undefined && c.description !== item.description) out.description = c.description;
  if (c.status !== undefined && c.status !== item.status) out.status = c.status;
  if (c.hashtags !== undefined && !sameJson(c.hashtags, item.hashtags)) out.hashtags = c.hashtags;
  if (c.platformSettings !== undefined && changedPaths(item.platformSettings, c.platformSettings).length > 0)
    out.platformSettings = c.platformSettings;
  if (c.thumbnailKey !== undefined && c.thumbnailKey !== item.thumbnailKey) {
    out.thumbnailKey = c.thumbnailKey;
    if (c.thumbnailSha256 !== undefined) out.thumbnailSha256 = c.thumbnailSha256;
  }
  return out;
}

/**
 * Drops an upload's row and queues its objects (the key itself and what `objectKeysOf` names:
 * a staging copy; `withPreview`: its preview, src/server/previews/) for deletion; returns them.
 */
export function* discardUpload(
  key: string,
  at: string,
  objectKeysOf: ObjectKeysOf,
  { withPreview = false } = {},
): Decision<ItemSteps, string[]> {
  const removed = yield* step('removeUpload', key);
  // A carousel image's preview too, made or not (a deletion of nothing is a deletion done).
  const preview = withPreview ? [previewKeyOf(key)] : [];
  const objects = [...new Set([key, ...preview, ...(removed ? objectKeysOf(removed) : [])])];
  yield* step('queueDeletions', objects, at);
  return objects;
}

/**
 * A PATCH: writes what really differs (`realChanges`) and records it (`item.updated` for the
 * fields, `item.thumbnail_set` for a new thumbnail, whose upload is attached and whose
 * predecessor's objects are queued for deletion). Values equal to the stored ones change
 * nothing: no write, no entry, updatedAt stays. Null when the item is gone or not the caller's.
 */
export function* updateItem(
  c: ItemChange & { changes: ItemChanges },
  objectKeysOf: ObjectKeysOf,
): Decision<ItemSteps, ItemUpdate> {
  const item = yield* step('lockItem', c.brandId, c.itemId);
  if (!item) return null;
  const changes = realChanges(item, c.changes);
  if (Object.keys(changes).length === 0) return { item, discarded: [] };
  const entry = { brandId: c.brandId, itemId: item.id, at: c.at, actor: c.actor };
  yield* step('writeItem', item.id, changes, c.at);
  const details = patchDetails(item, changes);
  if (details) yield* step('audit', { ...entry, action: 'item.updated', details });
  let discarded: string[] = [];
  if (changes.thumbnailKey !== undefined) {
    yield* step('attachThumbnail', changes.thumbnailKey, item.id, c.at);
    const replaced = item.thumbnailKey;
    yield* step('audit', {
      ...entry,
      action: 'item.thumbnail_set',
      details: { thumbnailKey: changes.thumbnailKey, replaced },
    });
    if (replaced) discarded = yield* discardUpload(replaced, c.at, objectKeysOf);
  }
  const fresh = yield* step('readItem', c.brandId, item.id);
  // The row is locked until the transaction ends: it cannot have gone.
  return fresh ? { item: fresh, discarded } : null;
}

/**
 * Deletes the item and its uploads and queues every object of it (main file, images, their
 * staging copies, the thumbnail) for deletion; returns them, or null when the item is gone or
 * not the caller's. Its audit entries stay.
 */
export function* deleteItem(c: ItemChange, objectKeysOf: ObjectKeysOf): Decision<ItemSteps, string[] | null> {
  const item = yield* step('lockItem', c.brandId, c.itemId);
  if (!item) return null;
  const files = yield* step('files', item.id);
  yield* step('removeItem', item.id);
  const attached = yield* step('removeUploadsOf', item.id);
  const stored = [item.fileKey, ...files.map((f) => f.fileKey)];
  // Each file's poster or preview too, made or not (a deletion of nothing is a deletion done).
  const objects = new Set([...stored, ...stored.map(previewKeyOf), ...attached.flatMap(objectKeysOf)]);
  if (item.thumbnailKey) objects.add(item.thumbnailKey);
  yield* step('queueDeletions', [...objects], c.at);
  yield* step('audit', {
    brandId: c.brandId,
    action: 'item.deleted',
    itemId: item.id,
    at: c.at,
    actor: c.actor,
    details: { type: item.type, title: item.title },
  });
  return [...objects];
}
