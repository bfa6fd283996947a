// Three `contentlib serve` processes on one PostgreSQL and one store of objects, as behind a load
// balancer. One suite, run by two test files (so the slow halves run in parallel): a shared files
// folder (test/e2e/multi-instance.test.ts) and one S3 (RGW) bucket (multi-instance-s3.test.ts).
// A file presigned and PUT on one instance completes on the others into one item; racing
// carousel additions stop at 10; racing deletions delete once; three sweepers drain one outbox;
// kill -9 of one instance loses nothing committed; at the end nothing is left in the store.
// Real processes, a real database, a real S3 endpoint, no stubs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './paths.js';
import { type TestPostgres, startPostgres } from './postgres.js';
import { childEnv, type ServeProcess, startServe } from './serve-process.js';
import { type FileSpec, type Item, call, complete, image, presign, put } from './server.js';

/** Where the instances keep their objects, as the suite sees it. */
export interface SharedStore {
  /** Added to every instance's `serve` arguments. */
  args: string[];
  /** Added to every instance's environment. */
  env: Record<string, string>;
  /** Objects in the store now: final ones and staging ones. */
  objects(): Promise<{ final: number; staging: number }>;
  /** Where a presigned PUT must point, given the instance that presigned it. */
  putOrigin(instanceUrl: string): string;
  /** DELETE requests the store received for one object key; undefined when it cannot tell (disk). */
  deletes?(objectKey: string): number;
  stop(): Promise<void>;
}

