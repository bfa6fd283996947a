// A brand's held bytes, kept as a count by the triggers of src/server/repo/held-bytes.ts, equal a
// full recount of its upload rows after every kind of change to them, on both databases: a
// multipart presign, a PUT stored (twice) and refused, complete, a thumbnail attached and
// replaced, an image removed, abort, the sweeper and an item deleted; and the migration counts
// the rows a database already holds. Presign's answers on top of the count are the repository
// tests' (repo.test.ts: quota, multipart, racing presigns on PostgreSQL).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { reservationLimits } from '../../src/server/limits.js';
import { recountSql } from '../../src/server/repo/held-bytes.js';
import type { NewUpload, Repo } from '../../src/server/repo/interface.js';
import { PG_MIGRATIONS } from '../../src/server/repo/pg/migrations.js';
import { POSTGRES, SQLITE, type Dialect } from '../../src/server/repo/schema.js';
import { SQLITE_FOLD_HASHTAG } from '../../src/server/repo/search-schema.js';
import { foldHashtag } from '../../src/server/repo/list-filter.js';
import { MIGRATIONS, databasePath, openDatabase } from '../../src/server/repo/sqlite/db.js';
import { createSqliteRepo } from '../../src/server/repo/sqlite/repo.js';
import { Database } from '../../src/sqlite/database.js';
import { repoBackends } from '../support/repo-backends.js';
import { ACTOR, AT, NOW_MS, completion, upload } from '../support/repo-records.js';

const LIMITS = reservationLimits(1e12, { keyReservedBytes: 1e12, keyReservedUploads: 1e6 });

interface Counts {
  id: string;
  held: number;
  thumbnails: number;
  heldRecount: number;
  thumbnailsRecount: number;
}

/** Every brand's counts beside their recount from the rows. */
const countsSql = (d: Dialect) =>
  `SELECT id, held_bytes AS held, held_thumbnail_bytes AS thumbnails,
          ${recountSql(d, false)} AS "heldRecount", ${recountSql(d, true)} AS "thumbnailsRecount"
     FROM brands ORDER BY id`;

interface Backend {
  repo: Repo;
  counts(): Promise<Counts[]>;
}

// The PostgreSQL server's lifecycle and the file's cleanups; the backends below are this file's
// own, since each also reads the counts through its own connection.
const { postgres, postgresAndClient, cleanups } = repoBackends('held', { max: 4 });

async function sqliteDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-held-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function sqliteBackend(dir?: string): Promise<Backend> {
  dir ??= await sqliteDir();
  const db = openDatabase(dir);
  const repo = createSqliteRepo(db, { dataDir: dir });
  cleanups.push(() => repo.close());
  return { repo, counts: async () => db.prepare(countsSql(SQLITE)).all() as unknown as Counts[] };
}

async function postgresBackend(url?: string): Promise<Backend> {
  const { repo, client } = await postgresAndClient(url);
  return {
    repo,
    counts: async () =>
      (await client.query<Counts>(countsSql(POSTGRES))).rows.map((r) => ({
        ...r,
        held: Number(r.held),
        thumbnails: Number(r.thumbnails),
        heldRecount: Number(r.heldRecount),
        thumbnailsRecount: Number(r.thumbnailsRecount),
      })),
  };
}

