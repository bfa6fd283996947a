// The list's search extension (docs/api.md "Search, sort and cursor paging") on both databases:
// every filter and combinations over a hand-made library, the text search's ranking, the sorts,
// cursor paging under concurrent inserts and deletes, the parameters refused, and the migration
// on a library made before it. The list goes through the same steps as the route: listFilterOf,
// listItems, cursorOf (test/server/list-search.test.ts drives the route itself).
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite/database.js';
import type { Actor, ItemChanges, Repo } from '../../src/server/repo/interface.js';
import { type ListParameters, cursorOf, listFilterOf } from '../../src/server/repo/list-filter.js';
import { MIGRATIONS, databasePath, openDatabase } from '../../src/server/repo/sqlite/db.js';
import { PG_MIGRATIONS } from '../../src/server/repo/pg/migrations.js';
import { createPostgresRepo } from '../../src/server/repo/pg/repo.js';
import { createSqliteRepo } from '../../src/server/repo/sqlite/repo.js';
import { reservationLimits } from '../../src/server/limits.js';
import { repoBackends } from '../support/repo-backends.js';

const both = repoBackends('search', { max: 4 });
const { backends, cleanups } = both;

const day = (n: number, h = 0) => new Date(Date.UTC(2026, 0, n, h)).toISOString();

interface Made {
  title: string;
  type?: 'shortform' | 'carousel';
  at: string;
  by: Actor;
  duration?: number | null;
  brandId: string;
  userId: string;
}

/** An item completed from an upload at `at` by `by`, then changed (if asked) at `changedAt` by `changedBy`. */
async function make(repo: Repo, m: Made, change?: { changes: ItemChanges; at: string; by: Actor }): Promise<string> {
  const type = m.type ?? 'shortform';
  const fileId = randomUUID();
  const key = `${m.userId}/${fileId}/${type === 'shortform' ? 'a.mp4' : 'a.jpg'}`;
  const at = Date.parse(m.at);
  const reserved = await repo.reserveUpload(
    {
      key,
      fileId,
      brandId: m.brandId,
      userId: m.userId,
      fileName: 'a',
      contentType: type === 'shortform' ? 'video/mp4' : 'image/jpeg',
      fileSize: 100,
      type,
      thumbnail: false,
      expiresAt: at + 3600_000,
      createdAt: m.at,
      keyId: m.by.keyId,
      sha256: null,
      partSize: null,
      multipartId: null,
    },
    reservationLimits(1e9),
    at,
  );
  expect(reserved).toEqual({ ok: true });
  await repo.markStored(key, m.at);
  const id = randomUUID();
  const done = await repo.complete({
    brandId: m.brandId,
    key,
    type,
    title: m.title,
    fileName: 'a',
    contentType: type === 'shortform' ? 'video/mp4' : 'image/jpeg',
    fileSize: 100,
    durationSeconds: type === 'shortform' ? (m.duration ?? 10) : null,
    sha256: createHash('sha256').update(key).digest('hex'),
    media: null,
    newItemId: id,
    newFileId: randomUUID(),
    maxCarouselFiles: 10,
    at: m.at,
    actor: m.by,
  });
  expect(done.kind).toBe('done');
  if (change) expect(await repo.updateItem(m.brandId, id, change.changes, change.at, change.by)).not.toBeNull();
  return id;
}

