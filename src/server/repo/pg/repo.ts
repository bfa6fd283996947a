// The Repo on PostgreSQL, for N `serve` instances sharing one database: the table repositories
// (./items.ts, ./uploads.ts, ./keys.ts, ./deletions.ts) composed into the operations that must
// be atomic, each in one transaction. What must hold across instances is taken from row locks:
// the upload row (complete is idempotent per key), the carousel's item row (never more than the
// maximum of images), the brand row (quota checked and reserved together); the unique keys on
// items.file_key and carousel_files.file_key back them up. The deletion outbox is claimed with a
// lease (./deletions.ts), so each object is deleted by one instance.
import { randomBytes } from 'node:crypto';
import { type CarouselSteps, removeImage, reorder } from '../carousel.js';
import { type AsyncCompletionSteps, runCompletionAsync } from '../completion.js';
import { patchDetails } from '../audit.js';
import { type Actor, type ItemChanges, type ObjectKeysOf, type Repo, ownKey } from '../interface.js';
import { pgAudit } from './audit.js';
import { pgChecksums } from './checksums.js';
import { pgDeletions } from './deletions.js';
import { pgItems } from './items.js';
import { effectiveChanges } from '../items.js';
import { pgKeys } from './keys.js';
import { migratePostgres } from './migrations.js';
import { type Query, createPool, transactions } from './query.js';
import { type AsyncSteps, runStepsAsync } from '../steps.js';
import { pgUploads } from './uploads.js';
import { judgeReservation } from '../reservations.js';
import type { Timeouts } from '../../limits.js';

export interface PostgresRepoOptions {
  connectionString?: string;
  /** Connections per instance. */
  max?: number;
  /** Time limits on connecting and on each statement (default: DEFAULT_TIMEOUTS). */
  timeouts?: Pick<Timeouts, 'databaseMs'>;
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
  const audit = pgAudit(query);

  /** A carousel's steps on one transaction's connection: the item's row locked. */
  function carouselSteps(q: Query): AsyncSteps<CarouselSteps> {
    const txItems = pgItems(q);
    return {
      lockItem: (brandId, id) => txItems.lock(brandId, id),
      files: (itemId) => txItems.files(itemId),
      dropFile: (id) => txItems.dropFile(id),
      insertFile: (file) => txItems.insertFile(file),
      arrange: (itemId, files, at) => txItems.arrange(itemId, files, at),
      discardImage: async (file, at, objectKeysOf) => {
        const removed = await pgUploads(q).remove(file.fileKey);
        const objects = [...new Set([file.fileKey, ...(removed ? objectKeysOf(removed) : [])])];
        await pgDeletions(q).add(objects, at);
        return objects;
      },
      audit: (e) => pgAudit(q).write(e),
      readItem: (brandId, id) => txItems.get(brandId, id),
    };
  }
  const checksums = pgChecksums(query);

  /** The completion's steps on one transaction's connection: the upload's and the item's rows locked. */
  function completionSteps(q: Query): AsyncCompletionSteps {
    const txItems = pgItems(q);
    const txUploads = pgUploads(q);
    return {
      ...carouselSteps(q),
      lockUpload: (key) => txUploads.lockForCompletion(key),
      createItem: (item) => txItems.create(item),
      addFile: (file) => txItems.addFile(file),
      markCompleted: (key, at, itemId, fileRecordId) => txUploads.markCompleted(key, at, itemId, fileRecordId),
      readFile: (id) => txItems.file(id),
    };
  }

  async function updateItem(
    brandId: string,
    id: string,
    asked: ItemChanges,
    at: string,
    actor: Actor,
    objectKeysOf: ObjectKeysOf,
  ) {
    return transaction(async (q) => {
      const txItems = pgItems(q);
      const txUploads = pgUploads(q);
      const txAudit = pgAudit(q);
      const item = await txItems.lock(brandId, id);
      if (!item) return null;
      const c = effectiveChanges(item, asked);
      // Nothing differs: no update, no audit entry, updatedAt and updatedBy untouched.
      if (Object.keys(c).length === 0) return [];
      await txItems.update(id, c, at);
      const details = patchDetails(item, c);
      if (details) await txAudit.write({ brandId, action: 'item.updated', itemId: id, at, actor, details });
      if (c.thumbnailKey === undefined) return [];
      await txUploads.attachThumbnail(c.thumbnailKey, id, at);
      const old = item.thumbnailKey !== c.thumbnailKey ? item.thumbnailKey : null;
      const thumbnail = { thumbnailKey: c.thumbnailKey, replaced: old };
      await txAudit.write({ brandId, action: 'item.thumbnail_set', itemId: id, at, actor, details: thumbnail });
      if (!old) return [];
      const removed = await txUploads.remove(old);
      const objects = removed ? objectKeysOf(removed) : [old];
      await pgDeletions(q).add(objects, at);
      return objects;
    });
  }

  async function deleteItem(brandId: string, id: string, at: string, actor: Actor, objectKeysOf: ObjectKeysOf) {
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
      const details = { type: item.type, title: item.title };
      await pgAudit(q).write({ brandId, action: 'item.deleted', itemId: id, at, actor, details });
      return [...objects];
    });
  }

  return {
    kind: 'postgres',
    authenticate: keys.authenticate,
    touchKey: keys.touch,
    createKey: keys.create,
    listKeys: keys.list,
    revokeKey: keys.revoke,
    listAudit: audit.page,
    itemAuthors: audit.authors,
    pruneAudit: audit.prune,
    reserveUpload: (u, limits, nowMs) =>
      transaction(async (q) => {
        const txUploads = pgUploads(q);
        await txUploads.lockQuota(u.brandId);
        const refusal = judgeReservation(u, await txUploads.holdings(u.brandId, u.keyId, nowMs, limits), limits);
        if (refusal) return { ok: false as const, refusal };
        await txUploads.insert(u);
        return { ok: true as const };
      }),
    getUpload: uploads.get,
    getUploadByFileId: uploads.getByFileId,
    openForPut: uploads.openForPut,
    markStored: uploads.markStored,
    markNotStored: uploads.markNotStored,
    renewUpload: uploads.renew,
    abortUpload: (key, at, keysOf = ownKey) =>
      transaction(async (q) => {
        const open = await pgUploads(q).removeOpen(key);
        if (open) await pgDeletions(q).add(keysOf(open), at);
        return open;
      }),
    complete: (c, keysOf = ownKey) => transaction((q) => runCompletionAsync(completionSteps(q), c, keysOf)),
    getItem: items.get,
    listItems: items.list,
    files: items.files,
    file: items.file,
    updateItem: (brandId, id, changes, at, actor, keysOf = ownKey) =>
      updateItem(brandId, id, changes, at, actor, keysOf),
    deleteItem: (brandId, id, at, actor, keysOf = ownKey) => deleteItem(brandId, id, at, actor, keysOf),
    reorderImages: (c) => transaction((q) => runStepsAsync(carouselSteps(q), reorder(c))),
    removeImage: (c, keysOf = ownKey) => transaction((q) => runStepsAsync(carouselSteps(q), removeImage(c, keysOf))),
    heldFiles: checksums.held,
    missingChecksums: checksums.missing,
    recordChecksum: checksums.record,
    abandonedMultipart: uploads.abandonedMultipart,
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
