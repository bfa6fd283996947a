// The Repo is built here once, from what a database brings: its table repositories (answering
// synchronously on SQLite, asynchronously on PostgreSQL), how it runs a decision in one
// transaction, and the few calls only it knows (secrets, health, pool). So no Repo method is
// written once per database: a read names one table function, a change runs one decision
// (./decisions.ts) through `decide`. The steps every decision asks for are mapped here once too
// (`stepsOver`), from the same tables and the database's locks.
import { removeImage, reorder } from './carousel.js';
import { completion } from './completion.js';
import type { AsyncRepoSteps, RepoSteps } from './decisions.js';
import { type Repo, ownKey } from './interface.js';
import { deleteItem, updateItem } from './item-changes.js';
import { createKey, revokeKey } from './key-changes.js';
import type { Decision } from './steps.js';
import { abandonUploads, abortUpload, reserveUpload } from './upload-changes.js';

/** A Repo method as a database may answer it: at once or later. */
type Answer<K extends keyof Repo> = Repo[K] extends (...args: infer A) => Promise<infer R>
  ? (...args: A) => R | Promise<R>
  : never;

/** The reads and small writes of each table, by the names both databases' repositories use. */
export interface RepoTables {
  keys: { authenticate: Answer<'authenticate'>; touch: Answer<'touchKey'>; list: Answer<'listKeys'> };
  audit: { page: Answer<'listAudit'>; authors: Answer<'itemAuthors'>; prune: Answer<'pruneAudit'> };
  uploads: {
    get: Answer<'getUpload'>;
    getByFileId: Answer<'getUploadByFileId'>;
    openForPut: Answer<'openForPut'>;
    markStored: Answer<'markStored'>;
    markNotStored: Answer<'markNotStored'>;
    renew: Answer<'renewUpload'>;
    abandonedMultipart: Answer<'abandonedMultipart'>;
  };
  items: { get: Answer<'getItem'>; list: Answer<'listItems'>; files: Answer<'files'>; file: Answer<'file'> };
  checksums: { held: Answer<'heldFiles'>; missing: Answer<'missingChecksums'>; record: Answer<'recordChecksum'> };
  media: { missing: Answer<'missingMedia'>; record: Answer<'recordMedia'> };
  previews: { missing: Answer<'missingPreviews'>; record: Answer<'recordPreview'>; fail: Answer<'previewFailed'> };
  deletions: {
    claim: Answer<'claimDeletions'>;
    done: Answer<'deletionDone'>;
    failed: Answer<'deletionFailed'>;
    all: Answer<'pendingDeletions'>;
  };
}

/** Runs a decision in one transaction of the database. */
export type Decide = <R>(decision: Decision<RepoSteps, R>) => Promise<R>;

/** What only the database itself knows: its name, its secrets, its health, its pool. */
export type DatabaseCalls = Pick<Repo, 'kind' | 'sharedSecret' | 'ping' | 'check' | 'poolUse' | 'close'> & {
  itemsByType: Answer<'itemsByType'>;
};

/** A function answering at once or later, as one that answers later (as the Repo's methods do). */
function later<A extends unknown[], R>(f: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => f(...args);
}

export function assembleRepo(t: RepoTables, decide: Decide, db: DatabaseCalls): Repo {
  return {
    kind: db.kind,
    authenticate: later(t.keys.authenticate),
    touchKey: later(t.keys.touch),
    createKey: (brand, now, ko = {}) => decide(createKey(brand, now, ko)),
    listKeys: later(t.keys.list),
    revokeKey: (id, now, ro = {}) => decide(revokeKey(id, now, ro)),
    listAudit: later(t.audit.page),
    itemAuthors: later(t.audit.authors),
    pruneAudit: later(t.audit.prune),
    reserveUpload: (u, limits, nowMs) => decide(reserveUpload(u, limits, nowMs)),
    getUpload: later(t.uploads.get),
    getUploadByFileId: later(t.uploads.getByFileId),
    openForPut: later(t.uploads.openForPut),
    markStored: later(t.uploads.markStored),
    markNotStored: later(t.uploads.markNotStored),
    renewUpload: later(t.uploads.renew),
    abortUpload: (key, at, keysOf = ownKey) => decide(abortUpload(key, at, keysOf)),
    complete: (c, keysOf = ownKey) => decide(completion(c, keysOf)),
    getItem: later(t.items.get),
    listItems: later(t.items.list),
    files: later(t.items.files),
    file: later(t.items.file),
    updateItem: (brandId, itemId, changes, at, actor, keysOf = ownKey) =>
      decide(updateItem({ brandId, itemId, changes, at, actor }, keysOf)),
    deleteItem: (brandId, itemId, at, actor, keysOf = ownKey) =>
      decide(deleteItem({ brandId, itemId, at, actor }, keysOf)),
    reorderImages: (c) => decide(reorder(c)),
    removeImage: (c, keysOf = ownKey) => decide(removeImage(c, keysOf)),
    heldFiles: later(t.checksums.held),
    missingChecksums: later(t.checksums.missing),
    recordChecksum: later(t.checksums.record),
    missingMedia: later(t.media.missing),
    recordMedia: later(t.media.record),
    missingPreviews: later(t.previews.missing),
    recordPreview: later(t.previews.record),
    previewFailed: later(t.previews.fail),
    abandonedMultipart: later(t.uploads.abandonedMultipart),
    abandonUploads: (beforeMs, at, keysOf = ownKey) => decide(abandonUploads(beforeMs, at, keysOf)),
    claimDeletions: later(t.deletions.claim),
    deletionDone: later(t.deletions.done),
    deletionFailed: later(t.deletions.failed),
    pendingDeletions: later(t.deletions.all),
    sharedSecret: db.sharedSecret,
    ping: db.ping,
    check: db.check,
    itemsByType: later(db.itemsByType),
    poolUse: db.poolUse,
    close: db.close,
  };
}