describe.each(backends)('search on %s', (_name, open) => {
  let repo: Repo;
  let brandId: string;
  let ci: Actor;
  let alice: Actor;
  const ids: Record<string, string> = {};
  let otherKeyId = '';

  /** The titles a query lists, in order (one page of up to 100). */
  async function titles(p: Partial<ListParameters>): Promise<string[]> {
    const asked = listFilterOf({ limit: 100, offset: 0, ...p });
    if ('problem' in asked) throw new Error(asked.problem.message);
    const page = await repo.listItems(brandId, asked.filter);
    return page.items.map((i) => i.title);
  }

  beforeAll(async () => {
    repo = await open();
    const ciKey = await repo.createKey('acme', new Date(day(1)), { name: 'CI' });
    const aliceKey = await repo.createKey('acme', new Date(day(1)), { name: 'alice' });
    const other = await repo.createKey('other', new Date(day(1)), { name: 'CI' });
    otherKeyId = other.id;
    brandId = ciKey.brandId;
    ci = { keyId: ciKey.id, keyName: 'CI', requestId: null };
    alice = { keyId: aliceKey.id, keyName: 'alice', requestId: null };
    const u = { brandId, userId: (await repo.authenticate(ciKey.key))!.userId };
    const au = { brandId, userId: (await repo.authenticate(aliceKey.key))!.userId };
    ids.A = await make(
      repo,
      { ...u, title: 'Northwind sneaker launch', at: day(1, 12), by: ci, duration: 30 },
      { changes: { hashtags: ['SummerSale', 'shoes'] }, at: day(1, 13), by: ci },
    );
    ids.B = await make(
      repo,
      { ...au, title: 'Winter coat', at: day(2), by: alice, duration: 90 },
      { changes: { description: 'Made for Northwind', hashtags: ['#summersale'] }, at: day(2, 1), by: alice },
    );
    ids.C = await make(
      repo,
      { ...u, title: 'Sneaker care', at: day(3), by: ci, duration: 12.5 },
      { changes: { description: 'how to clean', hashtags: ['shoes'] }, at: day(3, 1), by: ci },
    );
    ids.D = await make(
      repo,
      { ...au, title: 'Carousel of sneakers', type: 'carousel', at: day(4), by: alice },
      { changes: { description: 'the northwind sneaker lineup' }, at: day(5), by: ci },
    );
    ids.F = await make(
      repo,
      { ...u, title: 'Sneaker', at: day(6), by: ci, duration: 5 },
      { changes: { hashtags: ['Northwind', 'Été'] }, at: day(6, 1), by: ci },
    );
    // Another brand's item matches everything and is never listed.
    const ou = { brandId: other.brandId, userId: (await repo.authenticate(other.key))!.userId };
    const otherCi = { keyId: other.id, keyName: 'CI', requestId: null };
    ids.other = await make(
      repo,
      { ...ou, title: 'Northwind sneaker', at: day(2), by: otherCi },
      { changes: { hashtags: ['summersale'] }, at: day(2), by: otherCi },
    );
  }, 120_000);

  it('no extension parameter: the spec list, newest first', async () => {
    expect(await titles({})).toEqual([
      'Sneaker',
      'Carousel of sneakers',
      'Sneaker care',
      'Winter coat',
      'Northwind sneaker launch',
    ]);
  });

  it('hashtags: case-insensitive, a leading # ignored, several must all match', async () => {
    expect(await titles({ hashtag: ['summersale'] })).toEqual(['Winter coat', 'Northwind sneaker launch']);
    expect(await titles({ hashtag: ['#SUMMERSALE'] })).toEqual(['Winter coat', 'Northwind sneaker launch']);
    expect(await titles({ hashtag: ['summersale', 'Shoes'] })).toEqual(['Northwind sneaker launch']);
    expect(await titles({ hashtag: ['été'] })).toEqual(['Sneaker']);
    expect(await titles({ hashtag: ['ÉTÉ'] })).toEqual(['Sneaker']);
    expect(await titles({ hashtag: ['summer'] })).toEqual([]);
  });

  it('hashtags follow a change: replaced tags stop matching', async () => {
    const id = await make(
      repo,
      { brandId, userId: (await repo.listKeys(brandId))[0]!.userId, title: 'Temp', at: day(7), by: ci },
      { changes: { hashtags: ['gone'] }, at: day(7), by: ci },
    );
    expect(await titles({ hashtag: ['gone'] })).toEqual(['Temp']);
    await repo.updateItem(brandId, id, { hashtags: ['kept'] }, day(7, 1), ci);
    expect(await titles({ hashtag: ['gone'] })).toEqual([]);
    expect(await titles({ hashtag: ['kept'] })).toEqual(['Temp']);
    await repo.deleteItem(brandId, id, day(7, 2), ci);
    expect(await titles({ hashtag: ['kept'] })).toEqual([]);
  });

  it('time ranges: After inclusive, Before exclusive, any offset', async () => {
    expect(await titles({ createdAfter: day(3), createdBefore: day(6) })).toEqual([
      'Carousel of sneakers',
      'Sneaker care',
    ]);
    expect(await titles({ createdAfter: '2026-01-03T02:00:00+02:00', createdBefore: day(4) })).toEqual([
      'Sneaker care',
    ]);
    // D was created on day 4 and changed on day 5.
    expect(await titles({ updatedAfter: day(5) })).toEqual(['Sneaker', 'Carousel of sneakers']);
    expect(await titles({ updatedBefore: day(2, 1) })).toEqual(['Northwind sneaker launch']);
  });

  it('createdBy and updatedBy: a key id or a key name of the brand', async () => {
    expect(await titles({ createdBy: 'alice' })).toEqual(['Carousel of sneakers', 'Winter coat']);
    expect(await titles({ createdBy: alice.keyId! })).toEqual(['Carousel of sneakers', 'Winter coat']);
    expect(await titles({ updatedBy: 'alice' })).toEqual(['Winter coat']);
    expect(await titles({ updatedBy: 'CI' })).toEqual([
      'Sneaker',
      'Carousel of sneakers',
      'Sneaker care',
      'Northwind sneaker launch',
    ]);
    expect(await titles({ createdBy: 'nobody' })).toEqual([]);
    expect(await titles({ createdBy: 'alice', updatedBy: 'nobody' })).toEqual([]);
    expect(await titles({ createdBy: 'alice', updatedBy: 'alice' })).toEqual(['Winter coat']);
    // A key of another brand, by its id: not this brand's.
    expect(await titles({ createdBy: otherKeyId })).toEqual([]);
  });

  it('createdBy: a name two keys share stands for both', async () => {
    const twin = await repo.createKey('acme', new Date(day(1)), { name: 'alice' });
    const by = { keyId: twin.id, keyName: 'alice', requestId: null };
    const u = { brandId, userId: (await repo.authenticate(twin.key))!.userId };
    const id = await make(repo, { ...u, title: 'Twin’s clip', at: day(7), by });
    try {
      expect(await titles({ createdBy: 'alice' })).toEqual(['Twin’s clip', 'Carousel of sneakers', 'Winter coat']);
      expect(await titles({ createdBy: twin.id })).toEqual(['Twin’s clip']);
    } finally {
      // The other tests' library, as it was.
      await repo.deleteItem(brandId, id, day(8), by);
    }
  });

  it('duration range, inclusive; carousels have none', async () => {
    expect(await titles({ minDuration: 12.5, maxDuration: 30 })).toEqual(['Sneaker care', 'Northwind sneaker launch']);
    expect(await titles({ minDuration: 60 })).toEqual(['Winter coat']);
    expect(await titles({ maxDuration: 5 })).toEqual(['Sneaker']);
  });

  it('free text: every word, over title, description and hashtags, best match first', async () => {
    // A: both words in the title (6); F: sneaker in the title, northwind a hashtag (5); D:
    // sneakers in the title and both in the description (5), older than F.
    expect(await titles({ q: 'northwind sneaker' })).toEqual([
      'Northwind sneaker launch',
      'Sneaker',
      'Carousel of sneakers',
    ]);
    expect(await titles({ q: 'NORTHWIND' })).toEqual([
      'Northwind sneaker launch',
      'Sneaker',
      'Carousel of sneakers',
      'Winter coat',
    ]);
    expect(await titles({ q: 'clean' })).toEqual(['Sneaker care']);
    expect(await titles({ q: 'north' })).toHaveLength(4);
    expect(await titles({ q: 'orthwind' })).toEqual([]);
    // With a sort, the sort wins.
    expect(await titles({ q: 'northwind sneaker', sort: 'createdAt', order: 'asc' })).toEqual([
      'Northwind sneaker launch',
      'Carousel of sneakers',
      'Sneaker',
    ]);
  });

  it('id (extension): only the items with these ids, either case, in the list’s order; another brand’s and unknown ones left out', async () => {
    expect(await titles({ id: [ids.C!, ids.A!.toUpperCase(), randomUUID(), ids.other!] })).toEqual([
      'Sneaker care',
      'Northwind sneaker launch',
    ]);
    expect(await titles({ id: [ids.F!, ids.F!, ids.D!], hashtag: ['northwind'] })).toEqual(['Sneaker']);
    expect(await titles({ id: [ids.F!, ids.B!], sort: 'title' })).toEqual(['Sneaker', 'Winter coat']);
    expect(await titles({ id: [ids.F!], type: 'carousel' })).toEqual([]);
    expect(await titles({ id: [ids.other!] })).toEqual([]);
  });

  it('combinations: every filter must hold', async () => {
    // Both have sneaker in the title: the newer first.
    expect(await titles({ q: 'sneaker', hashtag: ['shoes'], createdBy: 'CI' })).toEqual([
      'Sneaker care',
      'Northwind sneaker launch',
    ]);
    expect(await titles({ q: 'sneaker', hashtag: ['shoes'], maxDuration: 20 })).toEqual(['Sneaker care']);
    expect(await titles({ type: 'shortform', updatedBy: 'CI', createdAfter: day(3) })).toEqual([
      'Sneaker',
      'Sneaker care',
    ]);
    expect(await titles({ status: 'draft', search: 'SNEAK', hashtag: ['summersale'] })).toEqual([
      'Northwind sneaker launch',
    ]);
  });

  it('sorts: title, updatedAt, createdAt, both directions', async () => {
    const byTitle = ['Carousel of sneakers', 'Northwind sneaker launch', 'Sneaker', 'Sneaker care', 'Winter coat'];
    expect(await titles({ sort: 'title' })).toEqual(byTitle);
    expect(await titles({ sort: 'title', order: 'desc' })).toEqual([...byTitle].reverse());
    const byUpdate = ['Sneaker', 'Carousel of sneakers', 'Sneaker care', 'Winter coat', 'Northwind sneaker launch'];
    expect(await titles({ sort: 'updatedAt' })).toEqual(byUpdate);
    expect(await titles({ sort: 'updatedAt', order: 'asc' })).toEqual([...byUpdate].reverse());
    expect(await titles({ sort: 'createdAt', order: 'asc' })).toEqual([
      'Northwind sneaker launch',
      'Winter coat',
      'Sneaker care',
      'Carousel of sneakers',
      'Sneaker',
    ]);
  });

  it.each<[string, Partial<ListParameters>]>([
    ['created, newest first', {}],
    ['title', { sort: 'title' }],
    ['updated, oldest first', { sort: 'updatedAt', order: 'asc' }],
    ['rank', { q: 'northwind' }],
    ['ids', { id: ['A', 'B', 'D', 'F'] }],
  ])('cursor pages (%s) list every item once, as one page would', async (_what, asked) => {
    const p = asked.id ? { ...asked, id: asked.id.map((name) => ids[name]!) } : asked;
    const all = await titles(p);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const asked = listFilterOf({ limit: 2, offset: 0, ...p, cursor });
      if ('problem' in asked) throw new Error(asked.problem.message);
      const page = await repo.listItems(brandId, asked.filter);
      seen.push(...page.items.map((i) => i.title));
      cursor = cursorOf(asked.filter, page.next) ?? undefined;
      if (!cursor) break;
      expect(page.hasMore).toBe(true);
    }
    expect(seen).toEqual(all);
  });

  it('a cursor stays in place while items are added and deleted around it', async () => {
    const userId = (await repo.listKeys(brandId))[0]!.userId;
    const mine = { brandId, userId, by: ci };
    const made: string[] = [];
    for (let i = 1; i <= 6; i++)
      made.push(
        await make(
          repo,
          { ...mine, title: `paged ${i}`, at: day(10, i) },
          { changes: { hashtags: ['paged'] }, at: day(10, i), by: ci },
        ),
      );
    const first = listFilterOf({ limit: 2, offset: 0, hashtag: ['paged'] });
    if ('problem' in first) throw new Error(first.problem.message);
    const page1 = await repo.listItems(brandId, first.filter);
    expect(page1.items.map((i) => i.title)).toEqual(['paged 6', 'paged 5']);
    const cursor = cursorOf(first.filter, page1.next)!;
    // Meanwhile: a newer item (before the cursor), one of page 1 deleted, one of page 2 deleted.
    await make(
      repo,
      { ...mine, title: 'paged 7', at: day(11) },
      { changes: { hashtags: ['paged'] }, at: day(11), by: ci },
    );
    await repo.deleteItem(brandId, made[5]!, day(11, 1), ci);
    await repo.deleteItem(brandId, made[3]!, day(11, 1), ci);
    const next = listFilterOf({ limit: 2, offset: 0, hashtag: ['paged'], cursor });
    if ('problem' in next) throw new Error(next.problem.message);
    const page2 = await repo.listItems(brandId, next.filter);
    // An offset of 2 would now skip 'paged 3' (two rows fewer before it, one more).
    expect(page2.items.map((i) => i.title)).toEqual(['paged 3', 'paged 2']);
    const last = listFilterOf({ limit: 2, offset: 0, hashtag: ['paged'], cursor: cursorOf(next.filter, page2.next)! });
    if ('problem' in last) throw new Error(last.problem.message);
    const page3 = await repo.listItems(brandId, last.filter);
    expect(page3.items.map((i) => i.title)).toEqual(['paged 1']);
    expect(page3.hasMore).toBe(false);
    expect(page3.next).toBeNull();
  });
});

