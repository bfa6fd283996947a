// The Repo contract, run unchanged against both implementations: SQLite (the embedded default)
// and PostgreSQL (a real server from test/support/postgres.ts, one for this file). The races are
// real on PostgreSQL (a pool of connections, row locks) and serialised by design on SQLite.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite/database.js';
import pg from 'pg';
import { CHECK_MAX_FILES } from '../../src/api/schemas.js';
import { SCOPES } from '../../src/api/scopes.js';
import { MIGRATIONS, databasePath, openDatabase } from '../../src/server/repo/sqlite/db.js';
import { hashKey } from '../../src/server/repo/keys.js';
import { PG_MIGRATIONS } from '../../src/server/repo/pg/migrations.js';
import type { NewUpload, Repo } from '../../src/server/repo/interface.js';
import type { RepoSteps } from '../../src/server/repo/decisions.js';
import { ownKey } from '../../src/server/repo/interface.js';
import { deleteItem, updateItem } from '../../src/server/repo/item-changes.js';
import { previewKeyOf } from '../../src/server/object-keys.js';
import { createPool, transactions } from '../../src/server/repo/pg/query.js';
import { createPostgresRepo, pgSteps } from '../../src/server/repo/pg/repo.js';
import { createSqliteRepo, sqliteSteps } from '../../src/server/repo/sqlite/repo.js';
import { type Decision, runSteps, runStepsAsync } from '../../src/server/repo/steps.js';
import { reservationLimits } from '../../src/server/limits.js';
import { repoBackends } from '../support/repo-backends.js';
import { ACTOR, AT, NOW_MS, completion, upload } from '../support/repo-records.js';

const both = repoBackends('repo', { max: 12 });
const { backends, cleanups } = both;

