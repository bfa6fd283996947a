// PostgreSQL schema, as numbered migrations recorded in `contentlib_migrations`. They run under a
// transaction-level advisory lock, so N instances starting together migrate once: the first takes
// the lock and migrates, the others wait for it and then find nothing left to do.
// Times the API shows are ISO-8601 TEXT, exactly as on SQLite, so both answer byte for byte
// alike; times only the database compares (outbox leases) are timestamptz from its own clock.
// JSON fields stay TEXT too: jsonb would reorder an object's keys.
import type pg from 'pg';
import { SCOPES } from '../../../api/scopes.js';
import { POSTGRES, auditLogTable, batchIdMigration, firstMigrations, multipartMigration } from '../schema.js';
import { PREVIEWS_MIGRATION } from '../previews-migration.js';
import { searchMigration } from '../search-schema.js';

/**
 * Each entry runs once, in order; never edit one that has shipped. The first are written once for
 * both databases (../schema.ts); later ones are appended here.
 */
export const PG_MIGRATIONS: readonly string[] = [
  ...firstMigrations(POSTGRES),
  // Scoped, named, expiring keys (keys made before keep every scope) and the audit log, without
  // foreign keys: its entries outlive their items and keys (as on SQLite).
  `ALTER TABLE api_keys ADD COLUMN name TEXT, ADD COLUMN scopes TEXT NOT NULL DEFAULT '',
     ADD COLUMN expires_at TEXT, ADD COLUMN last_used_at TEXT;
   UPDATE api_keys SET scopes = '${SCOPES.join(' ')}';
   ${auditLogTable(POSTGRES)}`,
  // Content identity (as on SQLite): the SHA-256 declared at presign and each stored file's
  // verified one; NULL on rows made before, filled in by the sweeper.
  `ALTER TABLE uploads ADD COLUMN sha256 TEXT;
   ALTER TABLE items ADD COLUMN sha256 TEXT, ADD COLUMN thumbnail_sha256 TEXT;
   ALTER TABLE carousel_files ADD COLUMN sha256 TEXT;
   CREATE INDEX items_sha256 ON items(brand_id, sha256);
   CREATE INDEX items_thumbnail_sha256 ON items(brand_id, thumbnail_sha256);
   CREATE INDEX carousel_files_sha256 ON carousel_files(sha256);`,
  // Multipart uploads: the plan presign offered (../schema.ts, as on SQLite).
  multipartMigration(POSTGRES),
  // Media facts (issue 39, as on SQLite): JSON text, NULL until measured (src/server/media-backfill.ts).
  `ALTER TABLE items ADD COLUMN media TEXT;
   ALTER TABLE carousel_files ADD COLUMN media TEXT;`,
  // Bulk changes (issue 38): each audit entry's batch id (../schema.ts, as on SQLite).
  batchIdMigration,
  // Posters and previews (issue 39): ../previews-migration.ts, the same text as on SQLite.
  PREVIEWS_MIGRATION,
  // The search extension (issue 38), as on SQLite (../search-schema.ts): authors, folded
  // hashtags, a generated tsvector with its GIN index, pg_trgm for the title search when allowed.
  searchMigration(POSTGRES),
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
