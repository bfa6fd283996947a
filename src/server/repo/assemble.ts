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

/** Where a member is found: a table's name and the name of its function there. */
type Sources = Record<string, readonly [table: string, fn: string]>;

/** The tables `sources` names, each with the functions it names, typed as `Target`'s members. */
type TablesOf<Src extends Sources, Target> = {
  [T in Src[keyof Src][0]]: {
    [K in keyof Src as Src[K][0] extends T ? Src[K][1] : never]: K extends keyof Target ? Target[K] : never;
  };
};

/** Each member `sources` names, taken from `tables`. */
function membersOf<Src extends Sources>(sources: Src, tables: object): Record<keyof Src, unknown> {
  // `tables` is a TablesOf<Src, …>: every table and function the sources name is there.
  const byName = tables as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [member, [table, fn]] of Object.entries(sources)) out[member] = byName[table]![fn];
  return out as Record<keyof Src, unknown>;
}

/** The Repo's reads and small writes: each one table function, by the name both databases' repositories use. */
const READS = {
  authenticate: ['keys', 'authenticate'],
  touchKey: ['keys', 'touch'],
  listKeys: ['keys', 'list'],
  listAudit: ['audit', 'page'],
  itemAuthors: ['audit', 'authors'],
  pruneAudit: ['audit', 'prune'],
  getUpload: ['uploads', 'get'],
  getUploadByFileId: ['uploads', 'getByFileId'],
  openForPut: ['uploads', 'openForPut'],
  markStored: ['uploads', 'markStored'],
  markNotStored: ['uploads', 'markNotStored'],
  renewUpload: ['uploads', 'renew'],
  abandonedMultipart: ['uploads', 'abandonedMultipart'],
  getItem: ['items', 'get'],
  listItems: ['items', 'list'],
  files: ['items', 'files'],
  file: ['items', 'file'],
  heldFiles: ['checksums', 'held'],
  missingChecksums: ['checksums', 'missing'],
  recordChecksum: ['checksums', 'record'],
  missingMedia: ['media', 'missing'],
  recordMedia: ['media', 'record'],
  missingPreviews: ['previews', 'missing'],
  recordPreview: ['previews', 'record'],
  previewFailed: ['previews', 'fail'],
  claimDeletions: ['deletions', 'claim'],
  deletionDone: ['deletions', 'done'],
  deletionFailed: ['deletions', 'failed'],
  pendingDeletions: ['deletions', 'all'],
} as const satisfies Sources;

type Reads = keyof typeof READS;

/** The table repositories a database brings for the Repo's reads (answering at once or later). */
export type RepoTables = TablesOf<typeof READS, { [K in Reads]: Answer<K> }>;

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
  const reads = membersOf(READS, t) as { [K in Reads]: Answer<K> };
  const answered = Object.fromEntries(
    Object.entries(reads).map(([name, fn]) => [name, later(fn as (...args: unknown[]) => unknown)]),
  ) as Pick<Repo, Reads>;
  return {
    ...answered,
    kind: db.kind,
    createKey: (brand, now, ko = {}) => decide(createKey(brand, now, ko)),
    revokeKey: (id, now, ro = {}) => decide(revokeKey(id, now, ro)),
    reserveUpload: (u, limits, nowMs) => decide(reserveUpload(u, limits, nowMs)),
    abortUpload: (key, at, keysOf = ownKey) => decide(abortUpload(key, at, keysOf)),
    complete: (c, keysOf = ownKey) => decide(completion(c, keysOf)),
    updateItem: (brandId, itemId, changes, at, actor, keysOf = ownKey) =>
      decide(updateItem({ brandId, itemId, changes, at, actor }, keysOf)),
    deleteItem: (brandId, itemId, at, actor, keysOf = ownKey) =>
      decide(deleteItem({ brandId, itemId, at, actor }, keysOf)),
    reorderImages: (c) => decide(reorder(c)),
    removeImage: (c, keysOf = ownKey) => decide(removeImage(c, keysOf)),
    abandonUploads: (beforeMs, at, keysOf = ownKey) => decide(abandonUploads(beforeMs, at, keysOf)),
    sharedSecret: db.sharedSecret,
    ping: db.ping,
    check: db.check,
    itemsByType: later(db.itemsByType),
    poolUse: db.poolUse,
    close: db.close,
  };
}

/** The steps of every decision but the locks: each one table function, by the repositories' names. */
const STEPS = {
  readItem: ['items', 'get'],
  files: ['items', 'files'],
  writeItem: ['items', 'update'],
  removeItem: ['items', 'remove'],
  dropFile: ['items', 'dropFile'],
  insertFile: ['items', 'insertFile'],
  arrange: ['items', 'arrange'],
  createItem: ['items', 'create'],
  addFile: ['items', 'addFile'],
  readFile: ['items', 'file'],
  attachThumbnail: ['uploads', 'attachThumbnail'],
  removeUpload: ['uploads', 'remove'],
  removeUploadsOf: ['uploads', 'removeOfItem'],
  markCompleted: ['uploads', 'markCompleted'],
  holdings: ['uploads', 'holdings'],
  insertUpload: ['uploads', 'insert'],
  removeOpenUpload: ['uploads', 'removeOpen'],
  removeAbandoned: ['uploads', 'removeAbandoned'],
  brandOf: ['keys', 'brandOf'],
  insertUser: ['keys', 'insertUser'],
  insertKey: ['keys', 'insertKey'],
  keyRow: ['keys', 'row'],
  brandKeys: ['keys', 'list'],
  markRevoked: ['keys', 'markRevoked'],
  queueDeletions: ['deletions', 'add'],
  audit: ['audit', 'write'],
} as const satisfies Sources;

/** How a database holds what a decision reads until it commits (SQLite's write lock holds it all). */
type LockStep = 'lockItem' | 'lockUpload' | 'lockQuota' | 'lockBrand';
export type StepLocks<S extends RepoSteps | AsyncRepoSteps> = Pick<S, LockStep>;

/** The table repositories a database brings for the steps (S: answering at once, or later). */
export type StepTables<S extends RepoSteps | AsyncRepoSteps> = TablesOf<typeof STEPS, S>;

/** The steps of every decision (./decisions.ts), from a database's tables and locks. */
export function stepsOver<S extends RepoSteps | AsyncRepoSteps>(t: StepTables<S>, locks: StepLocks<S>): S {
  // Every step but the locks is named in STEPS (_everyStep below checks it), from the table it names.
  return { ...membersOf(STEPS, t), ...locks } as unknown as S;
}

// Every step is either a lock or named in STEPS (stepsOver's cast cannot check it; this does).
const _everyStep: Record<Exclude<keyof RepoSteps, LockStep>, unknown> = STEPS;
