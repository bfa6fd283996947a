// The first migrations, written once for both databases: the same tables and columns, each in
// its database's types, and the parts later migrations share (the audit log's table, the
// multipart columns). They are listed with the later ones once, in ./migrations.ts. The texts
// are exactly those that shipped (a migration that has run is never edited); PostgreSQL, shared
// by many instances, also has the unique keys behind its row locks, the outbox's leases and the
// shared secrets.

export interface Dialect {
  /** Bytes (a key's hash). */
  bytes: string;
  /** Sizes and Unix milliseconds. */
  bigint: string;
  /** A false-by-default flag. */
  flag: string;
  seconds: string;
  /** An id the database numbers, in increasing order. */
  autoId: string;
  postgres: boolean;
}

export const SQLITE: Dialect = {
  bytes: 'BLOB',
  bigint: 'INTEGER',
  flag: 'INTEGER NOT NULL DEFAULT 0',
  seconds: 'REAL',
  autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  postgres: false,
};

export const POSTGRES: Dialect = {
  bytes: 'BYTEA',
  bigint: 'BIGINT',
  flag: 'BOOLEAN NOT NULL DEFAULT false',
  seconds: 'DOUBLE PRECISION',
  autoId: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  postgres: true,
};

/** Migrations 1 and 2, as `d` spells them. */
export function firstMigrations(d: Dialect): string[] {
  const pg = (text: string) => (d.postgres ? text : '');
  const unique = pg(' UNIQUE');
  return [
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
     key_hash ${d.bytes} NOT NULL UNIQUE,
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
     file_size ${d.bigint} NOT NULL,
     type TEXT NOT NULL,
     thumbnail ${d.flag},
     expires_at ${d.bigint} NOT NULL,
     created_at TEXT NOT NULL,
     stored_at TEXT,
     completed_at TEXT,
     item_id TEXT,
     file_record_id TEXT
   );
   CREATE INDEX uploads_brand ON uploads(brand_id);
   CREATE INDEX uploads_item ON uploads(item_id);${pg(`
   CREATE INDEX uploads_open ON uploads(expires_at) WHERE completed_at IS NULL AND item_id IS NULL;`)}
   CREATE TABLE items (
     id TEXT PRIMARY KEY,
     brand_id TEXT NOT NULL REFERENCES brands(id),
     type TEXT NOT NULL,
     title TEXT NOT NULL,
     title_fold TEXT NOT NULL,
     description TEXT NOT NULL DEFAULT '',
     hashtags TEXT NOT NULL DEFAULT '[]',
     status TEXT NOT NULL,
     platform_settings TEXT NOT NULL DEFAULT '{}',${pg(`
     -- One upload becomes at most one item, whichever instance completes it.`)}
     file_key TEXT NOT NULL${unique},
     file_name TEXT NOT NULL,
     content_type TEXT NOT NULL,
     file_size ${d.bigint} NOT NULL,
     duration_seconds ${d.seconds},
     thumbnail_key TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE INDEX items_brand_order ON items(brand_id, created_at DESC, id DESC);
   CREATE TABLE carousel_files (
     id TEXT PRIMARY KEY,
     item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
     file_key TEXT NOT NULL${unique},
     file_name TEXT NOT NULL,
     content_type TEXT NOT NULL,
     file_size ${d.bigint} NOT NULL,
     sort_order INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     UNIQUE (item_id, sort_order)
   );
   CREATE TABLE pending_deletions (
     object_key TEXT PRIMARY KEY,
     attempts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     created_at TEXT NOT NULL${pg(`,
     leased_until TIMESTAMPTZ`)}
   );${pg(`
   CREATE TABLE shared_secrets (
     name TEXT PRIMARY KEY,
     value BYTEA NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT now()
   );`)}`,
    // The API key that presigned an upload: revoking the key closes its URL.
    `ALTER TABLE uploads ADD COLUMN key_id TEXT;
   CREATE INDEX uploads_file_id ON uploads(file_id);`,
  ];
}

/**
 * Migration 5 on both databases: an upload's multipart plan, recorded at presign (issue 28).
 * `part_size` is set exactly when presign offered a multipart upload, `multipart_id` is the
 * store's upload id (S3's UploadId; the file id on disk). Parts, part PUTs and complete follow
 * the recorded plan, never one recomputed from today's rules.
 */
export function multipartMigration(d: Dialect): string {
  return `ALTER TABLE uploads ADD COLUMN part_size ${d.bigint};
   ALTER TABLE uploads ADD COLUMN multipart_id TEXT;`;
}

/**
 * The audit log's table and indexes, part of migration 3 on both databases (after each one's
 * own ALTERs of api_keys). No foreign keys: its entries outlive their items and keys
 * (docs/api.md, Audit log).
 */
export function auditLogTable(d: Dialect): string {
  return `CREATE TABLE audit_log (
     id ${d.autoId},
     at TEXT NOT NULL,
     brand_id TEXT NOT NULL,
     action TEXT NOT NULL,
     item_id TEXT,
     key_id TEXT,
     key_name TEXT,
     request_id TEXT,
     details TEXT NOT NULL DEFAULT '{}'
   );
   CREATE INDEX audit_brand ON audit_log(brand_id, id);
   CREATE INDEX audit_item ON audit_log(item_id, id);
   CREATE INDEX audit_at ON audit_log(at);`;
}

/**
 * The audit log's batch ids (issue 38), the same statement on both databases: a nullable column
 * (entries made before, and changes sent alone, have none) and the index `?batchId=` reads.
 */
export const batchIdMigration = `ALTER TABLE audit_log ADD COLUMN batch_id TEXT;
   CREATE INDEX audit_batch ON audit_log(brand_id, batch_id);`;