describe.each([
  ['sqlite', () => sqliteBackend()],
  ['postgres', () => postgresBackend()],
])('held bytes on %s', (_name, open) => {
  it('equal a full recount after each kind of change', async () => {
    const { repo, counts } = await open();
    const callerOf = async (brand: string) => {
      const made = await repo.createKey(brand, new Date(AT));
      const c = (await repo.authenticate(made.key))!;
      return { userId: c.userId, brandId: c.brandId, keyId: made.id };
    };
    const acme = await callerOf('acme');
    const other = await callerOf('other');
    const held = async (brandId: string) => {
      const all = await counts();
      // The count is the recount, for every brand, after every change.
      for (const c of all)
        expect({ held: c.held, thumbnails: c.thumbnails }).toEqual({
          held: c.heldRecount,
          thumbnails: c.thumbnailsRecount,
        });
      const c = all.find((x) => x.id === brandId)!;
      return [c.held, c.thumbnails];
    };
    const reserve = async (u: NewUpload) => {
      expect(await repo.reserveUpload(u, LIMITS, NOW_MS)).toEqual({ ok: true });
      return u;
    };
    const stored = async (u: NewUpload) => {
      await reserve(u);
      await repo.markStored(u.key, AT);
      return u;
    };

    // A presign of a single PUT holds nothing yet (the window counts it); a multipart one at once.
    const single = await reserve(upload(acme, { fileSize: 1000 }));
    expect(await held(acme.brandId)).toEqual([0, 0]);
    const parts = await reserve(upload(acme, { fileSize: 7000, partSize: 4000, multipartId: 'm-1' }));
    expect(await held(acme.brandId)).toEqual([7000, 0]);

    // Stored, stored again (a second PUT of the same URL), refused (its magic bytes), stored again.
    await repo.markStored(single.key, AT);
    expect(await held(acme.brandId)).toEqual([8000, 0]);
    await repo.markStored(single.key, AT);
    expect(await held(acme.brandId)).toEqual([8000, 0]);
    await repo.markNotStored(single.key);
    expect(await held(acme.brandId)).toEqual([7000, 0]);
    await repo.markStored(single.key, AT);
    expect(await held(acme.brandId)).toEqual([8000, 0]);

    // Completed: still held, once. Another brand's stored upload is that brand's.
    const first = await repo.complete(completion(single));
    if (first.kind !== 'done') throw new Error(first.kind);
    expect(await held(acme.brandId)).toEqual([8000, 0]);
    await stored(upload(other, { fileSize: 5 }));
    expect(await held(other.brandId)).toEqual([5, 0]);
    expect(await held(acme.brandId)).toEqual([8000, 0]);

    // A second image, then removed from the carousel: its row goes.
    const second = await stored(upload(acme, { fileSize: 300 }));
    const added = await repo.complete(completion(second, { contentItemId: first.item.id }));
    if (added.kind !== 'done') throw new Error(added.kind);
    expect(await held(acme.brandId)).toEqual([8300, 0]);
    const removed = await repo.removeImage({
      brandId: acme.brandId,
      itemId: first.item.id,
      fileId: added.file!.id,
      minFiles: 1,
      at: AT,
      actor: ACTOR,
    });
    expect(removed.kind).toBe('done');
    expect(await held(acme.brandId)).toEqual([8000, 0]);

    // A thumbnail: presigned (not held), attached by a PATCH (completed), replaced (its row goes).
    const thumb = await reserve(upload(acme, { fileSize: 20, thumbnail: true }));
    expect(await held(acme.brandId)).toEqual([8000, 0]);
    await repo.updateItem(acme.brandId, first.item.id, { thumbnailKey: thumb.key }, AT, ACTOR);
    expect(await held(acme.brandId)).toEqual([8000, 20]);
    const thumb2 = await stored(upload(acme, { fileSize: 30, thumbnail: true }));
    expect(await held(acme.brandId)).toEqual([8000, 50]);
    await repo.updateItem(acme.brandId, first.item.id, { thumbnailKey: thumb2.key }, AT, ACTOR);
    expect(await held(acme.brandId)).toEqual([8000, 30]);

    // Abort: the multipart upload's bytes are free; a second abort changes nothing.
    await repo.abortUpload(parts.key, AT);
    expect(await held(acme.brandId)).toEqual([1000, 30]);
    await repo.abortUpload(parts.key, AT);
    expect(await held(acme.brandId)).toEqual([1000, 30]);

    // The sweeper: a stored upload never completed, a multipart one and a plain reservation, expired.
    await stored(upload(acme, { fileSize: 400, expiresAt: NOW_MS + 60_000 }));
    await reserve(upload(acme, { fileSize: 500, partSize: 300, multipartId: 'm-2', expiresAt: NOW_MS + 60_000 }));
    await reserve(upload(acme, { fileSize: 600, expiresAt: NOW_MS + 60_000 }));
    expect(await held(acme.brandId)).toEqual([1900, 30]);
    expect(await repo.abandonUploads(NOW_MS + 120_000, AT)).toBe(3);
    expect(await held(acme.brandId)).toEqual([1000, 30]);

    // The item deleted: its file and its thumbnail go with it; the other brand keeps its own.
    await repo.deleteItem(acme.brandId, first.item.id, AT, ACTOR);
    expect(await held(acme.brandId)).toEqual([0, 0]);
    expect(await held(other.brandId)).toEqual([5, 0]);
  });

  it('racing changes of one brand leave the count equal to the recount', async () => {
    const { repo, counts } = await open();
    const made = await repo.createKey('busy', new Date(AT));
    const c = (await repo.authenticate(made.key))!;
    const caller = { userId: c.userId, brandId: c.brandId, keyId: made.id };
    const uploads = Array.from({ length: 12 }, (_, i) => upload(caller, { fileSize: 10 + i }));
    await Promise.all(uploads.map((u) => repo.reserveUpload(u, LIMITS, NOW_MS)));
    await Promise.all(uploads.map((u) => repo.markStored(u.key, AT)));
    await Promise.all(uploads.slice(0, 6).map((u) => repo.complete(completion(u))));
    await Promise.all(uploads.slice(6).map((u) => repo.abortUpload(u.key, AT)));
    const [row] = (await counts()).filter((x) => x.id === caller.brandId);
    expect(row!.held).toBe(row!.heldRecount);
    expect(row!.held).toBe(10 + 11 + 12 + 13 + 14 + 15);
  });

  it('sweeps running at once over several brands each remove what they took, and the counts follow', async () => {
    const { repo, counts } = await open();
    const callers = await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (brand) => {
        const made = await repo.createKey(`sweep-${brand}`, new Date(AT));
        const c = (await repo.authenticate(made.key))!;
        return { userId: c.userId, brandId: c.brandId, keyId: made.id };
      }),
    );
    // Interleaved across the brands, so each sweep's rows touch every brand.
    const gone = Array.from({ length: 40 }, (_, i) => upload(callers[i % 4]!, { expiresAt: NOW_MS + 60_000 }));
    for (const u of gone) {
      expect(await repo.reserveUpload(u, LIMITS, NOW_MS)).toEqual({ ok: true });
      await repo.markStored(u.key, AT);
    }
    const swept = await Promise.all([1, 2, 3, 4].map(() => repo.abandonUploads(NOW_MS + 120_000, AT)));
    expect(swept.reduce((a, b) => a + b, 0)).toBe(40);
    for (const c of (await counts()).filter((x) => callers.some((k) => k.brandId === x.id)))
      expect([c.held, c.heldRecount]).toEqual([0, 0]);
  });
});

