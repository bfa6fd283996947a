// The upload journal: what earlier runs already uploaded to a library, so that running the same
// command again creates nothing twice and a half-done carousel is finished into the same item.
//
// One SQLite database per target library in the state directory (node:sqlite, WAL). A file is
// known by its absolute path, size and modification time: edit the file and it counts as new.
// The target is a hash of the base URL (or the embedded data directory) and the API key's
// identity — never the key itself.
//
// Each file goes through three states, each one small transaction written at once:
//   presigned (its storage key) → put (the bytes are stored) → completed (it is part of an item).
// A key that is presigned or put but not confirmed completed is completed again by the next run
// (complete is idempotent per key on the server), never presigned anew: that is what keeps an item
// from being created twice when complete's answer was lost. Recording costs the same at the
// 10,000th file as at the first, and reading is one indexed lookup per file.
//
// Crash safety: every change is committed before the engine goes on (WAL, synchronous=NORMAL),
// so a Ctrl-C or kill -9 of this process loses nothing committed; a power cut may lose the last
// few changes, which costs at most a re-upload of those files, never a duplicate item (their keys
// are completed again, or presigned anew and the old ones are swept by the server).
//
// A multipart upload (issue 28) also records its plan, the file's SHA-256 and each part as it is
// stored (tables `multipart` and `parts`), so a re-run after Ctrl-C or kill -9 sends only the
// missing parts. They are found by path, so that a file changed since is recognised and its old
// upload aborted. The tables are additive: a journal of version 2 gains them on open, and an older
// contentlib reading it never looks at them.
//
// One process at a time per library: the upload command holds journal-lock.ts's lock while the
// journal is open. Journals of version 1 (one JSON document) are imported on first open
// (./journal-migrate.ts).
import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Database, plucked, typed } from '../../sqlite/database.js';
import { errorCode } from '../../sqlite/codes.js';
import type { ContentType } from '../../rules/rules.js';
import { makeDir } from '../../fs/make-dir.js';
import { migrateJsonJournal } from './journal-migrate.js';

/** PRAGMA user_version of the database; the JSON journals were version 1. */
export const JOURNAL_VERSION = 2;

/** What identifies a file on disk: change any of it and it is a different upload. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
}

export type FileState = 'presigned' | 'put' | 'completed';

/** A file the journal knows: its key at least; the item it is part of once completed. */
export interface JournalRecord {
  path: string;
  size: number;
  mtimeMs: number;
  state: FileState;
  key: string;
  type: ContentType;
  itemId?: string;
  sortOrder?: number;
  updatedAt: string;
}

/** A completed file: part of `itemId`. */
export type JournalFileEntry = JournalRecord & { state: 'completed'; itemId: string };

/** An unfinished multipart upload of the file at `path`: its plan and the parts stored so far. */
export interface MultipartRecord {
  key: string;
  path: string;
  size: number;
  mtimeMs: number;
  /** The file's SHA-256 when it was started (undefined when the service refused checksums). */
  sha256?: string;
  type: ContentType;
  partSize: number;
  partCount: number;
  /** The parts stored, in part order. */
  parts: Array<{ partNumber: number; etag: string; size: number }>;
}

export interface JournalItemEntry {
  /** Hash of the metadata last applied by PATCH; a re-run with other metadata applies it again. */
  metadataHash?: string;
  /** The thumbnail file last attached (its identity key). */
  thumbnail?: string;
  updatedAt: string;
}

