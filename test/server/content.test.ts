// Conformance: list, get, PATCH and DELETE (docs/api.md), brand scoping, and a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onS3 } from '../support/backend.js';
import * as srv from '../support/server.js';
import type { Item, TestServer } from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await srv.serverWithKey()));
afterAll(async () => s.dispose());

type ListBody = { items: Item[]; limit: number; offset: number; hasMore: boolean };
const list = (query = '', k = key) => srv.call<ListBody>('GET', `${s.url}/api/v1/content${query}`, { key: k });
const get = (id: string, k = key) =>
  srv.call<{ item: Item; files: Array<{ id: string; fileKey: string; sortOrder: number; fileUrl: string }> }>(
    'GET',
    `${s.url}/api/v1/content/${id}`,
    { key: k },
  );
const patch = (id: string, json: unknown, k = key) =>
  srv.call<{ item: Item }>('PATCH', `${s.url}/api/v1/content/${id}`, { key: k, json });
const del = (id: string, k = key) => srv.call('DELETE', `${s.url}/api/v1/content/${id}`, { key: k });
const errorOf = (r: { body: unknown }) =>
  (r.body as { error: { code: string; details: Array<{ path?: string }> } }).error;

describe('list', () => {
  let l: TestServer;
  let lk: string;
  const ids: string[] = [];
  beforeAll(async () => {
    l = await srv.startTestServer();
    lk = await l.key('lister');
    // 105 items, one second apart, so the order is fully known; a few with special titles.
    const names = ['50%_off sale.jpg', '50 percent off.jpg', 'Summer_Sale.jpg', 'CAFÉ menu.jpg'];
    for (let i = 0; i < 105; i++) {
      l.clock.advance(1000);
      const f =
        i < names.length ? srv.image(names[i]) : i % 2 ? srv.image(`img ${i}.jpg`) : srv.video(`vid ${i}.mp4`, 10);
      ids.push((await srv.uploadItem(l, lk, f)).item.id);
    }
    // 105 uploads, each several calls to the store on postgres-s3.
  }, 120_000);
  afterAll(async () => l.dispose());
  const q = (query: string) => srv.call<ListBody>('GET', `${l.url}/api/v1/content${query}`, { key: lk });

  it('defaults to 50, newest first, with hasMore', async () => {
    const r = await q('');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ limit: 50, offset: 0, hasMore: true });
    expect(r.body.items.map((i) => i.id)).toEqual([...ids].reverse().slice(0, 50));
    expect(Object.keys(r.body.items[0]!)).toEqual(
      expect.arrayContaining(['id', 'type', 'title', 'status', 'thumbnailUrl', 'createdAt']),
    );
  });

  it('limit 100 is accepted, 101 and 0 are 400', async () => {
    const ok = await q('?limit=100');
    expect(ok.body.items).toHaveLength(100);
    expect(ok.body.hasMore).toBe(true);
    for (const bad of ['?limit=101', '?limit=0', '?limit=-1', '?limit=abc', '?offset=-1', '?offset=x']) {
      const r = await q(bad);
      expect(r.status, bad).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
    }
  });

  it('offset pages to the end; hasMore turns false', async () => {
    const last = await q('?limit=10&offset=100');
    expect(last.body.items.map((i) => i.id)).toEqual([...ids].reverse().slice(100));
    expect(last.body.hasMore).toBe(false);
    const exact = await q('?limit=5&offset=100');
    expect(exact.body.hasMore).toBe(false);
    const beyond = await q('?offset=500');
    expect(beyond.body).toMatchObject({ items: [], hasMore: false, offset: 500 });
  });

  it('any offset up to Number.MAX_SAFE_INTEGER is a page (empty past the end); one more is 400', async () => {
    for (const offset of [1_000_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const r = await q(`?offset=${offset}`);
      expect(r.status, String(offset)).toBe(200);
      expect(r.body).toMatchObject({ items: [], hasMore: false, offset });
    }
    expect((await q('?offset=0000000001')).body.offset).toBe(1);
    for (const bad of [`?offset=${Number.MAX_SAFE_INTEGER + 1}`, '?offset=99999999999999999999999', '?offset=1e3']) {
      const r = await q(bad);
      expect(r.status, bad).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
    }
  });

  it('filters by type and status; bad filter values are 400', async () => {
    const videos = await q('?type=shortform&limit=100');
    expect(videos.body.items.length).toBeGreaterThan(0);
    expect(videos.body.items.every((i) => i.type === 'shortform')).toBe(true);
    await srv.call('PATCH', `${l.url}/api/v1/content/${ids[7]}`, { key: lk, json: { status: 'published' } });
    const published = await q('?status=published');
    expect(published.body.items.map((i) => i.id)).toEqual([ids[7]]);
    expect((await q('?status=gone')).status).toBe(400);
    expect((await q('?type=reel')).status).toBe(400);
    expect((await q('?color=red')).status).toBe(400);
  });

  it('search is a case-insensitive substring with % and _ taken literally', async () => {
    const lit = await q(`?search=${encodeURIComponent('50%_off')}`);
    expect(lit.body.items.map((i) => i.title)).toEqual(['50%_off sale']);
    const under = await q('?search=_');
    expect(under.body.items.map((i) => i.title).sort()).toEqual(['50%_off sale', 'Summer_Sale']);
    const caseless = await q('?search=summer_SALE');
    expect(caseless.body.items.map((i) => i.title)).toEqual(['Summer_Sale']);
    const unicode = await q(`?search=${encodeURIComponent('café')}`);
    expect(unicode.body.items.map((i) => i.title)).toEqual(['CAFÉ menu']);
    const none = await q('?search=nothing-like-this');
    expect(none.body.items).toEqual([]);
  });

  it('idPrefix (extension) keeps the ids that start with it, in either case; a non-hex one is 400', async () => {
    const id = ids[42]!;
    const one = await q(`?idPrefix=${id.slice(0, 13).toUpperCase()}`);
    expect(one.body.items.map((i) => i.id)).toEqual([id]);
    const byFirst = await q(`?idPrefix=${id.slice(0, 1)}&limit=100`);
    const expected = [...ids].reverse().filter((x) => x.startsWith(id.slice(0, 1)));
    expect(byFirst.body.items.map((i) => i.id)).toEqual(expected.slice(0, 100));
    expect((await q('?idPrefix=zz')).status).toBe(400);
    expect((await q(`?idPrefix=${id}0`)).status).toBe(400);
  });

  it('id (extension): the items with these ids, newest first, either case; no match is an empty page', async () => {
    const asked = [ids[3]!, ids[90]!.toUpperCase(), ids[50]!];
    const r = await q(`?${asked.map((id) => `id=${id}`).join('&')}`);
    expect(r.body.items.map((i) => i.id)).toEqual([ids[90], ids[50], ids[3]]);
    expect(r.body.hasMore).toBe(false);
    // A hundred ids, a page's worth, in one request (the most a re-run asks at once).
    const hundred = ids.slice(0, 100);
    const all = await q(`?${hundred.map((id) => `id=${id}`).join('&')}&limit=100`);
    expect(all.body.items.map((i) => i.id)).toEqual([...hundred].reverse());
    const none = await q('?id=00000000-0000-4000-8000-000000000000');
    expect(none.body).toMatchObject({ items: [], hasMore: false });
    // Another brand's id is not there either.
    const other = await srv.uploadItem(s, key, srv.image('other.jpg'));
    expect((await q(`?id=${other.item.id}`)).body.items).toEqual([]);
  });

  it('id (extension): not an id, or more than 100, is 400 naming the parameter', async () => {
    for (const bad of [
      '?id=abc',
      `?id=${ids[0]}0`,
      '?id=',
      `?${ids
        .concat(ids)
        .slice(0, 101)
        .map((id) => `id=${id}`)
        .join('&')}`,
    ]) {
      const r = await q(bad);
      expect(r.status, bad.slice(0, 50)).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
      expect(errorOf(r).details[0]?.path).toBe('id');
    }
  });
});