describe.each(backends)('Repo on %s', (_name, open) => {
  async function withCaller() {
    const repo = await open();
    const made = await repo.createKey('acme', new Date(AT));
    const caller = (await repo.authenticate(made.key))!;
    return { repo, caller, made };
  }

  async function stored(repo: Repo, u: NewUpload) {
    expect(await repo.reserveUpload(u, reservationLimits(1e9), NOW_MS)).toEqual({ ok: true });
    await repo.markStored(u.key, AT);
    return u;
  }

  it('keys: a created key authenticates with its scopes, name and expiry; revoked, it still shows as revoked', async () => {
    const { repo, caller, made } = await withCaller();
    expect(caller.brandId).toBeTruthy();
    const second = await repo.createKey('acme', new Date(AT), {
      name: 'CI',
      scopes: ['content:write', 'content:read'],
      expiresAt: '2026-04-01T00:00:00.000Z',
    });
    expect(second).toMatchObject({ name: 'CI', brand: 'acme', scopes: ['content:read', 'content:write'] });
    const found = (await repo.authenticate(second.key))!;
    expect(found).toMatchObject({
      brandId: caller.brandId,
      keyName: 'CI',
      scopes: ['content:read', 'content:write'],
      expiresAt: '2026-04-01T00:00:00.000Z',
      revokedAt: null,
      lastUsedAt: null,
    });
    expect((await repo.listKeys()).map((k) => k.id)).toEqual(expect.arrayContaining([made.id, second.id]));
    expect((await repo.listKeys('no-such-brand')).length).toBe(0);
    expect(await repo.revokeKey(made.id, new Date(AT))).toBe('revoked');
    expect(await repo.revokeKey(made.id, new Date(AT))).toBe('not_found');
    expect((await repo.authenticate(made.key))!.revokedAt).toBe(AT);
    expect(await repo.authenticate('cl_nonsense')).toBeNull();
  });

  it('keys: a use is recorded at most once per window; revoking is confined to a brand and keeps its last admin', async () => {
    const { repo, caller, made } = await withCaller();
    const admin = await repo.createKey({ id: caller.brandId }, new Date(AT), { scopes: ['keys:admin'] });
    await repo.touchKey(admin.id, AT, '2025-12-31T23:59:00.000Z');
    await repo.touchKey(admin.id, '2026-01-01T00:00:30.000Z', '2025-12-31T23:59:30.000Z');
    expect((await repo.authenticate(admin.key))!.lastUsedAt).toBe(AT);
    await repo.touchKey(admin.id, '2026-01-01T00:01:01.000Z', '2026-01-01T00:00:01.000Z');
    expect((await repo.authenticate(admin.key))!.lastUsedAt).toBe('2026-01-01T00:01:01.000Z');

    const other = await repo.createKey('other-brand', new Date(AT), { scopes: ['keys:admin'] });
    const otherBrand = (await repo.authenticate(other.key))!.brandId;
    expect(await repo.revokeKey(admin.id, new Date(AT), { brandId: otherBrand })).toBe('not_found');
    // `made` has no scopes at all: the admin key is the brand's only one.
    expect(made.scopes).toEqual([]);
    expect(await repo.revokeKey(admin.id, new Date(AT), { brandId: caller.brandId, keepLastAdmin: true })).toBe(
      'last_admin',
    );
    const expired = await repo.createKey({ id: caller.brandId }, new Date(AT), {
      scopes: ['keys:admin'],
      expiresAt: AT,
    });
    // An expired admin key does not count as one the brand keeps.
    expect(await repo.revokeKey(admin.id, new Date(AT), { keepLastAdmin: true })).toBe('last_admin');
    const spare = await repo.createKey({ id: caller.brandId }, new Date(AT), { scopes: ['keys:admin'] });
    expect(await repo.revokeKey(admin.id, new Date(AT), { keepLastAdmin: true })).toBe('revoked');
    expect(await repo.revokeKey(expired.id, new Date(AT), { keepLastAdmin: true })).toBe('revoked');
    expect(await repo.revokeKey(spare.id, new Date(AT), { keepLastAdmin: true })).toBe('last_admin');
  });

  it('keys: two admins revoking each other at once leave the brand one admin key', async () => {
    const repo = await open();
    const a = await repo.createKey('duel', new Date(AT), { scopes: ['keys:admin'] });
    const b = await repo.createKey('duel', new Date(AT), { scopes: ['keys:admin'] });
    const outcomes = await Promise.all([
      repo.revokeKey(a.id, new Date(AT), { keepLastAdmin: true }),
      repo.revokeKey(b.id, new Date(AT), { keepLastAdmin: true }),
    ]);
    expect(outcomes.sort()).toEqual(['last_admin', 'revoked']);
  });

  it('multipart: holds the quota until aborted, past the reservation window; renew keeps it from the sweeper', async () => {
    const { repo, caller } = await withCaller();
    const limits = reservationLimits(500, { keyReservedBytes: 1e9 });
    const parts = upload(caller, { fileSize: 400, partSize: 300, multipartId: 'store-upload-1' });
    expect(await repo.reserveUpload(parts, limits, NOW_MS)).toEqual({ ok: true });
    expect(await repo.getUpload(parts.key)).toMatchObject({ partSize: 300, multipartId: 'store-upload-1' });
    // An hour on, its URL expired and never stored: a single PUT's reservation would be free by now.
    const later = NOW_MS + 3 * 3600_000;
    expect(await repo.reserveUpload(upload(caller, { fileSize: 200 }), limits, later)).toEqual({
      ok: false,
      refusal: { kind: 'quota', used: 400, limit: 500 },
    });
    // Still being sent: renewed, the sweeper leaves it.
    await repo.renewUpload(parts.key, later + 3600_000);
    expect(await repo.abandonUploads(later, AT)).toBe(0);
    // Aborted: gone at once, its objects queued, its bytes free; a second abort finds nothing open.
    const aborted = await repo.abortUpload(parts.key, AT, (u) => [u.key, `staging/${u.fileId}`]);
    expect(aborted).toMatchObject({ key: parts.key, multipartId: 'store-upload-1' });
    expect(await repo.pendingDeletions()).toEqual(expect.arrayContaining([parts.key, `staging/${parts.fileId}`]));
    expect(await repo.abortUpload(parts.key, AT)).toBeNull();
    expect(await repo.reserveUpload(upload(caller, { fileSize: 200 }), limits, later)).toEqual({ ok: true });
  });

  it('abort leaves a completed upload alone', async () => {
    const { repo, caller } = await withCaller();
    const u = await stored(repo, upload(caller));
    const done = await repo.complete(completion(u));
    expect(done.kind).toBe('done');
    expect(await repo.abortUpload(u.key, AT)).toBeNull();
    expect((await repo.getUpload(u.key))?.completedAt).toBe(AT);
  });

  it('keys made together for a new brand make one brand', async () => {
    const repo = await open();
    const made = await Promise.all(Array.from({ length: 6 }, () => repo.createKey('together', new Date(AT))));
    const brands = new Set(await Promise.all(made.map(async (m) => (await repo.authenticate(m.key))!.brandId)));
    expect(brands.size).toBe(1);
  });

  it('quota: checked and reserved together, thumbnails aside', async () => {
    const { repo, caller } = await withCaller();
    // One key's own cap out of the way: this is the brand's quota under racing presigns.
    const limits = reservationLimits(500, { keyReservedBytes: 1e9 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => repo.reserveUpload(upload(caller, { fileSize: 100 }), limits, NOW_MS)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.find((r) => !r.ok)).toEqual({ ok: false, refusal: { kind: 'quota', used: 500, limit: 500 } });
    expect(await repo.reserveUpload(upload(caller, { thumbnail: true }), limits, NOW_MS)).toEqual({ ok: true });
    // Expired and never stored: no longer counted.
    expect(await repo.reserveUpload(upload(caller), limits, NOW_MS + 7200_000)).toEqual({ ok: true });
  });

  it('complete: one item per key, however many calls race', async () => {
    const { repo, caller } = await withCaller();
    const u = await stored(repo, upload(caller, { type: 'shortform', contentType: 'video/mp4', fileName: 'a.mp4' }));
    const results = await Promise.all(Array.from({ length: 8 }, () => repo.complete(completion(u))));
    const ids = new Set(results.map((r) => (r.kind === 'done' ? r.item.id : r.kind)));
    expect(ids.size).toBe(1);
    const item = (await repo.getItem(caller.brandId, [...ids][0]!))!;
    expect(item).toMatchObject({ type: 'shortform', fileKey: u.key, fileCount: 1, fileSize: 100, status: 'draft' });
    expect((await repo.getUpload(u.key))!.completedAt).toBe(AT);
    expect((await repo.listItems(caller.brandId, { limit: 10, offset: 0 })).items).toHaveLength(1);
  });

  it('carousel: racing additions stop at exactly the maximum', async () => {
    const { repo, caller } = await withCaller();
    const first = await stored(repo, upload(caller));
    const made = await repo.complete(completion(first));
    if (made.kind !== 'done') throw new Error(made.kind);
    const more = await Promise.all(Array.from({ length: 11 }, () => stored(repo, upload(caller))));
    const results = await Promise.all(more.map((u) => repo.complete(completion(u, { contentItemId: made.item.id }))));
    expect(results.filter((r) => r.kind === 'done')).toHaveLength(9);
    expect(results.filter((r) => r.kind === 'carousel_full')).toHaveLength(2);
    const item = (await repo.getItem(caller.brandId, made.item.id))!;
    expect(item.fileCount).toBe(10);
    expect(item.fileSize).toBe(1000);
    expect((await repo.files(made.item.id)).map((f) => f.sortOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const other = await repo.createKey('other', new Date(AT));
    const stranger = (await repo.authenticate(other.key))!;
    expect(await repo.getItem(stranger.brandId, made.item.id)).toBeNull();
  });

  it('complete: answers with the rows it wrote; a repeat with the same rows; a carousel image with its file', async () => {
    const { repo, caller } = await withCaller();
    const first = await stored(repo, upload(caller));
    const made = await repo.complete(completion(first, { at: '2026-01-01T00:00:01.000Z' }));
    if (made.kind !== 'done') throw new Error(made.kind);
    expect(made.item).toMatchObject({ type: 'carousel', fileKey: first.key, fileCount: 1, fileSize: 100 });
    expect(made.file).toMatchObject({ itemId: made.item.id, fileKey: first.key, sortOrder: 0 });
    expect(await repo.complete(completion(first, { newItemId: randomUUID() }))).toEqual(made);
    const second = await stored(repo, upload(caller, { fileSize: 50 }));
    const added = await repo.complete(
      completion(second, { contentItemId: made.item.id, at: '2026-01-01T00:00:02.000Z' }),
    );
    if (added.kind !== 'done') throw new Error(added.kind);
    expect(added.item).toMatchObject({ id: made.item.id, fileCount: 2, fileSize: 150 });
    expect(added.item.updatedAt).toBe('2026-01-01T00:00:02.000Z');
    expect(added.file).toMatchObject({ fileKey: second.key, sortOrder: 1 });
    expect(await repo.getItem(caller.brandId, made.item.id)).toEqual(added.item);
    const video = await stored(
      repo,
      upload(caller, { type: 'shortform', contentType: 'video/mp4', fileName: 'a.mp4' }),
    );
    const clip = await repo.complete(completion(video, { durationSeconds: 12 }));
    if (clip.kind !== 'done') throw new Error(clip.kind);
    expect(clip.item).toMatchObject({ type: 'shortform', durationSeconds: 12, fileCount: 1 });
    expect(clip.file).toBeNull();
  });

  it("checksums: the brand's files holding the asked bytes, with a check request's most hashes at once; never another brand's", async () => {
    const { repo, caller } = await withCaller();
    const other = (await repo.authenticate((await repo.createKey('other', new Date(AT))).key))!;
    const sha = createHash('sha256').update('the same bytes').digest('hex');
    const made = await repo.complete(completion(await stored(repo, upload(caller)), { sha256: sha }));
    if (made.kind !== 'done') throw new Error(made.kind);
    await repo.complete(completion(await stored(repo, upload(other)), { sha256: sha }));
    // Each hash is a parameter of its own on both databases: the most a request may ask, at once.
    const unknown = Array.from({ length: CHECK_MAX_FILES - 1 }, (_, i) =>
      createHash('sha256').update(`${i}`).digest('hex'),
    );
    expect(await repo.heldFiles(caller.brandId, [...unknown, sha])).toEqual([
      expect.objectContaining({
        sha256: sha,
        itemId: made.item.id,
        role: 'image',
        fileId: made.file!.id,
        itemFileCount: 1,
      }),
    ]);
    expect(await repo.heldFiles(caller.brandId, unknown)).toEqual([]);
    expect(await repo.heldFiles(caller.brandId, [])).toEqual([]);
  });

  it('complete: an upload swept meanwhile is upload_gone, a carousel deleted meanwhile carousel_gone; nothing is written', async () => {
    const { repo, caller } = await withCaller();
    const swept = await stored(repo, upload(caller, { expiresAt: NOW_MS - 1 }));
    expect(await repo.abandonUploads(NOW_MS, AT)).toBe(1);
    expect(await repo.complete(completion(swept))).toEqual({ kind: 'upload_gone' });
    const first = await stored(repo, upload(caller));
    const made = await repo.complete(completion(first));
    if (made.kind !== 'done') throw new Error(made.kind);
    const late = await stored(repo, upload(caller));
    await repo.deleteItem(caller.brandId, made.item.id, AT, ACTOR);
    expect(await repo.complete(completion(late, { contentItemId: made.item.id }))).toEqual({ kind: 'carousel_gone' });
    // Deleting the item removed its uploads: completing its key again finds no upload.
    expect(await repo.complete(completion(first))).toEqual({ kind: 'upload_gone' });
    expect((await repo.getUpload(late.key))!.completedAt).toBeNull();
    expect((await repo.listItems(caller.brandId, { limit: 10, offset: 0 })).items).toEqual([]);
    // Another brand's carousel is not there either.
    const other = await repo.createKey('other', new Date(AT));
    const stranger = (await repo.authenticate(other.key))!;
    const mine = await repo.complete(completion(await stored(repo, upload(caller))));
    if (mine.kind !== 'done') throw new Error(mine.kind);
    const theirs = await stored(repo, upload(stranger));
    expect(await repo.complete(completion(theirs, { contentItemId: mine.item.id }))).toEqual({
      kind: 'carousel_gone',
    });
  });

  it('list: filters, search with LIKE characters taken literally, pages', async () => {
    const { repo, caller } = await withCaller();
    for (const title of ['Summer 100%', 'summer_fun', 'Winter']) {
      const u = await stored(repo, upload(caller));
      await repo.complete(completion(u, { title }));
    }
    const search = async (s: string) =>
      (await repo.listItems(caller.brandId, { search: s, limit: 10, offset: 0 })).items.map((i) => i.title).sort();
    expect(await search('SUMMER')).toEqual(['Summer 100%', 'summer_fun']);
    expect(await search('%')).toEqual(['Summer 100%']);
    expect(await search('_')).toEqual(['summer_fun']);
    const page = await repo.listItems(caller.brandId, { limit: 2, offset: 0, type: 'carousel', status: 'draft' });
    expect(page.items).toHaveLength(2);
    expect(page.hasMore).toBe(true);
  });

  it('update: changes stick; a replaced thumbnail goes to the outbox; a missing item is null', async () => {
    const { repo, caller } = await withCaller();
    const u = await stored(repo, upload(caller));
    const done = await repo.complete(completion(u));
    if (done.kind !== 'done') throw new Error(done.kind);
    const t1 = await stored(repo, upload(caller, { thumbnail: true }));
    const t2 = await stored(repo, upload(caller, { thumbnail: true }));
    const first = await repo.updateItem(
      caller.brandId,
      done.item.id,
      { title: 'New', thumbnailKey: t1.key },
      AT,
      ACTOR,
    );
    expect(first).toMatchObject({ item: { title: 'New', thumbnailKey: t1.key }, discarded: [] });
    const second = await repo.updateItem(
      caller.brandId,
      done.item.id,
      { thumbnailKey: t2.key, hashtags: ['#a'] },
      AT,
      ACTOR,
    );
    expect(second!.discarded).toEqual([t1.key]);
    // The answer is the row as the transaction left it.
    expect(await repo.getItem(caller.brandId, done.item.id)).toEqual(second!.item);
    expect(second!.item).toMatchObject({ title: 'New', hashtags: ['#a'], thumbnailKey: t2.key });
    expect(await repo.pendingDeletions()).toEqual([t1.key]);
    expect(await repo.updateItem(caller.brandId, randomUUID(), { title: 'x' }, AT, ACTOR)).toBeNull();
  });

  it('update: values equal to the stored ones change nothing; only what differs is written and recorded', async () => {
    const { repo, caller } = await withCaller();
    const u = await stored(repo, upload(caller));
    const done = await repo.complete(completion(u, { title: 'Same' }));
    if (done.kind !== 'done') throw new Error(done.kind);
    const later = '2026-01-05T00:00:00.000Z';
    const t = await stored(repo, upload(caller, { thumbnail: true }));
    await repo.updateItem(
      caller.brandId,
      done.item.id,
      { hashtags: ['#a'], platformSettings: { youtube: { visibility: 'private', tags: ['x'] } }, thumbnailKey: t.key },
      AT,
      ACTOR,
    );
    const before = (await repo.getItem(caller.brandId, done.item.id))!;
    const entries = async () => (await repo.listAudit(caller.brandId, { itemId: done.item.id, limit: 50 })).entries;
    const count = (await entries()).length;
    const same = await repo.updateItem(
      caller.brandId,
      done.item.id,
      {
        title: 'Same',
        description: '',
        status: 'draft',
        hashtags: ['#a'],
        // The same settings in another key order are the same settings.
        platformSettings: { youtube: { tags: ['x'], visibility: 'private' } },
        thumbnailKey: t.key,
      },
      later,
      ACTOR,
    );
    expect(same).toEqual({ item: before, discarded: [] });
    expect(await repo.getItem(caller.brandId, done.item.id)).toEqual(before);
    expect(await entries()).toHaveLength(count);
    // One field of three differs: it alone is written and recorded.
    const one = await repo.updateItem(
      caller.brandId,
      done.item.id,
      { title: 'Same', status: 'scheduled', hashtags: ['#a'] },
      later,
      ACTOR,
    );
    expect(one!.item).toMatchObject({ status: 'scheduled', updatedAt: later });
    const [latest] = await entries();
    expect(latest).toMatchObject({
      action: 'item.updated',
      details: { fields: ['status'], changes: { status: { from: 'draft', to: 'scheduled' } } },
    });
  });

  it('delete: every object of the item goes to the outbox once; a second delete finds nothing', async () => {
    const { repo, caller } = await withCaller();
    const first = await stored(repo, upload(caller));
    const done = await repo.complete(completion(first));
    if (done.kind !== 'done') throw new Error(done.kind);
    const second = await stored(repo, upload(caller));
    await repo.complete(completion(second, { contentItemId: done.item.id }));
    const results = await Promise.all([1, 2, 3].map(() => repo.deleteItem(caller.brandId, done.item.id, AT, ACTOR)));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.sort()).toEqual(
      [first.key, second.key, previewKeyOf(first.key), previewKeyOf(second.key)].sort(),
    );
    expect(await repo.getItem(caller.brandId, done.item.id)).toBeNull();
    expect(await repo.getUpload(first.key)).toBeNull();
  });

  it('outbox: abandoned uploads are queued; claims never overlap; failures come back', async () => {
    const { repo, caller } = await withCaller();
    const open = await Promise.all(Array.from({ length: 6 }, () => stored(repo, upload(caller))));
    expect(await repo.abandonUploads(NOW_MS, AT)).toBe(0);
    expect(await repo.abandonUploads(NOW_MS + 7200_000, AT)).toBe(6);
    expect((await repo.pendingDeletions()).sort()).toEqual(open.map((u) => u.key).sort());
    const [a, b] = await Promise.all([repo.claimDeletions(4, 60), repo.claimDeletions(4, 60)]);
    const claimed = [...a!, ...b!];
    expect(new Set(claimed).size).toBe(6);
    expect(claimed).toHaveLength(6);
    await repo.deletionFailed(claimed[0]!, 'store unreachable');
    for (const key of claimed.slice(1)) await repo.deletionDone(key);
    expect(await repo.pendingDeletions()).toEqual([claimed[0]]);
    expect(await repo.claimDeletions(10, 60)).toEqual([claimed[0]]);
  });

  it('outbox: claims in batches go oldest first past the ones leased; pending is asked of a batch alone', async () => {
    const { repo, caller } = await withCaller();
    const open = await Promise.all(Array.from({ length: 12 }, () => stored(repo, upload(caller))));
    expect(await repo.abandonUploads(NOW_MS + 7200_000, AT)).toBe(12);
    const batches = [];
    for (let i = 0; i < 4; i++) batches.push(await repo.claimDeletions(5, 60));
    expect(batches.map((b) => b.length)).toEqual([5, 5, 2, 0]);
    const claimed = batches.flat();
    expect(new Set(claimed).size).toBe(12);
    expect([...claimed].sort()).toEqual(open.map((u) => u.key).sort());
    await repo.deletionDone(claimed[0]!);
    expect(await repo.pendingDeletions([claimed[0]!, claimed[1]!, 'not-queued'])).toEqual([claimed[1]]);
    expect(await repo.pendingDeletions([])).toEqual([]);
    expect(await repo.pendingDeletions()).toHaveLength(11);
  });

  it('an upload is open for its PUT until completed or its key revoked; objects map to their staging keys', async () => {
    const { repo, caller, made } = await withCaller();
    const u = await stored(repo, upload(caller));
    expect((await repo.getUploadByFileId(u.fileId))!.key).toBe(u.key);
    expect((await repo.openForPut(u.fileId, AT))!.keyId).toBe(made.id);
    const done = await repo.complete(completion(u));
    if (done.kind !== 'done') throw new Error(done.kind);
    expect(await repo.openForPut(u.fileId, AT)).toBeNull();
    const open = await stored(repo, upload(caller));
    await repo.revokeKey(made.id, new Date(AT));
    expect(await repo.openForPut(open.fileId, AT)).toBeNull();
    const staging = (x: { key: string; fileId: string }) => [`staging/${x.fileId}`, x.key];
    expect((await repo.deleteItem(caller.brandId, done.item.id, AT, ACTOR, staging))!.sort()).toEqual(
      [`staging/${u.fileId}`, u.key, previewKeyOf(u.key)].sort(),
    );
  });

  it('audit: every change writes its entry, entries outlive their item, and pages filter by item, key and time', async () => {
    const { repo, caller } = await withCaller();
    const alice = { keyId: 'k-alice', keyName: 'Alice', requestId: 'req-2' };
    const bob = { keyId: 'k-bob', keyName: 'Bob', requestId: 'req-3' };
    const first = await stored(repo, upload(caller));
    const done = await repo.complete(completion(first, { title: 'Summer' }));
    if (done.kind !== 'done') throw new Error(done.kind);
    const second = await stored(repo, upload(caller));
    await repo.complete(completion(second, { contentItemId: done.item.id, at: '2026-01-01T00:01:00.000Z' }));
    // A repeated complete of the same key changes nothing and records nothing.
    await repo.complete(completion(second, { contentItemId: done.item.id }));
    await repo.updateItem(
      caller.brandId,
      done.item.id,
      { title: 'Winter', status: 'scheduled', platformSettings: { youtube: { visibility: 'private' } } },
      '2026-01-02T00:00:00.000Z',
      alice,
    );
    await repo.deleteItem(caller.brandId, done.item.id, '2026-01-03T00:00:00.000Z', bob);

    const all = (await repo.listAudit(caller.brandId, { limit: 50 })).entries;
    expect(all.map((e) => [e.action, e.itemId, e.keyName, e.requestId])).toEqual([
      ['item.deleted', done.item.id, 'Bob', 'req-3'],
      ['item.updated', done.item.id, 'Alice', 'req-2'],
      ['item.image_added', done.item.id, 'CI', 'req-1'],
      ['item.created', done.item.id, 'CI', 'req-1'],
      ['key.created', null, null, null],
    ]);
    expect(all[0]!.details).toEqual({ type: 'carousel', title: 'Winter' });
    expect(all[1]!.details).toEqual({
      fields: ['title', 'status', 'platformSettings'],
      changes: {
        title: { from: 'Summer', to: 'Winter' },
        status: { from: 'draft', to: 'scheduled' },
        platformSettings: { from: {}, to: { youtube: { visibility: 'private' } } },
      },
      platformSettings: ['youtube'],
    });
    // No change here was part of a bulk change.
    expect(all.map((e) => e.batchId)).toEqual([null, null, null, null, null]);
    expect((await repo.listAudit(caller.brandId, { batchId: 'no-such-batch', limit: 50 })).entries).toEqual([]);
    expect(all[3]!.details).toEqual({ type: 'carousel', title: 'Summer', fileName: 'photo.jpg' });
    // Strictly increasing ids, newest first.
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));

    const byItem = await repo.listAudit(caller.brandId, { itemId: done.item.id, limit: 2 });
    expect(byItem.entries.map((e) => e.action)).toEqual(['item.deleted', 'item.updated']);
    expect(byItem.hasMore).toBe(true);
    const next = await repo.listAudit(caller.brandId, {
      itemId: done.item.id,
      limit: 2,
      before: byItem.entries[1]!.id,
    });
    expect(next.entries.map((e) => e.action)).toEqual(['item.image_added', 'item.created']);
    expect(next.hasMore).toBe(false);
    expect((await repo.listAudit(caller.brandId, { keyId: 'k-alice', limit: 50 })).entries).toHaveLength(1);
    const since = await repo.listAudit(caller.brandId, { since: '2026-01-02T00:00:00.000Z', limit: 50 });
    expect(since.entries.map((e) => e.action)).toEqual(['item.deleted', 'item.updated']);
    expect((await repo.listAudit('another-brand', { limit: 50 })).entries).toEqual([]);

    const authors = (await repo.itemAuthors(caller.brandId, [done.item.id, 'no-such-item'])).get(done.item.id)!;
    expect([authors.created?.keyName, authors.last?.keyName]).toEqual(['CI', 'Bob']);
    expect((await repo.itemAuthors('another-brand', [done.item.id])).get(done.item.id)).toEqual({
      created: null,
      last: null,
    });
    expect((await repo.itemAuthors(caller.brandId, [])).size).toBe(0);

    expect(await repo.pruneAudit('2026-01-02T00:00:00.000Z')).toBe(3);
    expect((await repo.listAudit(caller.brandId, { limit: 50 })).entries.map((e) => e.action)).toEqual([
      'item.deleted',
      'item.updated',
    ]);
  });

  it('audit: a thumbnail is its own entry; a change that fails records nothing', async () => {
    const { repo, caller } = await withCaller();
    const u = await stored(repo, upload(caller));
    const done = await repo.complete(completion(u));
    if (done.kind !== 'done') throw new Error(done.kind);
    const t = await stored(repo, upload(caller, { thumbnail: true }));
    await repo.updateItem(caller.brandId, done.item.id, { thumbnailKey: t.key }, AT, ACTOR);
    const full = await stored(repo, upload(caller));
    expect((await repo.complete(completion(full, { contentItemId: done.item.id, maxCarouselFiles: 1 }))).kind).toBe(
      'carousel_full',
    );
    expect(await repo.updateItem(caller.brandId, randomUUID(), { title: 'x' }, AT, ACTOR)).toBeNull();
    const entries = (await repo.listAudit(caller.brandId, { limit: 50 })).entries;
    expect(entries.map((e) => e.action)).toEqual(['item.thumbnail_set', 'item.created', 'key.created']);
    expect(entries[0]!.details).toEqual({ thumbnailKey: t.key, replaced: null });
  });

  it('a shared secret is made once and then the same for every caller; ping answers', async () => {
    const repo = await open();
    const [x, y] = await Promise.all([repo.sharedSecret('signing'), repo.sharedSecret('signing')]);
    expect(x!.length).toBe(32);
    expect(x!.equals(y!)).toBe(true);
    await repo.ping();
  });
});