export interface Journal {
  /** Where it lives, for messages. */
  readonly path: string;
  /** Set when an unreadable journal was put aside, or an old one imported: say so, once. */
  readonly warning: string | undefined;
  /** Just the item the file is part of, if any: what a re-run asks of every file, so it builds no record. */
  completedItem(file: FileIdentity): string | undefined;
  /** Whatever the journal knows about the file, in any state. */
  lookup(file: FileIdentity): JournalRecord | undefined;
  /** A key was presigned for the file: remember it before its bytes are sent. */
  recordPresigned(file: FileIdentity, entry: { key: string; type: ContentType }): void;
  /** The PUT of `key` answered 2xx: its bytes are stored, the item not yet created. */
  recordPut(file: FileIdentity, key: string): void;
  /** complete answered: the file is part of `itemId`. */
  recordFile(file: FileIdentity, entry: { itemId: string; key: string; type: ContentType; sortOrder?: number }): void;
  /** Forgets the file's unfinished key (the server no longer knows it): the next try presigns anew. */
  dropPending(file: FileIdentity): void;
  /** The unfinished multipart upload of the file at this path, whatever its size and mtime now. */
  multipart(path: string): MultipartRecord | undefined;
  /** A multipart upload was started for the file (any earlier one of its path is forgotten). */
  recordMultipart(file: FileIdentity, entry: Omit<MultipartRecord, 'path' | 'size' | 'mtimeMs' | 'parts'>): void;
  /** The file's SHA-256, known after its parts began (hashed while they were sent): complete declares it. */
  recordMultipartSha256(key: string, sha256: string): void;
  /** One part of `key` is stored (a part sent again replaces its ETag). */
  recordPart(key: string, part: { partNumber: number; etag: string; size: number }): void;
  /** Forgets a multipart upload and its parts (completed, aborted, or unknown to the service). */
  dropMultipart(key: string): void;
  item(itemId: string): JournalItemEntry | undefined;
  recordItem(itemId: string, entry: Omit<JournalItemEntry, 'updatedAt'>): void;
  /** Drops an item and its files (it was deleted, or is gone from the library). */
  forgetItem(itemId: string): void;
  /** Closes the database (folds the WAL back in). Further calls throw. */
  close(): void;
}

/** A stable, non-secret name for a target library: sha256 of where it is and who we are there. */
export function journalTargetId(where: string, identity: string): string {
  return createHash('sha256').update(`${where}\n${identity}`).digest('hex').slice(0, 32);
}

export function fileKeyOf(file: FileIdentity): string {
  return `${file.path}\u0000${file.size}\u0000${file.mtimeMs}`;
}

