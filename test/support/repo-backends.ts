// Both Repo implementations for a test file that runs the same cases on each: SQLite in a temp
// folder, and PostgreSQL (one real server for the file, ./postgres.ts, a database per opening).
// Everything opened is closed, and the server stopped, after the file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { Repo } from '../../src/server/repo/interface.js';
import { createPostgresRepo } from '../../src/server/repo/pg/repo.js';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { createSqliteRepo } from '../../src/server/repo/sqlite/repo.js';
import { type TestPostgres, startPostgres } from './postgres.js';

export interface RepoBackends {
  /** For `describe.each`: each database's name and how to open a fresh Repo on it. */
  backends: Array<[string, () => Promise<Repo>]>;
  /** How to open a fresh Repo on a PostgreSQL database made with CREATE DATABASE's `options` (a collation). */
  postgresWith: (options: string) => () => Promise<Repo>;
  /** The file's PostgreSQL server (once beforeAll has run), for databases of a test's own. */
  postgres: () => TestPostgres;
  /**
   * A Repo on a PostgreSQL database (a fresh one, or `url`'s) and a client of the test's own on it,
   * to read or write what the Repo does not show; both closed after the file.
   */
  postgresAndClient: (url?: string) => Promise<{ repo: Repo; client: pg.Client }>;
  /** Run after the file, before the server stops: what a test opened itself. */
  cleanups: Array<() => Promise<void>>;
}

/**
 * `name` names the temp folders and databases; `max` is the PostgreSQL pool's size; `seed`, SQL
 * valid on both databases, is run on each fresh database once its schema is made.
 */
export function repoBackends(name: string, o: { max: number; seed?: string }): RepoBackends {
  let postgres: TestPostgres | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    for (const c of cleanups) await c();
    await postgres?.stop();
  });
  const server = () => {
    if (!postgres) throw new Error('the PostgreSQL server is not started yet (use it inside a test or hook)');
    return postgres;
  };
  const sqlite = async () => {
    const dir = await mkdtemp(join(tmpdir(), `contentlib-${name}-`));
    const db = openDatabase(dir);
    if (o.seed) db.exec(o.seed);
    const repo = createSqliteRepo(db, { dataDir: dir });
    cleanups.push(async () => {
      await repo.close();
      await rm(dir, { recursive: true, force: true });
    });
    return repo;
  };
  const postgresWith = (options: string) => async () => {
    const url = await server().createDatabase(name.replace(/-/g, '_'), options);
    const repo = await createPostgresRepo({ connectionString: url, max: o.max });
    cleanups.push(() => repo.close());
    if (o.seed) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(o.seed).finally(() => client.end());
    }
    return repo;
  };
  const postgresAndClient = async (url?: string) => {
    url ??= await server().createDatabase(name.replace(/-/g, '_'));
    const repo = await createPostgresRepo({ connectionString: url, max: o.max });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    cleanups.push(async () => {
      await client.end();
      await repo.close();
    });
    return { repo, client };
  };
  return {
    backends: [
      ['sqlite', sqlite],
      ['postgres', postgresWith('')],
    ],
    postgresWith,
    postgres: server,
    postgresAndClient,
    cleanups,
  };
}
