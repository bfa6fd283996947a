// Three `contentlib serve` processes on one PostgreSQL (and, until object storage lands in the
// routes, one shared files folder), as behind a load balancer: a file presigned and PUT on one
// instance completes on the others into one item; racing carousel additions stop at 10; racing
// deletions delete once; the three sweepers drain one outbox; kill -9 of one instance loses
// nothing committed. Real processes, a real database, no stubs.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, type ServeProcess, startServe } from '../support/serve-process.js';
import { BIN } from '../support/paths.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { type FileSpec, type Item, call, complete, image, presign, put } from '../support/server.js';

let postgres: TestPostgres;
let databaseUrl: string;
let dataDir: string;
let home: string;
let instances: ServeProcess[] = [];
let key: string;

const serve = () => startServe(dataDir, home, { args: ['--db', databaseUrl] });

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase('multi');
  dataDir = await mkdtemp(join(tmpdir(), 'contentlib-multi-data-'));
  home = await mkdtemp(join(tmpdir(), 'contentlib-multi-home-'));
  const created = await execa('node', [BIN, 'keys', 'create', '--brand', 'acme', '--db', databaseUrl], {
    env: childEnv({ CONTENTLIB_HOME: home }),
    extendEnv: false,
  });
  key = String(created.stdout).trim();
  instances = await Promise.all([serve(), serve(), serve()]);
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}, 60_000);

const on = (n: number) => instances[n % instances.length]!;

/** Presigned on one instance and PUT to the URL it gave. */
async function staged(n: number, f: FileSpec = image()) {
  const p = await presign(on(n), key, f);
  expect(p.status).toBe(200);
  expect((await put(p.body.presignedUrl, f)).status).toBe(200);
  return { f, storageKey: p.body.key, type: p.body.type };
}

/** Objects on the shared disk: final ones (objects/<aa>/…) and staging ones (staging/<fileId>). */
async function objectFiles(): Promise<number> {
  let n = (await readdir(join(dataDir, 'staging')).catch(() => [])).length;
  for (const dir of await readdir(join(dataDir, 'objects')).catch(() => [])) {
    n += (await readdir(join(dataDir, 'objects', dir)).catch(() => [])).length;
  }
  return n;
}

async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('three serve instances on one PostgreSQL', () => {
  it('a key made with keys --db works on every instance', async () => {
    for (const i of instances) expect((await call('GET', `${i.url}/api/v1/content`, { key })).status).toBe(200);
  });

  it('presigned and PUT on instance 1, completed on 2 and again on 3: one item', async () => {
    const s = await staged(0);
    const a = await complete(on(1), key, s.storageKey, s.f, s.type);
    const b = await complete(on(2), key, s.storageKey, s.f, s.type);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.item.id).toBe(a.body.item.id);
    const listed = await call<{ items: Item[] }>('GET', `${on(2).url}/api/v1/content?limit=100`, { key });
    expect(listed.body.items.filter((i) => i.id === a.body.item.id)).toHaveLength(1);
  });

  it('11 carousel additions racing over the three instances: exactly 10 images', async () => {
    const first = await staged(0);
    const made = await complete(on(0), key, first.storageKey, first.f, 'carousel');
    expect(made.status).toBe(200);
    const more = await Promise.all(Array.from({ length: 11 }, (_, n) => staged(n)));
    const results = await Promise.all(
      more.map((s, n) =>
        complete(on(n), key, s.storageKey, s.f, 'carousel', { contentItemId: made.body.contentItemId }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    for (const r of results.filter((r) => r.status !== 200))
      expect(r.body).toMatchObject({ error: { code: 'carousel_full' } });
    const got = await call<{ item: Item; files: unknown[] }>(
      'GET',
      `${on(1).url}/api/v1/content/${made.body.contentItemId}`,
      { key },
    );
    expect(got.body.item.fileCount).toBe(10);
    expect(got.body.files).toHaveLength(10);
  });

  it('20 items deleted twice each, on different instances at once: each deleted once, no object left', async () => {
    const before = await objectFiles();
    const items: string[] = [];
    for (let n = 0; n < 20; n++) {
      const s = await staged(n);
      const c = await complete(on(n + 1), key, s.storageKey, s.f, s.type);
      items.push(c.body.item.id);
    }
    expect(await objectFiles()).toBe(before + 20);
    const answers = await Promise.all(
      items.flatMap((id, n) => [
        call('DELETE', `${on(n).url}/api/v1/content/${id}`, { key }),
        call('DELETE', `${on(n + 1).url}/api/v1/content/${id}`, { key }),
      ]),
    );
    const codes = answers.map((a) => a.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.filter((c) => c === 404)).toHaveLength(20);
    expect(await objectFiles()).toBe(before);
    expect(await sql('SELECT object_key FROM pending_deletions')).toEqual([]);
  });

  it('three sweepers starting together drain one outbox, each object once', async () => {
    const before = await objectFiles();
    // 20 uploads whose rows are gone and whose (staging) objects wait in the outbox (as after a failed delete).
    const queued = await Promise.all(Array.from({ length: 20 }, (_, n) => staged(n)));
    await sql(
      `WITH gone AS (DELETE FROM uploads WHERE key = ANY($1::text[]) RETURNING file_id)
       INSERT INTO pending_deletions (object_key, created_at) SELECT 'staging/' || file_id, $2 FROM gone`,
      [queued.map((q) => q.storageKey), new Date().toISOString()],
    );
    expect(await objectFiles()).toBe(before + 20);
    // Each instance sweeps as it starts: restart all three together.
    await Promise.all(instances.map((i) => i.stop()));
    instances = await Promise.all([serve(), serve(), serve()]);
    for (let tries = 0; tries < 200 && (await sql('SELECT 1 FROM pending_deletions')).length > 0; tries++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await sql('SELECT object_key FROM pending_deletions')).toEqual([]);
    expect(await objectFiles()).toBe(before);
    for (const i of instances) expect(i.stderr()).not.toMatch(/internal error/);
  });

  it('kill -9 of one instance mid-completes: the others carry on and nothing committed is lost', async () => {
    const files = await Promise.all(Array.from({ length: 12 }, (_, n) => staged(n)));
    const victim = instances[2]!;
    const onVictim = files.map((s) =>
      complete(victim, key, s.storageKey, s.f, s.type).then(
        (r) => (r.status === 200 ? r.body.item.id : null),
        () => null,
      ),
    );
    await victim.kill9();
    const committed = (await Promise.all(onVictim)).filter((id): id is string => id !== null);
    // The survivors complete every file (the ones the victim finished come back as they were).
    const again = await Promise.all(files.map((s, n) => complete(on(n % 2), key, s.storageKey, s.f, s.type)));
    expect(again.map((r) => r.status)).toEqual(files.map(() => 200));
    const ids = again.map((r) => r.body.item.id);
    expect(new Set(ids).size).toBe(12);
    for (const id of committed) expect(ids).toContain(id);
    instances[2] = await serve();
  });
});
