// PostgreSQL schema, as numbered migrations recorded in `contentlib_migrations`. They run under a
// transaction-level advisory lock, so N instances starting together migrate once: the first takes
// the lock and migrates, the others wait for it and then find nothing left to do.
// Times the API shows are ISO-8601 TEXT, exactly as on SQLite, so both answer byte for byte
// alike; times only the database compares (outbox leases) are timestamptz from its own clock.
// JSON fields stay TEXT too: jsonb would reorder an object's keys.
import type pg from 'pg';

/** Each entry runs once, in order; never edit one that has shipped. */
export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE brands (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL
   );
   CREATE TABLE users (
     id TEXT PRIMARY KEY,
     brand_id TEXT NOT NULL REFERENCES brands(id),
     created_at TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     key_hash BYTEA NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE TABLE uploads (
     key TEXT PRIMARY KEY,
     file_id TEXT NOT NULL,
     brand_id TEXT NOT NULL REFERENCES brands(id),
     user_id TEXT NOT NULL REFERENCES users(id),
     file_name TEXT NOT NULL,
     content_type TEXT NOT NULL,
     file_size BIGINT NOT NULL,
     type TEXT NOT NULL,
     thumbnail BOOLEAN NOT NULL DEFAULT false,
     expires_at BIGINT NOT NULL,
     created_at TEXT NOT NULL,
     stored_at TEXT,
     completed_at TEXT,
     item_id TEXT,
     file_record_id TEXT
   );
   CREATE INDEX uploads_brand ON uploads(brand_id);
   CREATE INDEX uploads_item ON uploads(item_id);
   CREATE INDEX uploads_open ON uploads(expires_at) WHERE completed_at IS NULL AND item_id IS NULL;
   CREATE TABLE items (
     id TEXT PRIMARY KEY,
     brand_id TEXT NOT NULL REFERENCES brands(id),
     type TEXT NOT NULL,
     title TEXT NOT NULL,
     title_fold TEXT NOT NULL,
     description TEXT NOT NULL DEFAULT '',
     hashtags TEXT NOT NULL DEFAULT '[]',
     status TEXT NOT NULL,
     platform_settings TEXT NOT NULL DEFAULT '{}',
     -- One upload becomes at most one item, whichever instance completes it.
     file_key TEXT NOT NULL UNIQUE,
     file_name TEXT NOT NULL,
     content_type TEXT NOT NULL,
     file_size BIGINT NOT NULL,
     duration_seconds DOUBLE PRECISION,
     thumbnail_key TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX items_brand_order ON items(brand_id, created_at DESC, id DESC);
   CREATE TABLE carousel_files (
     id TEXT PRIMARY KEY,
     item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
     file_key TEXT NOT NULL UNIQUE,
     file_name TEXT NOT NULL,
     content_type TEXT NOT NULL,
     file_size BIGINT NOT NULL,
     sort_order INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     UNIQUE (item_id, sort_order)
   );
   CREATE TABLE pending_deletions (
     object_key TEXT PRIMARY KEY,
     attempts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     created_at TEXT NOT NULL,
     leased_until TIMESTAMPTZ
   );
   CREATE TABLE shared_secrets (
     name TEXT PRIMARY KEY,
     value BYTEA NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT now()
   );`,
  // The API key that presigned an upload: revoking the key closes its URL (as on SQLite).
  `ALTER TABLE uploads ADD COLUMN key_id TEXT;
   CREATE INDEX uploads_file_id ON uploads(file_id);`,
  // Content identity (as on SQLite): the SHA-256 declared at presign and each stored file's
  // verified one; NULL on rows made before, filled in by the sweeper.
  `ALTER TABLE uploads ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN sha256 TEXT, ADD COLUMN thumbnail_sha256 TEXT;
   ALTER TABLE carousel_files ADD COLUMN sha256 TEXT;
   CREATE INDEX items_sha256 ON items(brand_id, sha256);
   CREATE INDEX items_thumbnail_sha256 ON items(brand_id, thumbnail_sha256);
   CREATE INDEX carousel_files_sha256 ON carousel_files(sha256);`,
];

/** Any fixed number, the same in every instance: the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 0x636c6962; // "clib"

export async function migratePostgres(client: pg.ClientBase): Promise<number> {
  await client.query('BEGIN');
  try {
    // Released by COMMIT or ROLLBACK: a crashed instance never leaves it held.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS contentlib_migrations (id INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ id: number | null }>('SELECT MAX(id) AS id FROM contentlib_migrations');
    const done = rows[0]?.id ?? 0;
    if (done > PG_MIGRATIONS.length) {
      throw new Error(
        `the database's schema (migration ${done}) is newer than this contentlib knows (${PG_MIGRATIONS.length}); upgrade contentlib`,
      );
    }
    for (let i = done; i < PG_MIGRATIONS.length; i++) {
      await client.query(PG_MIGRATIONS[i]!);
      await client.query('INSERT INTO contentlib_migrations (id) VALUES ($1)', [i + 1]);
    }
    await client.query('COMMIT');
    return PG_MIGRATIONS.length - done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