describe('list parameters refused', () => {
  const first = listFilterOf({ limit: 2, offset: 0, hashtag: ['a'] });
  if ('problem' in first) throw new Error('unexpected');
  const cursor = cursorOf(first.filter, { key: day(1), id: randomUUID() })!;
  it.each<[string, Partial<ListParameters>, string]>([
    ['a cursor with a non-zero offset', { hashtag: ['a'], cursor, offset: 4 }, 'offset'],
    ['a cursor of another filter', { hashtag: ['b'], cursor }, 'other filters'],
    ['a cursor of another sort', { hashtag: ['a'], cursor, sort: 'title' }, 'other filters'],
    ['a cursor of another order', { hashtag: ['a'], cursor, order: 'asc' }, 'other filters'],
    ['a made-up cursor', { cursor: 'abc' }, 'not a nextCursor'],
    [
      'a cursor that decodes to another shape',
      { cursor: Buffer.from('{"a":1}').toString('base64url') },
      'not a nextCursor',
    ],
    ['a text with no word', { q: '!!' }, 'letter or digit'],
    ['a hashtag that is only #', { hashtag: ['#'] }, 'name a hashtag'],
    ['a duration range upside down', { minDuration: 10, maxDuration: 5 }, 'greater than'],
  ])('%s', (_what, p, message) => {
    const asked = listFilterOf({ limit: 2, offset: 0, ...p });
    expect('problem' in asked && asked.problem.message).toContain(message);
  });

  it('the same filter in another order of parameters takes the cursor; limit may change', () => {
    expect('filter' in listFilterOf({ limit: 50, offset: 0, hashtag: ['a'], cursor })).toBe(true);
  });
});

