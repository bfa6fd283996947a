// Items by type for /metrics (src/server/repo/item-counts.ts): on SQLite a count per type kept by
// triggers, read without touching the items; on PostgreSQL counted by the database. On both, the
// gauge's figures equal a full recount of the items after every kind of change (completes of each
// type, racing ones, deletions, a carousel's image added, rows written in SQL by hand), and on
// SQLite the migration counts what a database already holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reservationLimits } from '../../src/server/limits.js';
import type { Repo } from '../../src/server/repo/interface.js';
import { RECOUNT_SQL, SQLITE_COUNTS_SQL } from '../../src/server/repo/item-counts.js';
import { SQLITE_FOLD_HASHTAG } from '../../src/server/repo/search-schema.js';
import { foldHashtag } from '../../src/server/repo/list-filter.js';
import { MIGRATIONS, databasePath, openDatabase } from '../../src/server/repo/sqlite/db.js';
import { createSqliteRepo } from '../../src/server/repo/sqlite/repo.js';
import { Database } from '../../src/sqlite/database.js';
import { repoBackends } from '../support/repo-backends.js';
import { ACTOR, AT, NOW_MS, completion, upload } from '../support/repo-records.js';

const LIMITS = reservationLimits(1e12, { keyReservedBytes: 1e12, keyReservedUploads: 1e6 });

interface Backend {
  repo: Repo;
  /** Runs SQL as a person would by hand (a seed, a repair). */
  exec(sql: string): Promise<void>;
  /** Each type's count from the items themselves. */
  recount(): Promise<Record<string, number>>;
}

const { postgresAndClient, cleanups } = repoBackends('counts', { max: 4 });

async function sqliteDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-counts-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const byType = (rows: Array<{ type: string; n: number | string }>) =>
  Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));

async function sqliteBackend(): Promise<Backend> {
  const dir = await sqliteDir();
  const db = openDatabase(dir);
  const repo = createSqliteRepo(db, { dataDir: dir });
  cleanups.push(() => repo.close());
  return {
    repo,
    exec: async (sql) => void db.exec(sql),
    recount: async () => byType(db.prepare(RECOUNT_SQL).all() as Array<{ type: string; n: number }>),
  };
}

async function postgresBackend(): Promise<Backend> {
  const { repo, client } = await postgresAndClient();
  return {
    repo,
    exec: async (sql) => void (await client.query(sql)),
    recount: async () => byType((await client.query<{ type: string; n: string }>(RECOUNT_SQL)).rows),
  };
}

/** The gauge's figures with the types it has no row for left out (a type never seen reads 0 too). */
async function gauge(repo: Repo): Promise<Record<string, number>> {
  return Object.fromEntries(Object.entries(await repo.itemsByType()).filter(([, n]) => n !== 0));
}

describe.each([
  ['sqlite', () => sqliteBackend()],
  ['postgres', () => postgresBackend()],
])('items by type on %s', (_name, open) => {
  it('equal a full recount after each kind of change', async () => {
    const { repo, exec, recount } = await open();
    const made = await repo.createKey('acme', new Date(AT));
    const c = (await repo.authenticate(made.key))!;
    const caller = { userId: c.userId, brandId: c.brandId, keyId: made.id };
    const matches = async (want: Record<string, number>) => {
      expect(await gauge(repo)).toEqual(await recount());
      expect(await gauge(repo)).toEqual(want);
    };
    const complete = async (type: 'shortform' | 'longform' | 'carousel', o: { itemId?: string } = {}) => {
      const video = type !== 'carousel';
      const u = upload(caller, video ? { type, fileName: 'v.mp4', contentType: 'video/mp4' } : { type });
      expect(await repo.reserveUpload(u, LIMITS, NOW_MS)).toEqual({ ok: true });
      await repo.markStored(u.key, AT);
      const done = await repo.complete(completion(u, o.itemId ? { contentItemId: o.itemId } : {}));
      if (done.kind !== 'done') throw new Error(`complete: ${done.kind}`);
      return done.item.id;
    };

    await matches({});
    const first = await complete('shortform');
    await complete('longform');
    const carousel = await complete('carousel');
    await matches({ shortform: 1, longform: 1, carousel: 1 });
    // An image added to the carousel is no new item.
    await complete('carousel', { itemId: carousel });
    await matches({ shortform: 1, longform: 1, carousel: 1 });
    // Completes at once.
    await Promise.all(Array.from({ length: 8 }, (_, i) => complete(i % 2 ? 'shortform' : 'longform')));
    await matches({ shortform: 5, longform: 5, carousel: 1 });
    // Deleted: the count goes down, to 0 for the last of a type.
    await repo.deleteItem(caller.brandId, first, AT, ACTOR);
    await repo.deleteItem(caller.brandId, carousel, AT, ACTOR);
    await matches({ shortform: 4, longform: 5 });
    // By hand, in SQL: a type changed (no statement of the server does), rows deleted.
    await exec(`UPDATE items SET type = 'carousel' WHERE type = 'longform'`);
    await matches({ shortform: 4, carousel: 5 });
    await exec(`DELETE FROM items WHERE type = 'shortform'`);
    await matches({ carousel: 5 });
  });
});

describe('on SQLite', () => {
  it('the gauge reads the kept counts, not the items', async () => {
    const dir = await sqliteDir();
    const db = new Database(databasePath(dir));
    db.textFunction(SQLITE_FOLD_HASHTAG, foldHashtag);
    for (const m of MIGRATIONS) db.exec(m);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_COUNTS_SQL}`).all() as Array<{ detail: string }>).map(
      (r) => r.detail,
    );
    db.close();
    expect(plan).toEqual(['SCAN item_type_counts']);
  });

  it('the migration counts the items a database holds already', async () => {
    const dir = await sqliteDir();
    const old = new Database(databasePath(dir));
    old.textFunction(SQLITE_FOLD_HASHTAG, foldHashtag);
    old.exec('CREATE TABLE migrations (id INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    const counts = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE item_type_counts'));
    expect(counts).toBeGreaterThan(0);
    MIGRATIONS.slice(0, counts).forEach((m, i) => {
      old.exec(m);
      old.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)').run(i + 1, AT);
    });
    const item = (id: string, type: string) =>
      `('${id}', 'b', '${type}', '${id}', '${id}', 'draft', 'k/${id}', '${id}', 'video/mp4', 1, '${AT}', '${AT}')`;
    old.exec(`INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '${AT}');
      INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type, file_size,
        created_at, updated_at) VALUES ${[
          item('a', 'shortform'),
          item('b', 'shortform'),
          item('c', 'longform'),
          item('d', 'carousel'),
          item('e', 'shortform'),
        ].join(', ')};`);
    old.close();
    const db = openDatabase(dir);
    const repo = createSqliteRepo(db, { dataDir: dir });
    cleanups.push(() => repo.close());
    expect(await gauge(repo)).toEqual({ shortform: 3, longform: 1, carousel: 1 });
  });
});
