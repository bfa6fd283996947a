// The embedded default's Repo: the synchronous better-sqlite3 repositories behind the async
// interface, each multi-statement operation in one IMMEDIATE transaction (the write lock), exactly
// as the routes ran them before. One process owns a data dir's server, so no row locks are needed.
import { type Db, databasePath } from '../db.js';
import { sqliteCheck, sqliteItemsByType, sqlitePool } from '../embedded-checks.js';
import { loadSecret } from '../signing.js';
import { auditRepository, patchDetails } from './audit.js';
import { checksumsRepository } from './checksums.js';
import { deletionsRepository } from './deletions.js';
import { type CarouselSteps, removeImage, reorder } from './carousel.js';
import { type CompletionSteps, runCompletion } from './completion.js';
import { type Actor, type ObjectKeysOf, type Repo, ownKey } from './interface.js';
import { runSteps } from './steps.js';
import { effectiveChanges, itemsRepository } from './items.js';
import { keysRepository } from './keys.js';
import { judgeReservation } from './reservations.js';
import { uploadsRepository } from './uploads.js';

export function createSqliteRepo(db: Db, o: { dataDir: string }): Repo {
  const items = itemsRepository(db);
  const uploads = uploadsRepository(db);
  const keys = keysRepository(db);
  const deletions = deletionsRepository(db);
  const checksums = checksumsRepository(db);
  const immediate = <T>(fn: () => T): T => db.transaction(fn).immediate();
  // One server per data dir: claims of the outbox only need to exclude this process's other sweeps.
  const leases = new Map<string, number>();
  const fileCheck = sqliteCheck(db, databasePath(o.dataDir));
  const auditLog = auditRepository(db);
  /** Records an audit entry: call inside the transaction of the change it records. */
  const audit = auditLog.write;

  // Inside an IMMEDIATE transaction the write lock is the lock of every row.
  const carouselSteps: CarouselSteps = {
    lockItem: (brandId, id) => items.get(brandId, id),
    files: (itemId) => items.files(itemId),
    dropFile: (id) => items.dropFile(id),
    insertFile: (file) => items.insertFile(file),
    arrange: (itemId, files, at) => items.arrange(itemId, files, at),
    discardImage: (file, at, objectKeysOf) => {
      const upload = uploads.get(file.fileKey);
      const objects = [...new Set([file.fileKey, ...(upload ? objectKeysOf(upload) : [])])];
      uploads.remove(file.fileKey);
      deletions.add(objects, at);
      return objects;
    },
    audit,
    readItem: (brandId, id) => items.get(brandId, id),
  };
  const completionSteps: CompletionSteps = {
    ...carouselSteps,
    lockUpload: (key) => uploads.get(key),
    createItem: (item) => items.create(item),
    addFile: (file) => items.addFile(file),
    markCompleted: (key, at, itemId, fileRecordId) => uploads.markCompleted(key, at, itemId, fileRecordId),
    readFile: (id) => items.file(id),
  };

  function updateItem(
    brandId: string,
    id: string,
    asked: Parameters<Repo['updateItem']>[2],
    at: string,
    actor: Actor,
    objectKeysOf: ObjectKeysOf,
  ) {
    const item = items.get(brandId, id);
    if (!item) return null;
    const changes = effectiveChanges(item, asked);
    // Nothing differs: no update, no audit entry, updatedAt and updatedBy untouched.
    if (Object.keys(changes).length === 0) return [];
    const old =
      changes.thumbnailKey !== undefined && item.thumbnailKey !== changes.thumbnailKey ? item.thumbnailKey : null;
    items.update(brandId, id, changes, at);
    const details = patchDetails(item, changes);
    if (details) audit({ brandId, action: 'item.updated', itemId: id, at, actor, details });
    if (changes.thumbnailKey !== undefined) {
      uploads.attachThumbnail(changes.thumbnailKey, id, at);
      const thumbnail = { thumbnailKey: changes.thumbnailKey, replaced: old };
      audit({ brandId, action: 'item.thumbnail_set', itemId: id, at, actor, details: thumbnail });
    }
    if (!old) return [];
    const oldUpload = uploads.get(old);
    const keys = oldUpload ? objectKeysOf(oldUpload) : [old];
    uploads.remove(old);
    deletions.add(keys, at);
    return keys;
  }

  function deleteItem(
    brandId: string,
    id: string,
    at: string,
    actor: Actor,
    objectKeysOf: ObjectKeysOf,
  ): string[] | null {
    const item = items.get(brandId, id);
    if (!item) return null;
    // Every object of the item: the main file, carousel images and the thumbnail are all uploads attached to it.
    const objects = new Set([item.fileKey, ...items.files(id).map((f) => f.fileKey)]);
    for (const u of uploads.ofItem(id)) for (const k of objectKeysOf(u)) objects.add(k);
    if (item.thumbnailKey) objects.add(item.thumbnailKey);
    items.remove(brandId, id);
    uploads.removeOfItem(id);
    deletions.add([...objects], at);
    audit({ brandId, action: 'item.deleted', itemId: id, at, actor, details: { type: item.type, title: item.title } });
    return [...objects];
  }

  function abandonUploads(beforeMs: number, at: string, objectKeysOf: ObjectKeysOf): number {
    const abandoned = uploads.abandoned(beforeMs);
    for (const u of abandoned) uploads.remove(u.key);
    deletions.add(
      abandoned.flatMap((u) => objectKeysOf(u)),
      at,
    );
    return abandoned.length;
  }

  return {
    kind: 'sqlite',
    authenticate: async (key) => keys.authenticate(key),
    touchKey: async (id, at, notAfter) => keys.touch(id, at, notAfter),
    createKey: async (brand, now, ko) => keys.create(brand, now, ko),
    listKeys: async (brandId) => keys.list(brandId),
    revokeKey: async (id, now, ro) => keys.revoke(id, now, ro),
    listAudit: async (brandId, f) => auditLog.page(brandId, f),
    itemAuthors: async (brandId, itemIds) => auditLog.authors(brandId, itemIds),
    pruneAudit: async (before) => auditLog.prune(before),
    reserveUpload: async (u, limits, nowMs) =>
      immediate(() => {
        const refusal = judgeReservation(u, uploads.holdings(u.brandId, u.keyId, nowMs, limits), limits);
        if (refusal) return { ok: false as const, refusal };
        uploads.insert(u);
        return { ok: true as const };
      }),
    getUpload: async (key) => uploads.get(key),
    getUploadByFileId: async (fileId) => uploads.getByFileId(fileId),
    openForPut: async (fileId, at) => uploads.openForPut(fileId, at),
    markStored: async (key, at) => uploads.markStored(key, at),
    markNotStored: async (key) => uploads.markNotStored(key),
    renewUpload: async (key, expiresAt) => uploads.renew(key, expiresAt),
    abortUpload: async (key, at, keysOf = ownKey) =>
      immediate(() => {
        const open = uploads.getOpen(key);
        if (!open) return null;
        uploads.remove(key);
        deletions.add(keysOf(open), at);
        return open;
      }),
    complete: async (c, keysOf = ownKey) => immediate(() => runCompletion(completionSteps, c, keysOf)),
    getItem: async (brandId, id) => items.get(brandId, id),
    listItems: async (brandId, f) => items.list(brandId, f),
    files: async (itemId) => items.files(itemId),
    file: async (id) => items.file(id),
    updateItem: async (brandId, id, changes, at, actor, keysOf = ownKey) =>
      immediate(() => updateItem(brandId, id, changes, at, actor, keysOf)),
    deleteItem: async (brandId, id, at, actor, keysOf = ownKey) =>
      immediate(() => deleteItem(brandId, id, at, actor, keysOf)),
    reorderImages: async (c) => immediate(() => runSteps(carouselSteps, reorder(c))),
    removeImage: async (c, keysOf = ownKey) => immediate(() => runSteps(carouselSteps, removeImage(c, keysOf))),
    heldFiles: async (brandId, sha256s) => checksums.held(brandId, sha256s),
    missingChecksums: async (limit) => checksums.missing(limit),
    recordChecksum: async (m, sha256) => checksums.record(m, sha256),
    abandonedMultipart: async (beforeMs) => uploads.abandonedMultipart(beforeMs),
    abandonUploads: async (beforeMs, at, keysOf = ownKey) => immediate(() => abandonUploads(beforeMs, at, keysOf)),
    claimDeletions: async (limit, leaseSeconds) => {
      const now = Date.now();
      const free = deletions.all().filter((key) => (leases.get(key) ?? 0) <= now);
      const claimed = free.slice(0, limit);
      for (const key of claimed) leases.set(key, now + leaseSeconds * 1000);
      return claimed;
    },
    deletionDone: async (key) => {
      deletions.done(key);
      leases.delete(key);
    },
    deletionFailed: async (key, error) => {
      deletions.failed(key, error);
      leases.delete(key);
    },
    pendingDeletions: async () => deletions.all(),
    // The embedded library keeps its signing secret in the data dir, as it always has.
    sharedSecret: async () => loadSecret(o.dataDir),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    check: fileCheck,
    itemsByType: sqliteItemsByType(db),
    poolUse: sqlitePool,
    close: async () => {
      db.close();
    },
  };
}