/** Hash of metadata as sent, for "was this already applied?". Key order does not matter. */
export function metadataHash(metadata: unknown): string {
  return createHash('sha256').update(stableJson(metadata)).digest('hex').slice(0, 32);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('presigned', 'put', 'completed')),
  key TEXT NOT NULL,
  type TEXT NOT NULL,
  item_id TEXT,
  sort_order INTEGER,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (path, size, mtime_ms)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_by_item ON files (item_id) WHERE item_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS multipart (
  key TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  sha256 TEXT,
  type TEXT NOT NULL,
  part_size INTEGER NOT NULL,
  part_count INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS multipart_by_path ON multipart (path);
CREATE TABLE IF NOT EXISTS parts (
  key TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  etag TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (key, part_number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
  item_id TEXT PRIMARY KEY,
  metadata_hash TEXT,
  thumbnail TEXT,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
`;

interface FileRow {
  path: string;
  size: number;
  mtime_ms: number;
  state: FileState;
  key: string;
  type: ContentType;
  item_id: string | null;
  sort_order: number | null;
  updated_at: string;
}

interface MultipartRow {
  key: string;
  path: string;
  size: number;
  mtime_ms: number;
  sha256: string | null;
  type: ContentType;
  part_size: number;
  part_count: number;
}

interface ItemRow {
  metadata_hash: string | null;
  thumbnail: string | null;
  updated_at: string;
}

function recordOf(row: FileRow): JournalRecord {
  return {
    path: row.path,
    size: row.size,
    mtimeMs: row.mtime_ms,
    state: row.state,
    key: row.key,
    type: row.type,
    ...(row.item_id === null ? {} : { itemId: row.item_id }),
    ...(row.sort_order === null ? {} : { sortOrder: row.sort_order }),
    updatedAt: row.updated_at,
  };
}

export async function openJournal(
  stateDir: string,
  targetId: string,
  now: () => Date = () => new Date(),
): Promise<Journal> {
  const dir = join(stateDir, 'journals');
  await makeDir(dir);
  const path = join(dir, `${targetId}.db`);
  const { db, warning: unreadable } = await openDatabase(path, now);
  const imported = await migrateJsonJournal(join(dir, `${targetId}.json`), db, now);
  const warning = [unreadable, imported].filter(Boolean).join(' ') || undefined;
  return journalOn(db, path, warning, now);
}

/** Opens (or creates) the database; an unreadable one is put aside and a new one started. */
async function openDatabase(path: string, now: () => Date): Promise<{ db: Database; warning?: string }> {
  try {
    return { db: prepareDatabase(path) };
  } catch (err) {
    if (!isCorrupt(err)) throw err;
  }
  // Keep the unreadable one for a person to look at; start afresh rather than refuse to upload.
  const aside = `${path}.unreadable-${now().toISOString().replace(/[:.]/g, '-')}`;
  await rename(path, aside);
  await rm(`${path}-wal`, { force: true });
  await rm(`${path}-shm`, { force: true });
  return {
    db: prepareDatabase(path),
    warning: `The upload journal ${path} could not be read; it was moved to ${aside} and a new one started. Files uploaded before may be uploaded again.`,
  };
}

function prepareDatabase(path: string): Database {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    // A commit survives the process being killed; only a power cut may lose the last few.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    // SQLite's page cache (2 MiB by default) filled with the journal of a long run and was part of
    // the CLI's peak memory growing with the number of files (bench/notes.md, issue 17); each
    // change and lookup touches one path of an index, which 256 KiB holds.
    db.pragma('cache_size = -256');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > JOURNAL_VERSION)
      throw new Error(`the upload journal ${path} was written by a newer contentlib (version ${version})`);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${JOURNAL_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function isCorrupt(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

function journalOn(db: Database, path: string, warning: string | undefined, now: () => Date): Journal {
  const q = {
    lookup: typed<[string, number, number], FileRow>(
      db,
      'SELECT * FROM files WHERE path = ? AND size = ? AND mtime_ms = ?',
    ),
    completedItem: plucked<[string, number, number], string>(
      db.prepare("SELECT item_id FROM files WHERE path = ? AND size = ? AND mtime_ms = ? AND state = 'completed'"),
    ),
    presigned: db.prepare(
      `INSERT INTO files (path, size, mtime_ms, state, key, type, item_id, sort_order, updated_at)
       VALUES (@path, @size, @mtimeMs, 'presigned', @key, @type, NULL, NULL, @at)
       ON CONFLICT (path, size, mtime_ms) DO UPDATE SET
         state = 'presigned', key = @key, type = @type, item_id = NULL, sort_order = NULL, updated_at = @at`,
    ),
    put: db.prepare(
      `UPDATE files SET state = 'put', updated_at = @at
       WHERE path = @path AND size = @size AND mtime_ms = @mtimeMs AND key = @key AND state = 'presigned'`,
    ),
    completed: db.prepare(
      `INSERT INTO files (path, size, mtime_ms, state, key, type, item_id, sort_order, updated_at)
       VALUES (@path, @size, @mtimeMs, 'completed', @key, @type, @itemId, @sortOrder, @at)
       ON CONFLICT (path, size, mtime_ms) DO UPDATE SET
         state = 'completed', key = @key, type = @type, item_id = @itemId, sort_order = @sortOrder, updated_at = @at`,
    ),
    dropPending: typed<[string, number, number]>(
      db,
      "DELETE FROM files WHERE path = ? AND size = ? AND mtime_ms = ? AND state <> 'completed'",
    ),
    item: typed<[string], ItemRow>(db, 'SELECT metadata_hash, thumbnail, updated_at FROM items WHERE item_id = ?'),
    recordItem: db.prepare(
      `INSERT INTO items (item_id, metadata_hash, thumbnail, updated_at) VALUES (@itemId, @metadataHash, @thumbnail, @at)
       ON CONFLICT (item_id) DO UPDATE SET
         metadata_hash = coalesce(@metadataHash, metadata_hash),
         thumbnail = coalesce(@thumbnail, thumbnail),
         updated_at = @at`,
    ),
    multipart: typed<[string], MultipartRow>(
      db,
      'SELECT * FROM multipart WHERE path = ? ORDER BY updated_at DESC LIMIT 1',
    ),
    parts: typed<[string], { partNumber: number; etag: string; size: number }>(
      db,
      'SELECT part_number AS partNumber, etag, size FROM parts WHERE key = ? ORDER BY part_number',
    ),
    multipartKeysOf: plucked<[string], string>(db.prepare('SELECT key FROM multipart WHERE path = ?')),
    insertMultipart: db.prepare(
      `INSERT INTO multipart (key, path, size, mtime_ms, sha256, type, part_size, part_count, updated_at)
       VALUES (@key, @path, @size, @mtimeMs, @sha256, @type, @partSize, @partCount, @at)`,
    ),
    part: db.prepare(
      `INSERT INTO parts (key, part_number, etag, size) VALUES (@key, @partNumber, @etag, @size)
       ON CONFLICT (key, part_number) DO UPDATE SET etag = @etag, size = @size`,
    ),
    dropMultipart: typed<[string]>(db, 'DELETE FROM multipart WHERE key = ?'),
    multipartSha256: typed<[string, string]>(db, 'UPDATE multipart SET sha256 = ? WHERE key = ?'),
    dropParts: typed<[string]>(db, 'DELETE FROM parts WHERE key = ?'),
    forgetFiles: typed<[string]>(db, 'DELETE FROM files WHERE item_id = ?'),
    forgetItem: typed<[string]>(db, 'DELETE FROM items WHERE item_id = ?'),
  };
  const at = () => now().toISOString();
  const lookup = (f: FileIdentity) => {
    const row = q.lookup.get(f.path, f.size, f.mtimeMs);
    return row ? recordOf(row) : undefined;
  };
  const identity = (f: FileIdentity) => ({ path: f.path, size: f.size, mtimeMs: f.mtimeMs });
  const dropMultipart = db.transaction((key: string) => {
    q.dropParts.run(key);
    q.dropMultipart.run(key);
  });
  const startMultipart = db.transaction((row: Record<string, unknown> & { path: string }) => {
    for (const old of q.multipartKeysOf.all(row.path)) dropMultipart(old);
    q.insertMultipart.run(row);
  });
  const forget = db.transaction((itemId: string) => {
    q.forgetFiles.run(itemId);
    q.forgetItem.run(itemId);
  });

  return {
    path,
    warning,
    lookup,
    completedItem: (file) => q.completedItem.get(file.path, file.size, file.mtimeMs) ?? undefined,
    recordPresigned(file, entry) {
      q.presigned.run({ ...identity(file), key: entry.key, type: entry.type, at: at() });
    },
    recordPut(file, key) {
      q.put.run({ ...identity(file), key, at: at() });
    },
    recordFile(file, entry) {
      q.completed.run({
        ...identity(file),
        key: entry.key,
        type: entry.type,
        itemId: entry.itemId,
        sortOrder: entry.sortOrder ?? null,
        at: at(),
      });
    },
    dropPending(file) {
      q.dropPending.run(file.path, file.size, file.mtimeMs);
    },
    multipart(path) {
      const row = q.multipart.get(path);
      if (!row) return undefined;
      return {
        key: row.key,
        path: row.path,
        size: row.size,
        mtimeMs: row.mtime_ms,
        ...(row.sha256 === null ? {} : { sha256: row.sha256 }),
        type: row.type,
        partSize: row.part_size,
        partCount: row.part_count,
        parts: q.parts.all(row.key),
      };
    },
    recordMultipart(file, entry) {
      startMultipart({
        ...identity(file),
        key: entry.key,
        sha256: entry.sha256 ?? null,
        type: entry.type,
        partSize: entry.partSize,
        partCount: entry.partCount,
        at: at(),
      });
    },
    recordMultipartSha256(key, sha256) {
      q.multipartSha256.run(sha256, key);
    },
    recordPart(key, part) {
      q.part.run({ key, ...part });
    },
    dropMultipart(key) {
      dropMultipart(key);
    },
    item(itemId) {
      const row = q.item.get(itemId);
      if (!row) return undefined;
      return {
        ...(row.metadata_hash === null ? {} : { metadataHash: row.metadata_hash }),
        ...(row.thumbnail === null ? {} : { thumbnail: row.thumbnail }),
        updatedAt: row.updated_at,
      };
    },
    recordItem(itemId, entry) {
      q.recordItem.run({
        itemId,
        metadataHash: entry.metadataHash ?? null,
        thumbnail: entry.thumbnail ?? null,
        at: at(),
      });
    },
    forgetItem(itemId) {
      forget(itemId);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
