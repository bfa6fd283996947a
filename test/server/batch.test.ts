// Bulk changes in the audit log (docs/api.md, Bulk changes: the Content-Library-Batch header and
// the audit's batchId), over HTTP against a real server, on SQLite + disk and (vitest's
// postgres-s3 project) on PostgreSQL + S3: every PATCH, DELETE and carousel change sent with a
// batch id records it, `?batchId=` lists exactly that batch, and an item.updated entry keeps
// every changed field's previous value (platformSettings whole), which is what an undo needs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_HEADER } from '../../src/api/headers.js';
import {
  type Item,
  type Reply,
  type TestServer,
  call,
  image,
  serverWithKey,
  uploadItem,
  video,
} from '../support/server.js';

interface Entry {
  id: number;
  action: string;
  itemId: string | null;
  batchId: string | null;
  details: Record<string, unknown>;
}

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await serverWithKey()));
afterAll(async () => s.dispose());

const audit = (query: string, k = key) =>
  call<{ entries: Entry[]; hasMore: boolean; nextBefore: number | null }>('GET', `${s.url}/api/v1/audit${query}`, {
    key: k,
  });
const patch = (id: string, json: unknown, batch?: string) =>
  call<{ item: Item }>('PATCH', `${s.url}/api/v1/content/${id}`, {
    key,
    json,
    ...(batch ? { headers: { [BATCH_HEADER]: batch } } : {}),
  });
const errorOf = (r: Reply<unknown>) => (r.body as { error: { code: string; message: string } }).error;

describe('the batch header', () => {
  it('PATCH, DELETE and a carousel change record the batch id; ?batchId= lists that batch only', async () => {
    const a = (await uploadItem(s, key, video('a.mp4'))).item;
    const b = (await uploadItem(s, key, video('b.mp4'))).item;
    const c = (await uploadItem(s, key, image('c1.jpg', 300))).item;
    await uploadItem(s, key, image('c2.jpg', 301), { contentItemId: c.id });
    const batch = randomUUID();
    const other = randomUUID();
    expect((await patch(a.id, { status: 'scheduled' }, batch)).status).toBe(200);
    expect((await patch(b.id, { status: 'scheduled' }, other)).status).toBe(200);
    // A change sent alone has no batch, as in the spec.
    expect((await patch(b.id, { title: 'alone' })).status).toBe(200);
    const files = (await call<{ files: { id: string }[] }>('GET', `${s.url}/api/v1/content/${c.id}`, { key })).body
      .files;
    const reorder = await call('PUT', `${s.url}/api/v1/content/${c.id}/order`, {
      key,
      json: { fileIds: [files[1]!.id, files[0]!.id] },
      headers: { [BATCH_HEADER]: batch },
    });
    expect(reorder.status, reorder.text).toBe(200);
    const del = await call('DELETE', `${s.url}/api/v1/content/${a.id}`, { key, headers: { [BATCH_HEADER]: batch } });
    expect(del.status, del.text).toBe(200);

    const mine = (await audit(`?batchId=${batch}`)).body.entries;
    expect(mine.map((e) => [e.action, e.itemId])).toEqual([
      ['item.deleted', a.id],
      ['item.images_reordered', c.id],
      ['item.updated', a.id],
    ]);
    expect(mine.every((e) => e.batchId === batch)).toBe(true);
    expect((await audit(`?batchId=${other}`)).body.entries.map((e) => [e.action, e.itemId])).toEqual([
      ['item.updated', b.id],
    ]);
    // Every entry carries the field: null when the change had no batch.
    const ofB = (await audit(`?itemId=${b.id}`)).body.entries;
    expect(ofB.map((e) => e.batchId)).toEqual([null, other, null]);
  });

  it('a batch id that is not one is refused (400) and changes nothing', async () => {
    const item = (await uploadItem(s, key, video('bad.mp4'))).item;
    for (const bad of ['short', 'has space in it', 'x'.repeat(65), 'semi;colon-123']) {
      const r = await patch(item.id, { title: 'changed' }, bad);
      expect(r.status, bad).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
      expect(errorOf(r).message).toMatch(/content-library-batch/);
    }
    const now = await call<{ item: Item }>('GET', `${s.url}/api/v1/content/${item.id}`, { key });
    expect(now.body.item.title).not.toBe('changed');
    expect((await audit(`?itemId=${item.id}`)).body.entries.map((e) => e.action)).toEqual(['item.created']);
  });

  it('?batchId= is checked, and another brand sees nothing of the batch', async () => {
    expect((await audit('?batchId=no')).status).toBe(400);
    const item = (await uploadItem(s, key, video('brand.mp4'))).item;
    const batch = randomUUID();
    await patch(item.id, { status: 'published' }, batch);
    const stranger = await s.key('globex');
    const theirs = await audit(`?batchId=${batch}`, stranger);
    expect(theirs.status).toBe(200);
    expect(theirs.body.entries).toEqual([]);
    expect((await audit(`?batchId=${batch}`)).body.entries).toHaveLength(1);
  });
});

describe('item.updated keeps what an undo needs', () => {
  it('every changed field with its previous value, platformSettings as the whole previous object', async () => {
    const item = (await uploadItem(s, key, video('undo.mp4'))).item;
    const before = {
      title: 'Before',
      description: 'old text',
      hashtags: ['one', 'two'],
      status: 'draft',
      platformSettings: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
    };
    expect((await patch(item.id, before)).status).toBe(200);
    const batch = randomUUID();
    const after = {
      title: 'After',
      description: '',
      hashtags: ['two', 'three'],
      status: 'scheduled',
      platformSettings: { youtube: { visibility: 'public' } },
    };
    expect((await patch(item.id, after, batch)).status).toBe(200);
    const [entry] = (await audit(`?batchId=${batch}`)).body.entries;
    expect(entry?.details).toEqual({
      fields: ['title', 'description', 'status', 'hashtags', 'platformSettings'],
      changes: {
        title: { from: before.title, to: after.title },
        description: { from: before.description, to: after.description },
        status: { from: before.status, to: after.status },
        hashtags: { from: before.hashtags, to: after.hashtags },
        platformSettings: { from: before.platformSettings, to: after.platformSettings },
      },
      platformSettings: ['tiktok', 'youtube.tags', 'youtube.visibility'],
    });
    // Sending the `from` values puts the item back exactly.
    const changes = entry!.details.changes as Record<string, { from: unknown }>;
    const back = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.from]));
    const undone = await patch(item.id, back, randomUUID());
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.item).toMatchObject(before);
  });
});