describe('the migration counts what a database holds already', () => {
  /** The migrations before the held bytes' (the tenth; those after it run at open, as on an upgrade). */
  const HELD_BYTES = 9;
  const held = `INSERT INTO uploads (key, file_id, brand_id, user_id, file_name, content_type, file_size, type,
      thumbnail, expires_at, created_at, stored_at, completed_at, part_size)`;
  /** Before the migration: stored, completed, multipart, a thumbnail, and a reservation not held. */
  const rows = (t: string, f: string) => `
    INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '${AT}'), ('c', 'other', '${AT}');
    INSERT INTO users (id, brand_id, created_at) VALUES ('u', 'b', '${AT}'), ('v', 'c', '${AT}');
    ${held} VALUES ('k1', 'f1', 'b', 'u', 'a', 'image/jpeg', 100, 'carousel', ${f}, 1, '${AT}', '${AT}', NULL, NULL),
      ('k2', 'f2', 'b', 'u', 'a', 'image/jpeg', 200, 'carousel', ${f}, 1, '${AT}', NULL, '${AT}', NULL),
      ('k3', 'f3', 'b', 'u', 'a', 'image/jpeg', 400, 'carousel', ${f}, 1, '${AT}', NULL, NULL, 300),
      ('k4', 'f4', 'b', 'u', 'a', 'image/jpeg', 8, 'carousel', ${t}, 1, '${AT}', NULL, '${AT}', NULL),
      ('k5', 'f5', 'b', 'u', 'a', 'image/jpeg', 1600, 'carousel', ${f}, 1, '${AT}', NULL, NULL, NULL),
      ('k6', 'f6', 'c', 'v', 'a', 'image/jpeg', 3, 'carousel', ${f}, 1, '${AT}', '${AT}', NULL, NULL);`;
  const want = [
    { id: 'b', held: 700, thumbnails: 8, heldRecount: 700, thumbnailsRecount: 8 },
    { id: 'c', held: 3, thumbnails: 0, heldRecount: 3, thumbnailsRecount: 0 },
  ];

  it('on SQLite', async () => {
    const dir = await sqliteDir();
    const old = new Database(databasePath(dir));
    old.textFunction(SQLITE_FOLD_HASHTAG, foldHashtag);
    old.exec('CREATE TABLE migrations (id INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    expect(MIGRATIONS[HELD_BYTES]).toContain('held_bytes');
    MIGRATIONS.slice(0, HELD_BYTES).forEach((m, i) => {
      old.exec(m);
      old.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)').run(i + 1, AT);
    });
    old.exec(rows('1', '0'));
    old.close();
    const { counts } = await sqliteBackend(dir);
    expect(await counts()).toEqual(want);
  });

  it('on PostgreSQL', async () => {
    const url = await postgres().createDatabase('heldmigration');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      'CREATE TABLE contentlib_migrations (id INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    expect(PG_MIGRATIONS[HELD_BYTES]).toContain('held_bytes');
    for (const [i, m] of PG_MIGRATIONS.slice(0, HELD_BYTES).entries()) {
      await client.query(m);
      await client.query('INSERT INTO contentlib_migrations (id) VALUES ($1)', [i + 1]);
    }
    await client.query(rows('true', 'false'));
    await client.end();
    const { counts } = await postgresBackend(url);
    expect(await counts()).toEqual(want);
  });
});