describe('get', () => {
  it('returns { item, files: [] } for a video', async () => {
    const v = await srv.uploadItem(s, key, srv.video('v.mp4', 10));
    const r = await get(v.item.id);
    expect(r.status).toBe(200);
    expect(r.body.item.id).toBe(v.item.id);
    expect(r.body.files).toEqual([]);
  });

  it("returns a carousel's files by sortOrder, each with a working signed fileUrl", async () => {
    const first = await srv.uploadItem(s, key, srv.image('a.jpg', 300));
    await srv.uploadItem(s, key, srv.image('b.jpg', 400), { contentItemId: first.item.id });
    const r = await get(first.item.id);
    expect(r.body.files.map((f) => f.sortOrder)).toEqual([0, 1]);
    expect(r.body.item.fileCount).toBe(2);
    expect(r.body.item.fileSize).toBe(700);
    const second = await fetch(r.body.files[1]!.fileUrl);
    expect(Number(second.headers.get('content-length'))).toBe(400);
    // Read to the end: an answer left unread keeps its connection busy, and the server's close waits for it.
    await second.arrayBuffer();
  });

  // On S3 the store answers these GETs and checks their signature and expiry (against its own
  // clock, which tests cannot move): test/server/storage-s3.test.ts, storage-s3-sigv4.test.ts.
  it.skipIf(onS3)('signed GET URLs expire after an hour and refuse tampering', async () => {
    const v = await srv.uploadItem(s, key, srv.image('g.jpg'));
    expect(
      (
        await srv.call(
          'GET',
          v.item.fileUrl.replace(/signature=(.)/, (_m, d: string) => `signature=${d === '0' ? '1' : '0'}`),
        )
      ).status,
    ).toBe(403);
    s.clock.advance(3601_000);
    try {
      const r = await srv.call('GET', v.item.fileUrl);
      expect(r.status).toBe(403);
      expect(errorOf(r).code).toBe('expired');
      const fresh = await get(v.item.id);
      expect((await srv.call('GET', fresh.body.item.fileUrl)).status).toBe(200);
    } finally {
      s.clock.advance(-3601_000);
    }
  });

  it('404 not_found for an unknown id, a malformed id and one longer than any id (past the router default of 100)', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'x'.repeat(300)]) {
      const r = await get(id);
      expect(r.status).toBe(404);
      expect(errorOf(r).code).toBe('not_found');
    }
  });
});