describe('keys made before scopes existed keep every scope', () => {
  const LEGACY_KEY = `cl_${'A'.repeat(43)}`;
  /** A brand, a user and a key as version 0.1 made them (no name, scopes or expiry columns yet). */
  const legacyRows = (hash: string) => `
    INSERT INTO brands (id, name, created_at) VALUES ('legacy', 'old', '${AT}');
    INSERT INTO users (id, brand_id, created_at) VALUES ('legacy', 'legacy', '${AT}');
    INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at) VALUES ('legacy', 'legacy', ${hash}, 'cl_AAAA', '${AT}');`;
  const hex = hashKey(LEGACY_KEY).toString('hex');

  it('on SQLite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'contentlib-legacy-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const old = new Database(databasePath(dir));
    old.exec('CREATE TABLE migrations (id INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    MIGRATIONS.slice(0, 2).forEach((m, i) => {
      old.exec(m);
      old.prepare('INSERT INTO migrations (id, applied_at) VALUES (?, ?)').run(i + 1, AT);
    });
    old.exec(legacyRows(`X'${hex}'`));
    old.close();
    const repo = createSqliteRepo(openDatabase(dir), { dataDir: dir });
    cleanups.push(() => repo.close());
    expect((await repo.authenticate(LEGACY_KEY))!.scopes).toEqual([...SCOPES]);
    expect((await repo.listKeys())[0]).toMatchObject({ name: null, expiresAt: null, lastUsedAt: null });
  });

  it('on PostgreSQL', async () => {
    const url = await both.postgres().createDatabase('legacy');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      'CREATE TABLE contentlib_migrations (id INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    for (const [i, m] of PG_MIGRATIONS.slice(0, 2).entries()) {
      await client.query(m);
      await client.query('INSERT INTO contentlib_migrations (id) VALUES ($1)', [i + 1]);
    }
    await client.query(legacyRows(`'\\x${hex}'::bytea`));
    await client.end();
    const repo = await createPostgresRepo({ connectionString: url, max: 2 });
    cleanups.push(() => repo.close());
    expect((await repo.authenticate(LEGACY_KEY))!.scopes).toEqual([...SCOPES]);
    expect((await repo.listKeys())[0]).toMatchObject({ name: null, expiresAt: null, lastUsedAt: null });
  });
});

