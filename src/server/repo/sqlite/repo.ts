// The embedded default's Repo: the synchronous SQLite (node:sqlite) repositories behind the async
// interface. Every change is a decision of ./decisions.ts run over this database's steps in one
// IMMEDIATE transaction (the write lock). One process owns a data dir's server, so no row locks
// are needed.
import { type Db, databasePath } from './db.js';
import { sqliteCheck, sqliteItemsByType, sqlitePool } from './checks.js';
import { loadSecret } from '../../signing.js';
import { sqliteAudit } from './audit.js';
import { sqliteChecksums } from './checksums.js';
import { sqliteMedia } from './media.js';
import { sqlitePreviews } from './previews.js';
import { sqliteDeletions } from './deletions.js';
import { removeImage, reorder } from '../carousel.js';
import { completion } from '../completion.js';
import type { RepoSteps } from '../decisions.js';
import { type Repo, ownKey } from '../interface.js';
import { deleteItem, updateItem } from '../item-changes.js';
import { sqliteItems } from './items.js';
import { createKey, revokeKey } from '../key-changes.js';
import { sqliteKeys } from './keys.js';
import { type Decision, runSteps } from '../steps.js';
import { abandonUploads, abortUpload, reserveUpload } from '../upload-changes.js';
import { sqliteUploads } from './uploads.js';

/**
 * The steps of every decision (./decisions.ts) on this database. Run them inside an IMMEDIATE
 * transaction: its write lock is the lock of every row, and of a brand's quota and keys.
 */
export function sqliteSteps(db: Db): RepoSteps {
  const items = sqliteItems(db);
  const uploads = sqliteUploads(db);
  const keys = sqliteKeys(db);
  const deletions = sqliteDeletions(db);
  const auditLog = sqliteAudit(db);
  return {
    lockItem: (brandId, id) => items.get(brandId, id),
    readItem: (brandId, id) => items.get(brandId, id),
    files: (itemId) => items.files(itemId),
    writeItem: (id, changes, at) => items.update(id, changes, at),
    removeItem: (id) => items.remove(id),
    attachThumbnail: (key, itemId, at) => uploads.attachThumbnail(key, itemId, at),
    removeUpload: (key) => uploads.remove(key),
    removeUploadsOf: (itemId) => uploads.removeOfItem(itemId),
    queueDeletions: (objects, at) => deletions.add(objects, at),
    audit: auditLog.write,
    dropFile: (id) => items.dropFile(id),
    insertFile: (file) => items.insertFile(file),
    arrange: (itemId, files, at) => items.arrange(itemId, files, at),
    lockUpload: (key) => uploads.get(key),
    createItem: (item) => items.create(item),
    addFile: (file) => items.addFile(file),
    markCompleted: (key, at, itemId, fileRecordId) => uploads.markCompleted(key, at, itemId, fileRecordId),
    readFile: (id) => items.file(id),
    lockQuota: () => undefined,
    holdings: (brandId, keyId, nowMs, limits) => uploads.holdings(brandId, keyId, nowMs, limits),
    insertUpload: (u) => uploads.insert(u),
    removeOpenUpload: (key) => uploads.removeOpen(key),
    removeAbandoned: (beforeMs) => uploads.removeAbandoned(beforeMs),
    brandOf: (brand, at) => keys.brandOf(brand, at),
    insertUser: (id, brandId, at) => keys.insertUser(id, brandId, at),
    insertKey: (k) => keys.insertKey(k),
    keyRow: (id) => keys.row(id),
    lockBrand: () => undefined,
    brandKeys: (brandId) => keys.list(brandId),
    markRevoked: (id, at) => keys.markRevoked(id, at),
  };
}

export function createSqliteRepo(db: Db, o: { dataDir: string }): Repo {
  const items = sqliteItems(db);
  const uploads = sqliteUploads(db);
  const keys = sqliteKeys(db);
  const deletions = sqliteDeletions(db);
  const checksums = sqliteChecksums(db);
  const media = sqliteMedia(db);
  const previews = sqlitePreviews(db);
  // One server per data dir: claims of the outbox only need to exclude this process's other sweeps.
  const leases = new Map<string, number>();
  const fileCheck = sqliteCheck(db, databasePath(o.dataDir));
  const auditLog = sqliteAudit(db);

  const steps = sqliteSteps(db);
  /** Runs a decision in one IMMEDIATE transaction. */
  const decide = async <R>(decision: Decision<RepoSteps, R>): Promise<R> =>
    db.transaction(() => runSteps(steps, decision)).immediate();

  return {
    kind: 'sqlite',
    authenticate: async (key) => keys.authenticate(key),
    touchKey: async (id, at, notAfter) => keys.touch(id, at, notAfter),
    createKey: (brand, now, ko = {}) => decide(createKey(brand, now, ko)),
    listKeys: async (brandId) => keys.list(brandId),
    revokeKey: (id, now, ro = {}) => decide(revokeKey(id, now, ro)),
    listAudit: async (brandId, f) => auditLog.page(brandId, f),
    itemAuthors: async (brandId, itemIds) => auditLog.authors(brandId, itemIds),
    pruneAudit: async (before) => auditLog.prune(before),
    reserveUpload: (u, limits, nowMs) => decide(reserveUpload(u, limits, nowMs)),
    getUpload: async (key) => uploads.get(key),
    getUploadByFileId: async (fileId) => uploads.getByFileId(fileId),
    openForPut: async (fileId, at) => uploads.openForPut(fileId, at),
    markStored: async (key, at) => uploads.markStored(key, at),
    markNotStored: async (key) => uploads.markNotStored(key),
    renewUpload: async (key, expiresAt) => uploads.renew(key, expiresAt),
    abortUpload: (key, at, keysOf = ownKey) => decide(abortUpload(key, at, keysOf)),
    complete: (c, keysOf = ownKey) => decide(completion(c, keysOf)),
    getItem: async (brandId, id) => items.get(brandId, id),
    listItems: async (brandId, f) => items.list(brandId, f),
    files: async (itemId) => items.files(itemId),
    file: async (id) => items.file(id),
    updateItem: (brandId, itemId, changes, at, actor, keysOf = ownKey) =>
      decide(updateItem({ brandId, itemId, changes, at, actor }, keysOf)),
    deleteItem: (brandId, itemId, at, actor, keysOf = ownKey) =>
      decide(deleteItem({ brandId, itemId, at, actor }, keysOf)),
    reorderImages: (c) => decide(reorder(c)),
    removeImage: (c, keysOf = ownKey) => decide(removeImage(c, keysOf)),
    heldFiles: async (brandId, sha256s) => checksums.held(brandId, sha256s),
    missingChecksums: async (limit) => checksums.missing(limit),
    recordChecksum: async (m, sha256) => checksums.record(m, sha256),
    missingMedia: async (limit) => media.missing(limit),
    recordMedia: async (m, facts) => media.record(m, facts),
    missingPreviews: async (limit, videos) => previews.missing(limit, videos),
    recordPreview: async (m, key) => previews.record(m, key),
    previewFailed: async (m, error) => previews.fail(m, error),
    abandonedMultipart: async (beforeMs) => uploads.abandonedMultipart(beforeMs),
    abandonUploads: (beforeMs, at, keysOf = ownKey) => decide(abandonUploads(beforeMs, at, keysOf)),
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
