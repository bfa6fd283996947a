// Which metadata store the server conformance suite (test/server/*) runs against: SQLite (the
// default) or, in vitest's "postgres" project (CONTENTLIB_TEST_BACKEND=postgres), a real
// PostgreSQL started once for the test file on first use and stopped after it.
import { afterAll } from 'vitest';
import { type TestPostgres, startPostgres } from './postgres.js';

export type Backend = 'sqlite' | 'postgres';

export const backend: Backend = process.env.CONTENTLIB_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

let server: Promise<TestPostgres> | null = null;

/** A fresh database's URL on the postgres backend; undefined (SQLite in the data dir) otherwise. */
export async function testDatabaseUrl(): Promise<string | undefined> {
  if (backend !== 'postgres') return undefined;
  server ??= startPostgres();
  return (await server).createDatabase('conformance');
}

afterAll(async () => {
  if (server) await (await server).stop();
}, 60_000);
