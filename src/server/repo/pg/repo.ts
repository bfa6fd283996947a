// The Repo on PostgreSQL, for N `serve` instances sharing one database: the table repositories
// (./items.ts, ./uploads.ts, ./keys.ts, ./deletions.ts) composed into the operations that must
// be atomic, each in one transaction. What must hold across instances is taken from row locks:
// the upload row (complete is idempotent per key), the carousel's item row (never more than the
// maximum of images), the brand row (quota checked and reserved together); the unique keys on
// items.file_key and carousel_files.file_key back them up. The deletion outbox is claimed with a
// lease (./deletions.ts), so each object is deleted by one instance.
import { randomBytes } from 'node:crypto';
import { type AsyncCompletionSteps, runStepsAsync } from '../completion.js';
import { type ItemChanges, type ObjectKeysOf, type Repo, ownKey } from '../interface.js';
import { pgChecksums } from './checksums.js';
import { pgDeletions } from './deletions.js';
import { pgItems } from './items.js';
import { pgKeys } from './keys.js';
import { migratePostgres } from './migrations.js';
import { type Query, createPool, transactions } from './query.js';
import { pgUploads } from './uploads.js';

export interface PostgresRepoOptions {
  connectionString?: string;
  /** Connections per instance. */
  max?: number;
}

/** Connects (PG* environment variables fill what the URL leaves out), migrates, and returns the Repo. */
export async function createPostgresRepo(o: PostgresRepoOptions): Promise<Repo> {
  const pool = createPool(o);
  const client = await pool.connect();
  try {
    await migratePostgres(client);
  } catch (err) {
    client.release();
    await pool.end();
    throw err;
  }
  client.release();

  const query: Query = (text, values) => pool.query(text, values);
  const transaction = transactions(pool);
  const items = pgItems(query);
  const uploads = pgUploads(query);
  const keys = pgKeys(query, transaction);
  const deletions = pgDeletions(query);
  const checksums = pgChecksums(query);

  /** The completion's steps on one transaction's connection: the upload's and the item's rows locked. */
  function completionSteps(q: Query): AsyncCompletionSteps {
    const txItems = pgItems(q);
    const txUploads = pgUploads(q);
    return {
      lockUpload: (key) => txUploads.lockForCompletion(key),
      lockItem: (brandId, id) => txItems.lock(brandId, id),
      createItem: (item) => txItems.create(item),
      addFile: (file) => txItems.addFile(file),
      markCompleted: (key, at, itemId, fileRecordId) => txUploads.markCompleted(key, at, itemId, fileRecordId),
      readItem: (brandId, id) => txItems.get(brandId, id),
      readFile: (id) => txItems.file(id),
    };
  }

  async function updateItem(brandId: string, id: string, c: ItemChanges, at: string, objectKeysOf: ObjectKeysOf) {
    return transaction(async (q) => {
      const txItems = pgItems(q);
      const txUploads = pgUploads(q);
      const item = await txItems.lock(brandId, id);
      if (!item) return null;
      await txItems.update(id, c, at);
      if (c.thumbnailKey === undefined) return [];
      await txUploads.attachThumbnail(c.thumbnailKey, id, at);
      const old = item.thumbnailKey !== c.thumbnailKey ? item.thumbnailKey : null;
      if (!old) return [];
      const removed = await txUploads.remove(old);
      const objects = removed ? objectKeysOf(removed) : [old];
      await pgDeletions(q).add(objects, at);
      return objects;
    });
  }

  async function deleteItem(brandId: string, id: string, at: string, objectKeysOf: ObjectKeysOf) {
    return transaction(async (q) => {
      const txItems = pgItems(q);
      const item = await txItems.lock(brandId, id);
      if (!item) return null;
      // Every object of the item: the main file, carousel images and the thumbnail are all uploads attached to it.
      const files = await txItems.files(id);
      await txItems.remove(id);
      const attached = await pgUploads(q).removeOfItem(id);
      const objects = new Set([item.fileKey, ...files.map((f) => f.fileKey), ...attached.flatMap(objectKeysOf)]);
      if (item.thumbnailKey) objects.add(item.thumbnailKey);
      await pgDeletions(q).add([...objects], at);
      return [...objects];
    });
  }

  return {
    kind: 'postgres',
    authenticate: keys.authenticate,
    createKey: keys.create,
    listKeys: keys.list,
    revokeKey: keys.revoke,
    reserveUpload: (u, quotaBytes, nowMs) =>
      transaction(async (q) => {
        const txUploads = pgUploads(q);
        await txUploads.lockQuota(u.brandId);
        if (!u.thumbnail) {
          const used = await txUploads.quotaUsed(u.brandId, nowMs);
          if (used + u.fileSize > quotaBytes) return { ok: false as const, used };
        }
        await txUploads.insert(u);
        return { ok: true as const };
      }),
    getUpload: uploads.get,
    getUploadByFileId: uploads.getByFileId,
    openForPut: uploads.openForPut,
    markStored: uploads.markStored,
    markNotStored: uploads.markNotStored,
    complete: (c) => transaction((q) => runStepsAsync(completionSteps(q), c)),
    getItem: items.get,
    listItems: items.list,
    files: items.files,
    file: items.file,
    updateItem: (brandId, id, changes, at, keysOf = ownKey) => updateItem(brandId, id, changes, at, keysOf),
    deleteItem: (brandId, id, at, keysOf = ownKey) => deleteItem(brandId, id, at, keysOf),
    heldFiles: checksums.held,
    missingChecksums: checksums.missing,
    recordChecksum: checksums.record,
    abandonUploads: (beforeMs, at, keysOf = ownKey) =>
      transaction(async (q) => {
        const abandoned = await pgUploads(q).removeAbandoned(beforeMs);
        await pgDeletions(q).add(abandoned.flatMap(keysOf), at);
        return abandoned.length;
      }),
    claimDeletions: deletions.claim,
    deletionDone: deletions.done,
    deletionFailed: deletions.failed,
    pendingDeletions: deletions.all,
    async sharedSecret(name) {
      await query('INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
        name,
        randomBytes(32),
      ]);
      const { rows } = await query<{ value: Buffer }>('SELECT value FROM shared_secrets WHERE name = $1', [name]);
      return rows[0]!.value;
    },
    async ping() {
      await query('SELECT 1');
    },
    async check() {
      await query('SELECT 1 FROM contentlib_migrations LIMIT 1');
    },
    itemsByType: items.countByType,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