describe('patch', () => {
  let item: Item;
  beforeAll(async () => {
    item = (await srv.uploadItem(s, key, srv.video('edit.mp4', 10))).item;
  });

  it.each([
    [{ title: 'New title' }],
    [{ description: 'A longer description' }],
    [{ hashtags: ['summer', 'sale'] }],
    [{ status: 'scheduled' }],
    [{ status: 'published' }],
    [{ status: 'failed' }],
    [{ status: 'draft' }],
    [{ platformSettings: { youtube: { visibility: 'private', category: 22 }, tiktok: { duet: false } } }],
  ])('sets %j and bumps updatedAt', async (json) => {
    s.clock.advance(1000);
    const r = await patch(item.id, json);
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject(json);
    expect(r.body.item.updatedAt).toBe(s.clock.now.toISOString());
    expect((await get(item.id)).body.item).toMatchObject(json);
  });

  it('a PATCH that sends what the item has changes nothing: no audit entry, updatedAt kept', async () => {
    s.clock.advance(1000);
    await patch(item.id, { title: 'Same', hashtags: ['x', 'y'], platformSettings: { yt: { a: 1, b: 2 } } });
    const before = (await get(item.id)).body.item;
    type Audit = { entries: Array<{ action: string }> };
    const audit = async () =>
      (await srv.call<Audit>('GET', `${s.url}/api/v1/audit?itemId=${item.id}&limit=100`, { key })).body.entries;
    const entries = await audit();
    s.clock.advance(1000);
    // platformSettings in another key order is the same settings.
    const same = {
      title: 'Same',
      hashtags: ['x', 'y'],
      status: before.status,
      platformSettings: { yt: { b: 2, a: 1 } },
    };
    const r = await patch(item.id, same);
    expect(r.status).toBe(200);
    expect(r.body.item.updatedAt).toBe(before.updatedAt);
    expect(await audit()).toEqual(entries);
    // One field that differs among equal ones: one entry naming only it.
    s.clock.advance(1000);
    const changed = await patch(item.id, { ...same, title: 'Different' });
    expect(changed.body.item.updatedAt).toBe(s.clock.now.toISOString());
    const now = await audit();
    expect(now).toHaveLength(entries.length + 1);
    expect(now[0]).toMatchObject({ action: 'item.updated', details: { fields: ['title'] } });
  });

  it('an empty body, an unknown field or a bad value is 400 and changes nothing', async () => {
    const before = (await get(item.id)).body.item;
    for (const json of [
      {},
      { color: 'red' },
      { status: 'archived' },
      { title: '' },
      { hashtags: 'a,b' },
      { platformSettings: { youtube: 'x' } },
      { thumbnailKey: 5 },
    ]) {
      const r = await patch(item.id, json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
    }
    const noBody = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, { key });
    expect(noBody.status).toBe(400);
    expect((await get(item.id)).body.item).toEqual({ ...before, fileUrl: expect.any(String) });
  });

  it('thumbnailKey sets thumbnailUrl; replacing it deletes the old object', async () => {
    const t1 = srv.image('thumb1.jpg');
    const p1 = await srv.presign(s, key, t1, { thumbnail: true });
    await srv.put(p1.body.presignedUrl, t1);
    const r1 = await patch(item.id, { thumbnailKey: p1.body.key });
    expect(r1.status).toBe(200);
    expect(new URL(r1.body.item.thumbnailUrl!).pathname.endsWith(`/${p1.body.key}`)).toBe(true);
    const got = await fetch(r1.body.item.thumbnailUrl!);
    expect(Buffer.from(await got.arrayBuffer()).equals(t1.bytes)).toBe(true);

    const t2 = srv.image('thumb2.jpg', 500);
    const p2 = await srv.presign(s, key, t2, { thumbnail: true });
    await srv.put(p2.body.presignedUrl, t2);
    const r2 = await patch(item.id, { thumbnailKey: p2.body.key });
    expect(r2.status).toBe(200);
    expect(await srv.uploadedSize(s.storage, p1.body)).toBeNull();
    expect(await srv.uploadedSize(s.storage, p2.body)).toBe(500);
    expect((await srv.call('GET', r1.body.item.thumbnailUrl!)).status).toBe(404);
  });

  it("thumbnailKey must be a PUT thumbnail upload of this brand, not another item's: else 400 invalid_upload", async () => {
    const notThumb = srv.image('n.jpg');
    const pn = await srv.presign(s, key, notThumb);
    await srv.put(pn.body.presignedUrl, notThumb);
    const neverPut = await srv.presign(s, key, srv.image('np.jpg'), { thumbnail: true });
    const other = await s.key('globex');
    const foreignFile = srv.image('f.jpg');
    const pf = await srv.presign(s, other, foreignFile, { thumbnail: true });
    await srv.put(pf.body.presignedUrl, foreignFile);
    const taken = srv.image('taken.jpg');
    const pt = await srv.presign(s, key, taken, { thumbnail: true });
    await srv.put(pt.body.presignedUrl, taken);
    const otherItem = (await srv.uploadItem(s, key, srv.video('o.mp4', 10))).item;
    expect((await patch(otherItem.id, { thumbnailKey: pt.body.key })).status).toBe(200);

    for (const k of [pn.body.key, neverPut.body.key, pf.body.key, pt.body.key, 'no/such/key.jpg']) {
      const r = await patch(item.id, { thumbnailKey: k });
      expect(r.status, k).toBe(400);
      expect(errorOf(r).code).toBe('invalid_upload');
    }
  });

  it('404 for an unknown id', async () => {
    expect((await patch('00000000-0000-4000-8000-000000000000', { title: 'x' })).status).toBe(404);
  });
});