describe('PostgreSQL migrations', () => {
  it('instances starting together migrate once', async () => {
    const url = await both.postgres().createDatabase('migrate');
    const repos = await Promise.all([1, 2, 3, 4].map(() => createPostgresRepo({ connectionString: url, max: 2 })));
    const made = await repos[0]!.createKey('acme', new Date(AT));
    expect(await repos[3]!.authenticate(made.key)).not.toBeNull();
    await Promise.all(repos.map((r) => r.close()));
  });
});

/** The steps asked for, by name, on their way to the database's own steps. */
function recording<S extends object>(steps: S, asked: string[]): S {
  return new Proxy(steps, {
    get(target, name) {
      const fn: unknown = Reflect.get(target, name);
      if (typeof fn !== 'function') return fn;
      return (...args: unknown[]) => {
        asked.push(String(name));
        return (fn as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}

/** Each database's Repo and a way to run one decision over its real steps, recording the steps asked for. */
const deciders: Array<
  [string, () => Promise<{ repo: Repo; decide: <R>(d: Decision<RepoSteps, R>, asked: string[]) => Promise<R> }>]
> = [
  [
    'sqlite',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'contentlib-decide-'));
      const db = openDatabase(dir);
      const repo = createSqliteRepo(db, { dataDir: dir });
      cleanups.push(async () => {
        await repo.close();
        await rm(dir, { recursive: true, force: true });
      });
      const steps = sqliteSteps(db);
      return {
        repo,
        decide: async (d, asked) => db.transaction(() => runSteps(recording(steps, asked), d)).immediate(),
      };
    },
  ],
  [
    'postgres',
    async () => {
      const url = await both.postgres().createDatabase('decide');
      const repo = await createPostgresRepo({ connectionString: url, max: 2 });
      const pool = createPool({ connectionString: url, max: 2 });
      cleanups.push(async () => {
        await repo.close();
        await pool.end();
      });
      const transaction = transactions(pool);
      return { repo, decide: (d, asked) => transaction((q) => runStepsAsync(recording(pgSteps(q), asked), d)) };
    },
  ],
];

describe.each(deciders)("another brand's item on %s", (_name, open) => {
  it('is refused by the decision itself: it asks for the locked row and nothing more', async () => {
    const { repo, decide } = await open();
    const owner = (await repo.authenticate((await repo.createKey('owner', new Date(AT))).key))!;
    const stranger = (await repo.authenticate((await repo.createKey('stranger', new Date(AT))).key))!;
    const u = upload(owner);
    await repo.reserveUpload(u, reservationLimits(1e9), NOW_MS);
    await repo.markStored(u.key, AT);
    const done = await repo.complete(completion(u, { title: 'Mine' }));
    if (done.kind !== 'done') throw new Error(done.kind);
    const theirs = { brandId: stranger.brandId, itemId: done.item.id, at: AT, actor: ACTOR };

    const asked: string[] = [];
    expect(
      await decide(updateItem({ ...theirs, changes: { title: 'Taken', status: 'published' } }, ownKey), asked),
    ).toBe(null);
    expect(asked).toEqual(['lockItem']);
    const deleteAsked: string[] = [];
    expect(await decide(deleteItem(theirs, ownKey), deleteAsked)).toBeNull();
    expect(deleteAsked).toEqual(['lockItem']);

    // Through the Repo too: nothing changed, nothing recorded, in either brand.
    expect(await repo.updateItem(stranger.brandId, done.item.id, { title: 'Taken' }, AT, ACTOR)).toBeNull();
    expect(await repo.deleteItem(stranger.brandId, done.item.id, AT, ACTOR)).toBeNull();
    expect(await repo.getItem(owner.brandId, done.item.id)).toEqual(done.item);
    const actions = async (brandId: string) =>
      (await repo.listAudit(brandId, { limit: 50 })).entries.map((e) => e.action);
    expect(await actions(owner.brandId)).toEqual(['item.created', 'key.created']);
    expect(await actions(stranger.brandId)).toEqual(['key.created']);

    // The owner's own update goes through the same decision and asks for its writes.
    const mine: string[] = [];
    const changed = await decide(
      updateItem({ ...theirs, brandId: owner.brandId, changes: { title: 'Still mine' } }, ownKey),
      mine,
    );
    expect(changed!.item.title).toBe('Still mine');
    expect(mine).toEqual(['lockItem', 'writeItem', 'audit', 'readItem']);
  });
});
