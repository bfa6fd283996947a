// The embedded server's database: SQLite (node:sqlite, src/sqlite/database.ts) in WAL mode (so `contentlib keys` can write
// while a server on the same data dir runs), with numbered migrations recorded in `migrations`.
import { chmodSync, closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../../sqlite/database.js';
import { SCOPES } from '../../../api/scopes.js';
import { makeDirSync } from '../../../fs/make-dir.js';
import { SQLITE, auditLogTable, batchIdMigration, firstMigrations, multipartMigration } from '../schema.js';
import { PREVIEWS_MIGRATION } from '../previews-migration.js';
import { SQLITE_FOLD_HASHTAG, searchMigration } from '../search-schema.js';
import { foldHashtag } from '../list-filter.js';

/** Every scope, as stored: what keys made before scopes existed are given. */
const ALL_SCOPES = SCOPES.join(' ');

export type Db = Database;

/**
 * Each entry runs once, in order, inside a transaction; never edit one that has shipped. The first
 * are written once for both databases (./repo/schema.ts); later ones are appended here.
 */
export const MIGRATIONS: readonly string[] = [
  ...firstMigrations(SQLITE),
  // Scoped, named, expiring keys (keys made before keep every scope) and the audit log, which
  // has no foreign keys: its entries outlive their items and keys (docs/api.md, Audit log).
  `ALTER TABLE api_keys ADD COLUMN name TEXT;
   ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
   ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
   ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
   UPDATE api_keys SET scopes = '${ALL_SCOPES}';
   ${auditLogTable(SQLITE)}`,
  // Content identity: the SHA-256 declared at presign, and each stored file's verified one (the
  // main file, each carousel image, the thumbnail). NULL on rows made before: the sweeper fills
  // them in from the stored objects (src/server/checksum-backfill.ts).
  `ALTER TABLE uploads ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN thumbnail_sha256 TEXT;
   ALTER TABLE carousel_files ADD COLUMN sha256 TEXT;
   CREATE INDEX items_sha256 ON items(brand_id, sha256);
   CREATE INDEX items_thumbnail_sha256 ON items(brand_id, thumbnail_sha256);
   CREATE INDEX carousel_files_sha256 ON carousel_files(sha256);`,
  // Multipart uploads: the plan presign offered (./repo/schema.ts, as on PostgreSQL).
  multipartMigration(SQLITE),
  // Media facts (issue 39): what each stored file's bytes say, as JSON text (src/rules/media-facts.ts).
  // NULL on rows made before: the sweeper measures them (src/server/media-backfill.ts).
  `ALTER TABLE items ADD COLUMN media TEXT;
   ALTER TABLE carousel_files ADD COLUMN media TEXT;`,
  // Bulk changes (issue 38): the batch id a PATCH, DELETE or carousel change was sent with
  // (Content-Library-Batch), so a batch's entries are listed and undone together.
  batchIdMigration,
  // Posters and previews (issue 39): ../previews-migration.ts, the same text on PostgreSQL.
  PREVIEWS_MIGRATION,
  // The search extension (issue 38): who made and last changed each item, folded hashtags, the
  // FTS5 index and the sorts' indexes, filled in from the library's rows (../search-schema.ts).
  searchMigration(SQLITE),
];

export function databasePath(dataDir: string): string {
  return join(dataDir, 'contentlib.db');
}

/** Opens (creating if needed) the data dir's database and brings its schema up to date. */
export function openDatabase(dataDir: string): Db {
  makeDirSync(dataDir);
  const path = databasePath(dataDir);
  ownerOnly(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // Another process (keys create, a second server) may hold the write lock for a moment.
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  migrate(db);
  // SQLite gives the WAL and SHM files the database file's mode; older data dirs may have 0644 ones.
  for (const file of [`${path}-wal`, `${path}-shm`]) chmodIfThere(file);
  return db;
}

/** The database file exists with mode 0600 before SQLite opens it (SQLite would make it 0644). */
function ownerOnly(path: string): void {
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (err) {
    // A folder where the file should be: SQLite's own SQLITE_CANTOPEN says so in the CLI's words.
    if ((err as NodeJS.ErrnoException).code === 'EISDIR') return;
    throw err;
  }
  chmodSync(path, 0o600);
}

function chmodIfThere(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function migrate(db: Db): void {
  // Hashtags fold in JS (unicode-aware); SQLite's own lower() folds ASCII only.
  db.textFunction(SQLITE_FOLD_HASHTAG, foldHashtag);
  db.exec('CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  // IMMEDIATE takes the write lock first, so two processes starting at once never both migrate.
  const run = db.transaction(() => {
    const row = db.prepare('SELECT MAX(id) AS id FROM migrations').get() as { id: number | null };
    const done = row.id ?? 0;
    for (let i = done; i < MIGRATIONS.length; i++) {
      db.exec(MIGRATIONS[i]!);
      db.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)').run(i + 1, new Date().toISOString());
    }
  });
  run.immediate();
}
