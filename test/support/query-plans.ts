// Reading the plans each database makes of the server's statements (the *-plan tests): a database
// with the server's schema for a describe block, and its plan of a statement as text. SQLite keeps
// no statistics, so an empty database plans as a full one does; PostgreSQL plans by its
// statistics, so its database is seeded and analysed first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { createPostgresRepo } from '../../src/server/repo/pg/repo.js';
import type { Database } from '../../src/sqlite/database.js';
import { type TestPostgres, startPostgres } from './postgres.js';

/** A repository statement's SQL and values, as it would run (the first step of its generator). */
export function statementOf(step: Generator<unknown, unknown, unknown>): { sql: string; values: unknown[] } {
  const { args } = step.next().value as { args: [string, unknown[]] };
  return { sql: args[0], values: args[1] };
}

/** The statement a decision asks for next, once `answer` is given to the one before it. */
export function statementAfter(
  step: Generator<unknown, unknown, unknown>,
  answer: unknown,
): { sql: string; values: unknown[] } {
  const { args } = step.next(answer).value as { args: [string, unknown[]] };
  return { sql: args[0], values: args[1] };
}

/** An empty SQLite database with the server's schema, for the describe block that calls this. */
export function sqlitePlans(prefix: string): {
  db: () => Database;
  /** SQLite's plan of a statement, a line per step (EXPLAIN QUERY PLAN's `detail`). */
  plan: (sql: string, values: readonly unknown[]) => string[];
} {
  let dir = '';
  let db: Database | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
    db = openDatabase(dir);
  });
  afterAll(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const opened = () => {
    if (!db) throw new Error('the database is not open yet (use it inside a test or hook)');
    return db;
  };
  return {
    db: opened,
    plan: (sql, values) =>
      (
        opened()
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...values) as Array<{ detail: string }>
      ).map((r) => r.detail),
  };
}

/**
 * A PostgreSQL server of its own and a database with the server's schema, `seed` run on it and
 * then analysed, for the describe block that calls this.
 */
export function postgresPlans(
  name: string,
  seed: string,
): {
  /** PostgreSQL's plan of a statement (EXPLAIN), its lines joined. */
  plan: (sql: string, values: readonly unknown[]) => Promise<string>;
} {
  let postgres: TestPostgres | undefined;
  let client: pg.Client | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase(name);
    await (await createPostgresRepo({ connectionString: url, max: 1 })).close();
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(seed);
    await client.query('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await postgres?.stop();
  });
  return {
    async plan(sql, values) {
      if (!client) throw new Error('the database is not open yet (use it inside a test or hook)');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [...values]);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    },
  };
}