describe('delete', () => {
  it('removes the item, its carousel files and its thumbnail from database and disk', async () => {
    const first = await srv.uploadItem(s, key, srv.image('d0.jpg'));
    const second = await srv.uploadItem(s, key, srv.image('d1.jpg'), { contentItemId: first.item.id });
    const t = srv.image('dt.jpg');
    const pt = await srv.presign(s, key, t, { thumbnail: true });
    await srv.put(pt.body.presignedUrl, t);
    await patch(first.item.id, { thumbnailKey: pt.body.key });
    const objects = [first.storageKey, second.storageKey, pt.body.key];
    for (const k of objects) expect(await s.storage.head(k)).not.toBeNull();

    const r = await del(first.item.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ deleted: true });
    for (const k of objects) expect(await s.storage.head(k), k).toBeNull();
    expect((await get(first.item.id)).status).toBe(404);
    expect((await del(first.item.id)).status).toBe(404);
    expect((await srv.call('GET', first.item.fileUrl)).status).toBe(404);
  });

  // The failure is made on the disk store's own files; on S3 deleting is the store's (and a
  // missing object deletes fine).
  it.skipIf(onS3)('an object that could not be removed is retried by the sweeper', async () => {
    const { existsSync } = await import('node:fs');
    const { mkdir, rm, writeFile } = await import('node:fs/promises');
    const v = await srv.uploadItem(s, key, srv.video('stuck.mp4', 10));
    const path = s.disk!.pathOf(v.storageKey);
    // A directory where the object's file was: unlink fails (even as root), like a busy disk would.
    await rm(path);
    await mkdir(path);
    await writeFile(`${path}/blocker`, 'x');
    expect((await del(v.item.id)).status).toBe(200);
    expect((await get(v.item.id)).status).toBe(404);
    expect((await s.sweep()).objects).toBe(0);
    // The obstacle goes away; the object is back on disk; the next sweep removes it.
    await rm(path, { recursive: true });
    await writeFile(path, 'bytes');
    expect((await s.sweep()).objects).toBe(1);
    expect(existsSync(path)).toBe(false);
  });
});

