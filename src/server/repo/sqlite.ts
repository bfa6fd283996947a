// The embedded default's Repo: the synchronous better-sqlite3 repositories behind the async
// interface, each multi-statement operation in one IMMEDIATE transaction (the write lock), exactly
// as the routes ran them before. One process owns a data dir's server, so no row locks are needed.
import { type Db, databasePath } from '../db.js';
import { sqliteCheck, sqliteItemsByType, sqlitePool } from '../embedded-checks.js';
import { loadSecret } from '../signing.js';
import { checksumsRepository } from './checksums.js';
import { deletionsRepository } from './deletions.js';
import { type CompletionSteps, runSteps } from './completion.js';
import { type ObjectKeysOf, type Repo, ownKey } from './interface.js';
import { itemsRepository } from './items.js';
import { keysRepository } from './keys.js';
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

  // Inside the completion's IMMEDIATE transaction the write lock is the lock of every row.
  const completionSteps: CompletionSteps = {
    lockUpload: (key) => uploads.get(key),
    lockItem: (brandId, id) => items.get(brandId, id),
    createItem: (item) => items.create(item),
    addFile: (file) => items.addFile(file),
    markCompleted: (key, at, itemId, fileRecordId) => uploads.markCompleted(key, at, itemId, fileRecordId),
    readItem: (brandId, id) => items.get(brandId, id),
    readFile: (id) => items.file(id),
  };

  function updateItem(
    brandId: string,
    id: string,
    changes: Parameters<Repo['updateItem']>[2],
    at: string,
    objectKeysOf: ObjectKeysOf,
  ) {
    const item = items.get(brandId, id);
    if (!item) return null;
    const old =
      changes.thumbnailKey !== undefined && item.thumbnailKey !== changes.thumbnailKey ? item.thumbnailKey : null;
    items.update(brandId, id, changes, at);
    if (changes.thumbnailKey !== undefined) uploads.attachThumbnail(changes.thumbnailKey, id, at);
    if (!old) return [];
    const oldUpload = uploads.get(old);
    const keys = oldUpload ? objectKeysOf(oldUpload) : [old];
    uploads.remove(old);
    deletions.add(keys, at);
    return keys;
  }

  function deleteItem(brandId: string, id: string, at: string, objectKeysOf: ObjectKeysOf): string[] | null {
    const item = items.get(brandId, id);
    if (!item) return null;
    // Every object of the item: the main file, carousel images and the thumbnail are all uploads attached to it.
    const objects = new Set([item.fileKey, ...items.files(id).map((f) => f.fileKey)]);
    for (const u of uploads.ofItem(id)) for (const k of objectKeysOf(u)) objects.add(k);
    if (item.thumbnailKey) objects.add(item.thumbnailKey);
    items.remove(brandId, id);
    uploads.removeOfItem(id);
    deletions.add([...objects], at);
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
    createKey: async (brand, now) => keys.create(brand, now),
    listKeys: async () => keys.list(),
    revokeKey: async (id, now) => keys.revoke(id, now),
    reserveUpload: async (u, quotaBytes, nowMs) =>
      immediate(() => {
        const used = u.thumbnail ? 0 : uploads.quotaUsed(u.brandId, nowMs);
        if (!u.thumbnail && used + u.fileSize > quotaBytes) return { ok: false as const, used };
        uploads.insert(u);
        return { ok: true as const };
      }),
    getUpload: async (key) => uploads.get(key),
    getUploadByFileId: async (fileId) => uploads.getByFileId(fileId),
    openForPut: async (fileId) => uploads.openForPut(fileId),
    markStored: async (key, at) => uploads.markStored(key, at),
    markNotStored: async (key) => uploads.markNotStored(key),
    complete: async (c) => immediate(() => runSteps(completionSteps, c)),
    getItem: async (brandId, id) => items.get(brandId, id),
    listItems: async (brandId, f) => items.list(brandId, f),
    files: async (itemId) => items.files(itemId),
    file: async (id) => items.file(id),
    updateItem: async (brandId, id, changes, at, keysOf = ownKey) =>
      immediate(() => updateItem(brandId, id, changes, at, keysOf)),
    deleteItem: async (brandId, id, at, keysOf = ownKey) => immediate(() => deleteItem(brandId, id, at, keysOf)),
    heldFiles: async (brandId, sha256s) => checksums.held(brandId, sha256s),
    missingChecksums: async (limit) => checksums.missing(limit),
    recordChecksum: async (m, sha256) => checksums.record(m, sha256),
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
