// The embedded server's database: SQLite (node:sqlite, src/sqlite/database.ts) in WAL mode (so `contentlib keys` can write
// while a server on the same data dir runs), with numbered migrations recorded in `migrations`.
import { chmodSync, closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../../sqlite/database.js';
import { makeDirSync } from '../../../fs/make-dir.js';
import { migrationsOf } from '../migrations.js';
import { SQLITE } from '../schema.js';
import { SQLITE_FOLD_HASHTAG } from '../search-schema.js';
import { foldHashtag } from '../list-filter.js';

export type Db = Database;

/** Every migration (../migrations.ts), as SQLite spells it. */
export const MIGRATIONS: readonly string[] = migrationsOf(SQLITE);

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
