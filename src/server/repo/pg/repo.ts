// The Repo on PostgreSQL, for N `serve` instances sharing one database: the table repositories
// (./items.ts, ./uploads.ts, ./keys.ts, ./deletions.ts) answer the steps of every change's
// decision (../decisions.ts), each change run in one transaction. What must hold across
// instances is taken from row locks:
// the upload row (complete is idempotent per key), the carousel's item row (never more than the
// maximum of images), the brand row (quota checked and reserved together); the unique keys on
// items.file_key and carousel_files.file_key back them up. The deletion outbox is claimed with a
// lease (./deletions.ts), so each object is deleted by one instance.
import { randomBytes } from 'node:crypto';
import { removeImage, reorder } from '../carousel.js';
import { completion } from '../completion.js';
import type { AsyncRepoSteps, RepoSteps } from '../decisions.js';
import { type Repo, ownKey } from '../interface.js';
import { deleteItem, updateItem } from '../item-changes.js';
import { createKey, revokeKey } from '../key-changes.js';
import { abandonUploads, abortUpload, reserveUpload } from '../upload-changes.js';
import { pgAudit } from './audit.js';
import { pgChecksums } from './checksums.js';
import { pgMedia } from './media.js';
import { pgPreviews } from './previews.js';
import { pgDeletions } from './deletions.js';
import { pgItems } from './items.js';
import { pgKeys } from './keys.js';
import { migratePostgres } from './migrations.js';
import { type Query, createPool, transactions } from './query.js';
import { type Decision, runStepsAsync } from '../steps.js';
import { pgUploads } from './uploads.js';
import type { Timeouts } from '../../limits.js';

export interface PostgresRepoOptions {
  connectionString?: string;
  /** Connections per instance. */
  max?: number;
  /** Time limits on connecting and on each statement (default: DEFAULT_TIMEOUTS). */
  timeouts?: Pick<Timeouts, 'databaseMs'>;
}

/** The steps of every decision (../decisions.ts) on one transaction's connection, with row locks. */
export function pgSteps(q: Query): AsyncRepoSteps {
  const txItems = pgItems(q);
  const txUploads = pgUploads(q);
  const txKeys = pgKeys(q);
  return {
    lockItem: (brandId, id) => txItems.lock(brandId, id),
    readItem: (brandId, id) => txItems.get(brandId, id),
    files: (itemId) => txItems.files(itemId),
    writeItem: (id, changes, at) => txItems.update(id, changes, at),
    removeItem: (id) => txItems.remove(id),
    attachThumbnail: (key, itemId, at) => txUploads.attachThumbnail(key, itemId, at),
    removeUpload: (key) => txUploads.remove(key),
    removeUploadsOf: (itemId) => txUploads.removeOfItem(itemId),
    queueDeletions: (objects, at) => pgDeletions(q).add(objects, at),
    audit: (e) => pgAudit(q).write(e),
    dropFile: (id) => txItems.dropFile(id),
    insertFile: (file) => txItems.insertFile(file),
    arrange: (itemId, files, at) => txItems.arrange(itemId, files, at),
    lockUpload: (key) => txUploads.lockForCompletion(key),
    createItem: (item) => txItems.create(item),
    addFile: (file) => txItems.addFile(file),
    markCompleted: (key, at, itemId, fileRecordId) => txUploads.markCompleted(key, at, itemId, fileRecordId),
    readFile: (id) => txItems.file(id),
    lockQuota: (brandId) => txKeys.lockBrand(brandId),
    holdings: (brandId, keyId, nowMs, limits) => txUploads.holdings(brandId, keyId, nowMs, limits),
    insertUpload: (u) => txUploads.insert(u),
    removeOpenUpload: (key) => txUploads.removeOpen(key),
    removeAbandoned: (beforeMs) => txUploads.removeAbandoned(beforeMs),
    brandOf: (brand, at) => txKeys.brandOf(brand, at),
    insertUser: (id, brandId, at) => txKeys.insertUser(id, brandId, at),
    insertKey: (k) => txKeys.insertKey(k),
    keyRow: (id) => txKeys.row(id),
    lockBrand: (brandId) => txKeys.lockBrand(brandId),
    brandKeys: (brandId) => txKeys.list(brandId),
    markRevoked: (id, at) => txKeys.markRevoked(id, at),
  };
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
  const keys = pgKeys(query);
  const deletions = pgDeletions(query);
  const audit = pgAudit(query);

  const checksums = pgChecksums(query);
  const media = pgMedia(query);
  const previews = pgPreviews(query);

  /** Runs a decision in one transaction. */
  const decide = <R>(decision: Decision<RepoSteps, R>): Promise<R> =>
    transaction((q) => runStepsAsync(pgSteps(q), decision));

  return {
    kind: 'postgres',
    authenticate: keys.authenticate,
    touchKey: keys.touch,
    createKey: (brand, now, ko = {}) => decide(createKey(brand, now, ko)),
    listKeys: keys.list,
    revokeKey: (id, now, ro = {}) => decide(revokeKey(id, now, ro)),
    listAudit: audit.page,
    itemAuthors: audit.authors,
    pruneAudit: audit.prune,
    reserveUpload: (u, limits, nowMs) => decide(reserveUpload(u, limits, nowMs)),
    getUpload: uploads.get,
    getUploadByFileId: uploads.getByFileId,
    openForPut: uploads.openForPut,
    markStored: uploads.markStored,
    markNotStored: uploads.markNotStored,
    renewUpload: uploads.renew,
    abortUpload: (key, at, keysOf = ownKey) => decide(abortUpload(key, at, keysOf)),
    complete: (c, keysOf = ownKey) => decide(completion(c, keysOf)),
    getItem: items.get,
    listItems: items.list,
    files: items.files,
    file: items.file,
    updateItem: (brandId, itemId, changes, at, actor, keysOf = ownKey) =>
      decide(updateItem({ brandId, itemId, changes, at, actor }, keysOf)),
    deleteItem: (brandId, itemId, at, actor, keysOf = ownKey) =>
      decide(deleteItem({ brandId, itemId, at, actor }, keysOf)),
    reorderImages: (c) => decide(reorder(c)),
    removeImage: (c, keysOf = ownKey) => decide(removeImage(c, keysOf)),
    heldFiles: checksums.held,
    missingChecksums: checksums.missing,
    recordChecksum: checksums.record,
    missingMedia: media.missing,
    recordMedia: media.record,
    missingPreviews: previews.missing,
    recordPreview: previews.record,
    previewFailed: previews.fail,
    abandonedMultipart: uploads.abandonedMultipart,
    abandonUploads: (beforeMs, at, keysOf = ownKey) => decide(abandonUploads(beforeMs, at, keysOf)),
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
