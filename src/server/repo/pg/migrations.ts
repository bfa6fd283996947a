// PostgreSQL's schema: the numbered migrations of ../migrations.ts, recorded in `contentlib_migrations`. They run under a
// transaction-level advisory lock, so N instances starting together migrate once: the first takes
// the lock and migrates, the others wait for it and then find nothing left to do.
// Times the API shows are ISO-8601 TEXT, exactly as on SQLite, so both answer byte for byte
// alike; times only the database compares (outbox leases) are timestamptz from its own clock.
// JSON fields stay TEXT too: jsonb would reorder an object's keys.
import type pg from 'pg';
import { migrationsOf } from '../migrations.js';
import { POSTGRES } from '../schema.js';

/** Every migration (../migrations.ts), as PostgreSQL spells it. */
export const PG_MIGRATIONS: readonly string[] = migrationsOf(POSTGRES);

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