export function multiInstanceSuite(name: string, openStore: (dataDir: string) => Promise<SharedStore>): void {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let dataDir: string;
  let home: string;
  let store: SharedStore;
  let instances: ServeProcess[] = [];
  let key: string;

  const serve = () => startServe(dataDir, home, { args: ['--db', databaseUrl, ...store.args], env: store.env });
  const restartAll = async () => {
    await Promise.all(instances.map((i) => i.stop()));
    instances = await Promise.all([serve(), serve(), serve()]);
  };

  beforeAll(async () => {
    postgres = await startPostgres();
    databaseUrl = await postgres.createDatabase('multi');
    dataDir = await mkdtemp(join(tmpdir(), 'contentlib-multi-data-'));
    home = await mkdtemp(join(tmpdir(), 'contentlib-multi-home-'));
    store = await openStore(dataDir);
    const created = await execa('node', [BIN, 'keys', 'create', '--brand', 'acme', '--db', databaseUrl], {
      env: childEnv({ CONTENTLIB_HOME: home }),
      extendEnv: false,
    });
    key = String(created.stdout).trim();
    instances = await Promise.all([serve(), serve(), serve()]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await store?.stop();
    await postgres?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  const on = (n: number) => instances[n % instances.length]!;

  /** Presigned on one instance and PUT to the URL it gave (the store's, not the instance's, on S3). */
  async function staged(n: number, f: FileSpec = image()) {
    const p = await presign(on(n), key, f);
    expect(p.status).toBe(200);
    expect(p.body.presignedUrl.startsWith(store.putOrigin(on(n).url))).toBe(true);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    return { f, storageKey: p.body.key, type: p.body.type };
  }

  const total = async () => {
    const o = await store.objects();
    return o.final + o.staging;
  };

  async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  async function outboxDrained(): Promise<void> {
    for (let tries = 0; tries < 300 && (await sql('SELECT 1 FROM pending_deletions')).length > 0; tries++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await sql('SELECT object_key FROM pending_deletions')).toEqual([]);
  }

  /** Each of these objects reached the store's DELETE exactly once (when the store can count). */
  function deletedOnce(keys: string[]): void {
    if (!store.deletes) return;
    expect(keys.map((k) => store.deletes!(k))).toEqual(keys.map(() => 1));
  }

  describe(`three serve instances on one PostgreSQL and ${name}`, () => {
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
      // Its bytes, through the GET URL any instance hands out.
      const got = await fetch(b.body.item.fileUrl);
      expect(Buffer.from(await got.arrayBuffer()).equals(s.f.bytes)).toBe(true);
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
      const before = await store.objects();
      const items: string[] = [];
      const keys: string[] = [];
      for (let n = 0; n < 20; n++) {
        const s = await staged(n);
        const c = await complete(on(n + 1), key, s.storageKey, s.f, s.type);
        items.push(c.body.item.id);
        keys.push(s.storageKey);
      }
      expect(await store.objects()).toEqual({ ...before, final: before.final + 20 });
      const answers = await Promise.all(
        items.flatMap((id, n) => [
          call('DELETE', `${on(n).url}/api/v1/content/${id}`, { key }),
          call('DELETE', `${on(n + 1).url}/api/v1/content/${id}`, { key }),
        ]),
      );
      const codes = answers.map((a) => a.status);
      expect(codes.filter((c) => c === 200)).toHaveLength(20);
      expect(codes.filter((c) => c === 404)).toHaveLength(20);
      expect(await store.objects()).toEqual(before);
      expect(await sql('SELECT object_key FROM pending_deletions')).toEqual([]);
      deletedOnce(keys);
    });

    it('three sweepers starting together drain one outbox, each object once', async () => {
      // 20 items whose rows are gone and whose objects wait in the outbox (as after a failed delete).
      const queued: string[] = [];
      for (let n = 0; n < 20; n++) {
        const s = await staged(n);
        expect((await complete(on(n), key, s.storageKey, s.f, s.type)).status).toBe(200);
        queued.push(s.storageKey);
      }
      const before = await store.objects();
      await sql(
        `WITH gone AS (DELETE FROM items WHERE file_key = ANY($1::text[]) RETURNING file_key)
         INSERT INTO pending_deletions (object_key, created_at) SELECT file_key, $2 FROM gone`,
        [queued, new Date().toISOString()],
      );
      // Each instance sweeps as it starts: restart all three together.
      await restartAll();
      await outboxDrained();
      expect(await store.objects()).toEqual({ ...before, final: before.final - 20 });
      deletedOnce(queued);
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
      for (const [n, item] of again.entries()) {
        const got = await fetch(item.body.item.fileUrl);
        expect(Buffer.from(await got.arrayBuffer()).equals(files[n]!.f.bytes)).toBe(true);
      }
      instances[2] = await serve();
    });

    it('every item deleted and the open uploads abandoned: after the sweep nothing is left in the store', async () => {
      const listed = await call<{ items: Item[] }>('GET', `${on(0).url}/api/v1/content?limit=100`, { key });
      expect(listed.body.items.length).toBeGreaterThan(0);
      for (const [n, item] of listed.body.items.entries())
        expect((await call('DELETE', `${on(n).url}/api/v1/content/${item.id}`, { key })).status).toBe(200);
      // Open uploads hold objects: three PUT and never completed (in staging), and the two the
      // full carousel refused (already promoted when the carousel was found full). Age them all.
      const open = await Promise.all([0, 1, 2].map((n) => staged(n)));
      expect(await store.objects()).toEqual({ final: 2, staging: open.length });
      await sql('UPDATE uploads SET expires_at = 0 WHERE completed_at IS NULL AND item_id IS NULL');
      await restartAll();
      // A restarted instance's first sweep removes the expired uploads and queues their objects in
      // one transaction; until it has, the outbox may still be empty (a CI run on Node 22 saw it
      // empty, then its 10 objects queued a moment later). Waited for, then the outbox.
      for (let tries = 0; tries < 300 && (await sql('SELECT 1 FROM uploads WHERE expires_at = 0')).length > 0; tries++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await sql('SELECT key FROM uploads WHERE expires_at = 0')).toEqual([]);
      await outboxDrained();
      for (let tries = 0; tries < 100 && (await total()) > 0; tries++) await new Promise((r) => setTimeout(r, 100));
      expect(await store.objects()).toEqual({ final: 0, staging: 0 });
      for (const i of instances) expect(i.stderr()).not.toMatch(/internal error/);
    });
  });
}