describe('the migration on a library made before it', () => {
  // Migrations 1–5 as they shipped, then a brand, a key, two items with hashtags and their
  // audit entries, as an older contentlib wrote them.
  const rows = `
    INSERT INTO brands (id, name, created_at) VALUES ('b1', 'old', '${day(1)}');
    INSERT INTO users (id, brand_id, created_at) VALUES ('u1', 'b1', '${day(1)}');
    INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at, name, scopes)
      VALUES ('k1', 'u1', 'x', 'cl_x', '${day(1)}', 'uploader', '');
    INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at, name, scopes)
      VALUES ('k2', 'u1', 'y', 'cl_y', '${day(1)}', 'editor', '');
    INSERT INTO items (id, brand_id, type, title, title_fold, description, hashtags, status, file_key, file_name,
                       content_type, file_size, duration_seconds, created_at, updated_at)
      VALUES ('i1', 'b1', 'shortform', 'Northwind sneaker', 'northwind sneaker', 'old text', '["#SummerSale","Été"]',
              'draft', 'u1/f1/a.mp4', 'a.mp4', 'video/mp4', 1, 20, '${day(2)}', '${day(3)}'),
             ('i2', 'b1', 'shortform', 'Other', 'other', 'nothing', '[]',
              'draft', 'u1/f2/a.mp4', 'a.mp4', 'video/mp4', 1, 40, '${day(4)}', '${day(4)}');
    INSERT INTO audit_log (at, brand_id, action, item_id, key_id, key_name, details) VALUES
      ('${day(2)}', 'b1', 'item.created', 'i1', 'k1', 'uploader', '{}'),
      ('${day(3)}', 'b1', 'item.updated', 'i1', 'k2', 'editor', '{}'),
      ('${day(4)}', 'b1', 'item.created', 'i2', 'k1', 'uploader', '{}');`;

  async function check(repo: Repo) {
    const list = async (p: Partial<ListParameters>) => {
      const asked = listFilterOf({ limit: 10, offset: 0, ...p });
      if ('problem' in asked) throw new Error(asked.problem.message);
      return (await repo.listItems('b1', asked.filter)).items.map((i) => i.id);
    };
    expect(await list({ hashtag: ['summersale'] })).toEqual(['i1']);
    expect(await list({ hashtag: ['été'] })).toEqual(['i1']);
    expect(await list({ q: 'northwind' })).toEqual(['i1']);
    expect(await list({ q: 'old' })).toEqual(['i1']);
    expect(await list({ createdBy: 'uploader' })).toEqual(['i2', 'i1']);
    expect(await list({ updatedBy: 'editor' })).toEqual(['i1']);
    expect(await list({ updatedBy: 'k1' })).toEqual(['i2']);
    expect(await list({ sort: 'title' })).toEqual(['i1', 'i2']);
    // And the index follows later changes of the migrated rows.
    await repo.updateItem('b1', 'i2', { description: 'now about northwind' }, day(5), {
      keyId: 'k2',
      keyName: 'editor',
      requestId: null,
    });
    expect(await list({ q: 'northwind' })).toEqual(['i1', 'i2']);
    expect(await list({ updatedBy: 'editor' })).toEqual(['i2', 'i1']);
  }

  it('on SQLite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'contentlib-search-old-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const old = new Database(databasePath(dir));
    old.exec('CREATE TABLE migrations (id INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    MIGRATIONS.slice(0, 5).forEach((m, i) => {
      old.exec(m);
      old.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)').run(i + 1, day(1));
    });
    old.exec(rows);
    old.close();
    const repo = createSqliteRepo(openDatabase(dir), { dataDir: dir });
    cleanups.push(() => repo.close());
    await check(repo);
  });

  it('on PostgreSQL', async () => {
    const url = await both.postgres().createDatabase('searchold');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      'CREATE TABLE contentlib_migrations (id INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    for (const [i, m] of PG_MIGRATIONS.slice(0, 5).entries()) {
      await client.query(m);
      await client.query('INSERT INTO contentlib_migrations (id) VALUES ($1)', [i + 1]);
    }
    await client.query(rows.replaceAll("'x'", "'\\x01'::bytea").replaceAll("'y'", "'\\x02'::bytea"));
    await client.end();
    const repo = await createPostgresRepo({ connectionString: url, max: 2 });
    cleanups.push(() => repo.close());
    await check(repo);
  });

  it('on PostgreSQL as a role that may not add pg_trgm: migrated without the trigram index, searches work', async () => {
    const url = await both.postgres().createDatabase('searchrole');
    const name = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Its own schema and nothing on the database: CREATE EXTENSION is refused.
    await admin.query(`CREATE ROLE ${name}_app LOGIN; REVOKE CREATE ON DATABASE ${name} FROM PUBLIC;
      CREATE SCHEMA app AUTHORIZATION ${name}_app; ALTER ROLE ${name}_app SET search_path = app`);
    const asApp = new URL(url);
    asApp.username = `${name}_app`;
    asApp.password = '';
    const repo = await createPostgresRepo({ connectionString: asApp.toString(), max: 2 });
    cleanups.push(() => repo.close());
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'app' AND indexname = 'items_title_trgm'`,
    );
    const ext = await admin.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
    await admin.end();
    expect(ext.rowCount).toBe(0);
    expect(rows[0]!.n).toBe(0);
    const made = await repo.createKey('acme', new Date(day(1)), { name: 'CI' });
    const asked = listFilterOf({ limit: 5, offset: 0, search: 'x', q: 'northwind', hashtag: ['a'] });
    if ('problem' in asked) throw new Error(asked.problem.message);
    expect((await repo.listItems(made.brandId, asked.filter)).items).toEqual([]);
  });

  it('on PostgreSQL as the owner: pg_trgm added and the title search indexed', async () => {
    const url = await both.postgres().createDatabase('searchtrgm');
    const repo = await createPostgresRepo({ connectionString: url, max: 2 });
    cleanups.push(() => repo.close());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rowCount } = await client.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'items_title_trgm'`);
    await client.end();
    expect(rowCount).toBe(1);
  });
});