describe('brands', () => {
  it("another brand's key gets 404 on get/patch/delete and an empty list", async () => {
    const mine = await srv.uploadItem(s, key, srv.video('private.mp4', 10));
    const other = await s.key('initech');
    expect((await get(mine.item.id, other)).status).toBe(404);
    expect((await patch(mine.item.id, { title: 'stolen' }, other)).status).toBe(404);
    expect((await del(mine.item.id, other)).status).toBe(404);
    const theirList = await list('', other);
    expect(theirList.body.items).toEqual([]);
    expect((await get(mine.item.id)).body.item.title).toBe('private');
  });

  it('a second key of the same brand sees the same items', async () => {
    const mine = await srv.uploadItem(s, key, srv.video('shared.mp4', 10));
    const colleague = await s.key('acme');
    expect((await get(mine.item.id, colleague)).status).toBe(200);
  });
});

describe('uploads never completed', () => {
  it('are swept after their URL expired (plus the grace period), object and all', async () => {
    const f = srv.image('abandoned.jpg');
    const p = await srv.presign(s, key, f);
    await srv.put(p.body.presignedUrl, f);
    expect(await s.storage.head(srv.stagingKeyOf(p.body.fileId))).not.toBeNull();
    expect((await s.sweep()).uploads).toBe(0);
    s.clock.advance(2 * 3600_000 + 1000);
    const report = await s.sweep();
    expect(report.uploads).toBeGreaterThanOrEqual(1);
    expect(await s.storage.head(srv.stagingKeyOf(p.body.fileId))).toBeNull();
    const c = await srv.complete(s, key, p.body.key, f, 'carousel');
    expect(c.status).toBe(400);
  });
});

describe('restart', () => {
  it('keeps every item, and URLs issued before stay valid', async () => {
    const before = await list('?limit=100');
    const v = await srv.uploadItem(s, key, srv.video('persist.mp4', 10));
    await s.restart();
    const after = await list('?limit=100');
    expect(after.body.items.map((i) => i.id)).toEqual([v.item.id, ...before.body.items.map((i) => i.id)]);
    expect((await srv.call('GET', v.item.fileUrl)).status).toBe(200);
    expect((await get(v.item.id)).body.item.title).toBe('persist');
  });
});