/** A step as a database answers it: at once (RepoSteps) or later (AsyncRepoSteps). */
type StepOf<S, K extends keyof RepoSteps> = K extends keyof S ? S[K] : never;

/** The tables' functions the decisions' steps are, by the repositories' names. */
export interface StepTables<S extends RepoSteps | AsyncRepoSteps> {
  items: {
    get: StepOf<S, 'readItem'>;
    files: StepOf<S, 'files'>;
    update: StepOf<S, 'writeItem'>;
    remove: StepOf<S, 'removeItem'>;
    dropFile: StepOf<S, 'dropFile'>;
    insertFile: StepOf<S, 'insertFile'>;
    arrange: StepOf<S, 'arrange'>;
    create: StepOf<S, 'createItem'>;
    addFile: StepOf<S, 'addFile'>;
    file: StepOf<S, 'readFile'>;
  };
  uploads: {
    attachThumbnail: StepOf<S, 'attachThumbnail'>;
    remove: StepOf<S, 'removeUpload'>;
    removeOfItem: StepOf<S, 'removeUploadsOf'>;
    markCompleted: StepOf<S, 'markCompleted'>;
    holdings: StepOf<S, 'holdings'>;
    insert: StepOf<S, 'insertUpload'>;
    removeOpen: StepOf<S, 'removeOpenUpload'>;
    removeAbandoned: StepOf<S, 'removeAbandoned'>;
  };
  keys: {
    brandOf: StepOf<S, 'brandOf'>;
    insertUser: StepOf<S, 'insertUser'>;
    insertKey: StepOf<S, 'insertKey'>;
    row: StepOf<S, 'keyRow'>;
    list: StepOf<S, 'brandKeys'>;
    markRevoked: StepOf<S, 'markRevoked'>;
  };
  deletions: { add: StepOf<S, 'queueDeletions'> };
  audit: { write: StepOf<S, 'audit'> };
}

/** How a database holds what a decision reads until it commits (SQLite's write lock holds it all). */
export type StepLocks<S extends RepoSteps | AsyncRepoSteps> = Pick<
  S,
  'lockItem' | 'lockUpload' | 'lockQuota' | 'lockBrand'
>;

/** The steps of every decision (./decisions.ts), from a database's tables and locks. */
export function stepsOver<S extends RepoSteps | AsyncRepoSteps>(t: StepTables<S>, locks: StepLocks<S>): S {
  const steps = {
    ...locks,
    readItem: t.items.get,
    files: t.items.files,
    writeItem: t.items.update,
    removeItem: t.items.remove,
    attachThumbnail: t.uploads.attachThumbnail,
    removeUpload: t.uploads.remove,
    removeUploadsOf: t.uploads.removeOfItem,
    queueDeletions: t.deletions.add,
    audit: t.audit.write,
    dropFile: t.items.dropFile,
    insertFile: t.items.insertFile,
    arrange: t.items.arrange,
    createItem: t.items.create,
    addFile: t.items.addFile,
    markCompleted: t.uploads.markCompleted,
    readFile: t.items.file,
    holdings: t.uploads.holdings,
    insertUpload: t.uploads.insert,
    removeOpenUpload: t.uploads.removeOpen,
    removeAbandoned: t.uploads.removeAbandoned,
    brandOf: t.keys.brandOf,
    insertUser: t.keys.insertUser,
    insertKey: t.keys.insertKey,
    keyRow: t.keys.row,
    brandKeys: t.keys.list,
    markRevoked: t.keys.markRevoked,
  };
  // Every step of S is set above from the member of S it names; TypeScript cannot follow a generic S.
  return steps as unknown as S;
}
