// Every migration of both databases, listed once, in order. Each entry runs once; never edit one
// that has shipped. Most are one text for both (spelled per database by ./schema.ts and
// ./search-schema.ts where types differ); the two below that shipped in each database's own
// words stay as they shipped. SQLite runs the list from ./sqlite/db.ts, PostgreSQL from
// ./pg/migrations.ts (under an advisory lock, for N instances).
import { SCOPES } from '../../api/scopes.js';
import {
  POSTGRES,
  SQLITE,
  type Dialect,
  auditLogTable,
  batchIdMigration,
  firstMigrations,
  multipartMigration,
} from './schema.js';
import { heldBytesMigration } from './held-bytes.js';
import { itemCountsMigration } from './item-counts.js';
import { PREVIEWS_MIGRATION } from './previews-migration.js';
import { SCALE_INDEXES_MIGRATION } from './scale-indexes.js';
import { searchMigration } from './search-schema.js';

/** Every scope, as stored: what keys made before scopes existed are given. */
const ALL_SCOPES = SCOPES.join(' ');

/**
 * Migration 3, as each database shipped it: scoped, named, expiring keys (keys made before keep
 * every scope) and the audit log, which has no foreign keys: its entries outlive their items
 * and keys (docs/api.md, Audit log).
 */
function keysAndAudit(d: Dialect): string {
  return d.postgres
    ? `ALTER TABLE api_keys ADD COLUMN name TEXT, ADD COLUMN scopes TEXT NOT NULL DEFAULT '',
     ADD COLUMN expires_at TEXT, ADD COLUMN last_used_at TEXT;
   UPDATE api_keys SET scopes = '${ALL_SCOPES}';
   ${auditLogTable(POSTGRES)}`
    : `ALTER TABLE api_keys ADD COLUMN name TEXT;
   ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
   ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
   ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
   UPDATE api_keys SET scopes = '${ALL_SCOPES}';
   ${auditLogTable(SQLITE)}`;
}

/**
 * Migration 4, as each database shipped it: content identity, the SHA-256 declared at presign
 * and each stored file's verified one (the main file, each carousel image, the thumbnail). NULL
 * on rows made before: the sweeper fills them in from the stored objects (src/server/checksum-backfill.ts).
 */
function contentIdentity(d: Dialect): string {
  return d.postgres
    ? `ALTER TABLE uploads ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN sha256 TEXT, ADD COLUMN thumbnail_sha256 TEXT;
   ALTER TABLE carousel_files ADD COLUMN sha256 TEXT;
   CREATE INDEX items_sha256 ON items(brand_id, sha256);
   CREATE INDEX items_thumbnail_sha256 ON items(brand_id, thumbnail_sha256);
   CREATE INDEX carousel_files_sha256 ON carousel_files(sha256);`
    : `ALTER TABLE uploads ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN thumbnail_sha256 TEXT;
   ALTER TABLE carousel_files ADD COLUMN sha256 TEXT;
   CREATE INDEX items_sha256 ON items(brand_id, sha256);
   CREATE INDEX items_thumbnail_sha256 ON items(brand_id, thumbnail_sha256);
   CREATE INDEX carousel_files_sha256 ON carousel_files(sha256);`;
}

/** Every migration, in order, as `d` spells it. */
export function migrationsOf(d: Dialect): readonly string[] {
  return [
    // Migrations 1 and 2: the tables (./schema.ts).
    ...firstMigrations(d),
    keysAndAudit(d),
    contentIdentity(d),
    // Multipart uploads: the plan presign offered (./schema.ts).
    multipartMigration(d),
    // Media facts (issue 39): what each stored file's bytes say, as JSON text (src/rules/media-facts.ts).
    // NULL on rows made before: the sweeper measures them (src/server/media-backfill.ts).
    `ALTER TABLE items ADD COLUMN media TEXT;
   ALTER TABLE carousel_files ADD COLUMN media TEXT;`,
    // Bulk changes (issue 38): the batch id a PATCH, DELETE or carousel change was sent with
    // (Content-Library-Batch), so a batch's entries are listed and undone together.
    batchIdMigration,
    // Posters and previews (issue 39): ./previews-migration.ts.
    PREVIEWS_MIGRATION,
    // The search extension (issue 38, ./search-schema.ts): who made and last changed each item,
    // folded hashtags, the text index (SQLite: FTS5; PostgreSQL: a generated tsvector with its
    // GIN index, pg_trgm for the title search when allowed) and the sorts' indexes.
    searchMigration(d),
    // A brand's held bytes as a count kept by triggers, and the indexes of the rows not yet
    // stored (issue 41, ./held-bytes.ts): presign no longer reads the brand's every upload.
    heldBytesMigration(d),
    // Indexes for a library of a million items (issue 41, ./scale-indexes.ts): the previews,
    // checksums and media facts still wanted, and the audit log of one key.
    SCALE_INDEXES_MIGRATION,
    // Items by type as counts kept by triggers on SQLite, for /metrics (issue 41, ./item-counts.ts);
    // an empty step on PostgreSQL, which counts in its own process.
    itemCountsMigration(d),
    // The audit log's brand-wide `since` with few newer entries (issue 41, ./audit.ts and ./few-rows.ts).
    'CREATE INDEX audit_brand_at ON audit_log(brand_id, at);',
  ];
}
