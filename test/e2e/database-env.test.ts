// libpq's PG* variables fill what a `--db` / CONTENTLIB_DATABASE_URL leaves out, for `keys` and
// `serve` as run by users: a real PostgreSQL that asks for a password on TCP, the built CLI, and
// no PG* variable of the caller leaking in. When they do not suffice the message says what was
// tried and which parts came from where.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/server.js';
import { BIN } from '../support/paths.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { childEnv, startServe } from '../support/serve-process.js';

const PASSWORD = 'pg-env s3cret';
let postgres: TestPostgres;
let database: string;
let databaseUrl: string;
let home: string;

beforeAll(async () => {
  postgres = await startPostgres({ password: PASSWORD });
  databaseUrl = await postgres.createDatabase('pgenv');
  database = new URL(databaseUrl).pathname.slice(1);
  home = await mkdtemp(join(tmpdir(), 'contentlib-pgenv-'));
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  if (home) await rm(home, { recursive: true, force: true });
}, 60_000);

/** Every PG* variable the test means, and none of the caller's. */
function env(pgVars: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const clean = Object.fromEntries(Object.entries(childEnv(extra)).filter(([k]) => !k.startsWith('PG')));
  return { ...clean, CONTENTLIB_HOME: home, ...pgVars };
}

const allVars = () => ({
  PGHOST: '127.0.0.1',
  PGPORT: String(postgres.port),
  PGUSER: 'postgres',
  PGPASSWORD: PASSWORD,
  PGDATABASE: database,
});

const cli = (args: string[], e: Record<string, string>) =>
  execa('node', [BIN, ...args], { env: e, extendEnv: false, reject: false });

async function brandsInDatabase(): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const rows = (await client.query<{ name: string }>('SELECT name FROM brands ORDER BY name')).rows;
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe('PG* variables fill an incomplete database URL', () => {
  it('keys create --db postgres:/// takes host, port, user, password and database from PG*', async () => {
    const r = await cli(['keys', 'create', '--brand', 'from-pgvars', '--db', 'postgres:///'], env(allVars()));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\S{20,}$/);
    expect(await brandsInDatabase()).toContain('from-pgvars');
  });

  it('the URL wins where it speaks; PG* fill the rest (CONTENTLIB_DATABASE_URL)', async () => {
    const { PGPASSWORD, PGDATABASE } = allVars();
    // Host, port and user from the URL; PGHOST/PGPORT point nowhere and must not be used.
    const e = env(
      { PGHOST: '127.0.0.2', PGPORT: '1', PGPASSWORD, PGDATABASE },
      { CONTENTLIB_DATABASE_URL: `postgres://postgres@127.0.0.1:${postgres.port}` },
    );
    const r = await cli(['keys', 'create', '--brand', 'url-and-pgvars'], e);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await brandsInDatabase()).toContain('url-and-pgvars');
  });

  it('serve with CONTENTLIB_DATABASE_URL=postgres:// and PG* serves the keys made there', async () => {
    const made = await cli(['keys', 'create', '--brand', 'served', '--db', 'postgres:///'], env(allVars()));
    expect(made.exitCode, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const dataDir = await mkdtemp(join(tmpdir(), 'contentlib-pgenv-data-'));
    const server = await startServe(dataDir, home, {
      env: { ...allVars(), CONTENTLIB_DATABASE_URL: 'postgres://' },
    });
    try {
      expect((await call('GET', `${server.url}/api/v1/content`, { key })).status).toBe(200);
      expect((await call('GET', `${server.url}/api/v1/content`, { key: `${key}x` })).status).toBe(401);
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('no password anywhere: says the server asks for one and what was tried', async () => {
    const { PGPASSWORD: _, ...noPassword } = allVars();
    const r = await cli(['keys', 'list', '--db', 'postgres:///'], env(noPassword));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('the server asks for a password, and neither the URL nor PGPASSWORD gives one');
    expect(r.stderr).toContain(`connected as "postgres" to 127.0.0.1:${postgres.port}, database "${database}"`);
    expect(r.stderr).not.toMatch(/SASL|at .*\.js/);
  });

  it('PGDATABASE naming a database that does not exist: says so, with what was tried', async () => {
    const r = await cli(['keys', 'list', '--db', 'postgres:///'], env({ ...allVars(), PGDATABASE: 'no_such_db' }));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('database "no_such_db" does not exist (3D000)');
    expect(r.stderr).toContain(`connected as "postgres" to 127.0.0.1:${postgres.port}, database "no_such_db"`);
  });

  it('a wrong password, and no port anywhere: clear messages, nothing printed on stdout', async () => {
    const wrong = await cli(['keys', 'list', '--db', 'postgres:///'], env({ ...allVars(), PGPASSWORD: 'nope' }));
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stderr).toMatch(/Cannot use the database postgres:\/\/\/: password authentication failed .*\(28P01\)/);
    expect(wrong.stderr).not.toContain('nope');
    expect(wrong.stdout).toBe('');

    const { PGPORT: _, ...noPort } = allVars();
    const refused = await cli(['keys', 'list', '--db', 'postgres:///'], env({ ...noPort, PGHOST: '127.0.0.1' }));
    expect(refused.exitCode).not.toBe(0);
    // Nothing should listen on 5432 here; whatever answers there, the message names the default.
    expect(refused.stderr).toContain('to 127.0.0.1:5432');
    expect(refused.stderr).toContain("Neither the URL nor PGPORT gave the port, so libpq's defaults were used");
  });
});
