// Keys over the API and the audit log (docs/api.md, both extensions), over HTTP against a real
// server, on SQLite + disk and (vitest's postgres-s3 project) on PostgreSQL + S3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, type TestServer, call, image, startTestServer, uploadItem, video } from '../support/server.js';
import type { AuditEntryWire, KeyFields as KeyInfo } from '../../src/api/response-schemas.js';

/** An audit entry as the API answers it. */
type Entry = AuditEntryWire;

let s: TestServer;
let admin: { id: string; key: string };
beforeAll(async () => {
  s = await startTestServer();
  admin = await s.makeKey('acme', { name: 'root' });
});
afterAll(async () => s.dispose());

const errorOf = (r: Reply) => (r.body as { error: { code: string; message: string } }).error;
const createKey = (key: string, json: Record<string, unknown>) =>
  call<{ key: KeyInfo; secret: string }>('POST', `${s.url}/api/v1/keys`, { key, json });
const listKeys = (key: string) => call<{ keys: KeyInfo[] }>('GET', `${s.url}/api/v1/keys`, { key });
const audit = (key: string, query = '') =>
  call<{ entries: Entry[]; hasMore: boolean; nextBefore: number | null }>('GET', `${s.url}/api/v1/audit${query}`, {
    key,
  });

describe('POST /api/v1/keys', () => {
  it('makes a key of the caller’s brand with its name, scopes and expiry; the secret is in that answer only', async () => {
    const r = await createKey(admin.key, {
      name: 'CI publisher',
      scopes: ['content:write', 'content:read'],
      expiresInSeconds: 90 * 86400,
    });
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^cl_[A-Za-z0-9_-]{43}$/);
    expect(r.body.key).toEqual({
      id: expect.any(String),
      name: 'CI publisher',
      prefix: r.body.secret.slice(0, 7),
      scopes: ['content:read', 'content:write'],
      createdAt: s.clock.now.toISOString(),
      expiresAt: new Date(s.clock.now.getTime() + 90 * 86400_000).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    });
    const listed = await listKeys(admin.key);
    expect(listed.body.keys.find((k) => k.id === r.body.key.id)).toEqual(r.body.key);
    expect(listed.text).not.toContain(r.body.secret);
    // It works with what it was given, and nothing more.
    expect((await call('GET', `${s.url}/api/v1/content`, { key: r.body.secret })).status).toBe(200);
    expect((await listKeys(r.body.secret)).status).toBe(403);
  });

  it('never grants a scope the caller lacks, and says which', async () => {
    const editor = await s.makeKey('acme', { scopes: ['keys:admin', 'content:read'] });
    const r = await createKey(editor.key, { scopes: ['content:read', 'content:delete', 'content:write'] });
    expect(r.status).toBe(403);
    expect(errorOf(r).code).toBe('forbidden');
    expect(errorOf(r).message).toContain('cannot grant content:write, content:delete');
    expect((await createKey(editor.key, { scopes: ['content:read'] })).status).toBe(201);
  });

  it('a key never outlives the key that makes it', async () => {
    const at = s.clock.now.getTime();
    const temp = await s.makeKey('acme', { expiresAt: new Date(at + 3600_000).toISOString() });
    const inherits = await createKey(temp.key, { scopes: ['content:read'] });
    expect(inherits.body.key.expiresAt).toBe(new Date(at + 3600_000).toISOString());
    const longer = await createKey(temp.key, { scopes: ['content:read'], expiresInSeconds: 7200 });
    expect(longer.status).toBe(400);
    expect(errorOf(longer).message).toContain('would outlive this key');
    expect((await createKey(temp.key, { scopes: ['content:read'], expiresInSeconds: 1800 })).status).toBe(201);
  });

  it.each([
    [{ scopes: [] }, 'scopes'],
    [{ scopes: ['content:everything'] }, 'scopes.0'],
    [{ scopes: ['content:read'], expiresInSeconds: 0 }, 'expiresInSeconds'],
    [{ scopes: ['content:read'], name: 'a\u0007b' }, 'name'],
    [{ scopes: ['content:read'], brand: 'other' }, ''],
  ])('refuses %j (400, naming %s)', async (json, path) => {
    const r = await createKey(admin.key, json);
    expect(r.status).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
    if (path)
      expect((r.body as unknown as { error: { details: Array<{ path: string }> } }).error.details[0]!.path).toBe(path);
  });
});

describe('GET /api/v1/keys and DELETE /api/v1/keys/:id', () => {
  it('list and revoke only the caller’s brand', async () => {
    const other = await s.makeKey('globex', { name: 'globex admin' });
    const mine = (await listKeys(admin.key)).body.keys.map((k) => k.id);
    expect(mine).toContain(admin.id);
    expect(mine).not.toContain(other.id);
    const r = await call('DELETE', `${s.url}/api/v1/keys/${other.id}`, { key: admin.key });
    expect([r.status, errorOf(r).code]).toEqual([404, 'not_found']);
    expect((await call('GET', `${s.url}/api/v1/content`, { key: other.key })).status).toBe(200);
  });

  it('revokes at once (401 saying when); twice is a 404; the brand’s last admin key cannot go', async () => {
    const brand = `solo-${Date.now()}`;
    const only = await s.makeKey(brand, { name: 'only admin' });
    const reader = (await createKey(only.key, { name: 'reader', scopes: ['content:read'] })).body;
    const last = await call('DELETE', `${s.url}/api/v1/keys/${only.id}`, { key: only.key });
    expect([last.status, errorOf(last).code]).toEqual([409, 'last_admin_key']);
    expect(errorOf(last).message).toContain('create another admin key first');

    expect((await call('DELETE', `${s.url}/api/v1/keys/${reader.key.id}`, { key: only.key })).body).toEqual({
      revoked: true,
      id: reader.key.id,
    });
    const refused = await call('GET', `${s.url}/api/v1/content`, { key: reader.secret });
    expect(refused.status).toBe(401);
    expect(errorOf(refused).message).toContain(`revoked at ${s.clock.now.toISOString()}`);
    expect((await call('DELETE', `${s.url}/api/v1/keys/${reader.key.id}`, { key: only.key })).status).toBe(404);

    // With a second admin key, the first may revoke itself.
    const second = (await createKey(only.key, { name: 'second admin', scopes: ['keys:admin'] })).body;
    expect((await call('DELETE', `${s.url}/api/v1/keys/${only.id}`, { key: only.key })).status).toBe(200);
    const gone = await call('DELETE', `${s.url}/api/v1/keys/${second.key.id}`, { key: second.secret });
    expect(gone.status).toBe(409);
  });

  it('an expired key is refused like a revoked one, saying when it expired', async () => {
    const expiresAt = new Date(s.clock.now.getTime() + 60_000).toISOString();
    const k = await s.makeKey('acme', { name: 'short', expiresAt });
    expect((await call('GET', `${s.url}/api/v1/content`, { key: k.key })).status).toBe(200);
    s.clock.advance(60_000);
    try {
      const r = await call('GET', `${s.url}/api/v1/content`, { key: k.key });
      expect(r.status).toBe(401);
      expect(errorOf(r).message).toBe(`the API key expired at ${expiresAt}; ask an admin of the brand for a new one`);
    } finally {
      s.clock.advance(-60_000);
    }
  });

  it('records the last use at most once a minute', async () => {
    const k = await s.makeKey('acme', { name: 'busy', scopes: ['content:read'] });
    const lastUsed = async () => (await listKeys(admin.key)).body.keys.find((x) => x.id === k.id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    const start = s.clock.now.getTime();
    await call('GET', `${s.url}/api/v1/content`, { key: k.key });
    expect(await lastUsed()).toBe(new Date(start).toISOString());
    try {
      s.clock.advance(30_000);
      await call('GET', `${s.url}/api/v1/content`, { key: k.key });
      expect(await lastUsed()).toBe(new Date(start).toISOString());
      s.clock.advance(31_000);
      await call('GET', `${s.url}/api/v1/content`, { key: k.key });
      expect(await lastUsed()).toBe(new Date(start + 61_000).toISOString());
    } finally {
      s.clock.advance(-61_000);
    }
  });
});

describe('the audit log', () => {
  it('records who uploaded, changed and deleted an item, with request ids; entries outlive the item', async () => {
    const brand = `audited-${Date.now()}`;
    const boss = await s.makeKey(brand, { name: 'boss' });
    const ci = await s.makeKey(brand, { name: 'CI', scopes: ['content:write'] });
    const alice = await s.makeKey(brand, { name: 'Alice', scopes: ['content:read', 'content:write'] });
    const bob = await s.makeKey(brand, { name: 'Bob', scopes: ['content:delete'] });

    const carousel = await uploadItem(s, ci.key, image('a.jpg'));
    await uploadItem(s, ci.key, image('b.jpg'), { contentItemId: carousel.item.id });
    const id = carousel.item.id;
    const patch = await call('PATCH', `${s.url}/api/v1/content/${id}`, {
      key: alice.key,
      json: { title: 'Launch', hashtags: ['go'], platformSettings: { tiktok: { duet: false } } },
      headers: { 'x-request-id': 'alice-edit-1' },
    });
    expect(patch.status).toBe(200);
    const got = await call<{ item: Record<string, unknown> }>('GET', `${s.url}/api/v1/content/${id}`, {
      key: alice.key,
    });
    expect(got.body.item.createdBy).toEqual({ keyId: ci.id, keyName: 'CI', at: s.clock.now.toISOString() });
    expect(got.body.item.updatedBy).toEqual({ keyId: alice.id, keyName: 'Alice', at: s.clock.now.toISOString() });
    // Every answer that carries the item says the same: the list, and PATCH's own.
    const listed = await call<{ items: Array<Record<string, unknown>> }>('GET', `${s.url}/api/v1/content`, {
      key: alice.key,
    });
    expect(listed.body.items.find((i) => i.id === id)).toMatchObject({
      createdBy: got.body.item.createdBy,
      updatedBy: got.body.item.updatedBy,
    });
    expect((patch.body as { item: Record<string, unknown> }).item.updatedBy).toEqual(got.body.item.updatedBy);
    const del = await call('DELETE', `${s.url}/api/v1/content/${id}`, { key: bob.key });
    expect(del.status).toBe(200);

    const log = await audit(boss.key, `?itemId=${id}`);
    expect(log.status).toBe(200);
    expect(log.body.entries.map((e) => [e.action, e.keyName, e.keyId])).toEqual([
      ['item.deleted', 'Bob', bob.id],
      ['item.updated', 'Alice', alice.id],
      ['item.image_added', 'CI', ci.id],
      ['item.created', 'CI', ci.id],
    ]);
    const [deleted, updated] = log.body.entries;
    expect(updated!.requestId).toBe('alice-edit-1');
    expect(deleted!.requestId).toBe(del.headers['x-request-id']);
    // Sent without a batch header: no batch.
    expect([deleted!.batchId, updated!.batchId]).toEqual([null, null]);
    expect(updated!.details).toEqual({
      fields: ['title', 'hashtags', 'platformSettings'],
      changes: {
        title: { from: 'a', to: 'Launch' },
        hashtags: { from: [], to: ['go'] },
        platformSettings: { from: {}, to: { tiktok: { duet: false } } },
      },
      platformSettings: ['tiktok'],
    });
    expect(deleted!.details).toEqual({ type: 'carousel', title: 'Launch' });

    // The brand's key events are there too, by the server's own admin (no key).
    const all = (await audit(boss.key, '?limit=100')).body.entries;
    expect(all.filter((e) => e.action === 'key.created').map((e) => [e.keyId, e.details.name])).toEqual([
      [null, 'Bob'],
      [null, 'Alice'],
      [null, 'CI'],
      [null, 'boss'],
    ]);
    // Another brand's admin sees none of it.
    const stranger = (await audit(admin.key, '?limit=100')).body.entries;
    expect(stranger.some((e) => e.itemId === id)).toBe(false);
    expect((await audit(admin.key, `?itemId=${id}`)).body.entries).toEqual([]);
  });

  it('records a thumbnail set, and key events over the API under the key that made them', async () => {
    const brand = `thumbs-${Date.now()}`;
    const boss = await s.makeKey(brand, { name: 'boss' });
    const clip = await uploadItem(s, boss.key, video('v.mp4'), { type: 'shortform' });
    const t = image('cover.jpg');
    const p = await call<{ key: string; presignedUrl: string }>('POST', `${s.url}/api/v1/upload/presign`, {
      key: boss.key,
      json: { fileName: t.fileName, contentType: t.contentType, fileSize: t.bytes.length, thumbnail: true },
    });
    await call('PUT', p.body.presignedUrl, { body: t.bytes, headers: { 'content-type': t.contentType } });
    expect(
      (
        await call('PATCH', `${s.url}/api/v1/content/${clip.item.id}`, {
          key: boss.key,
          json: { thumbnailKey: p.body.key },
        })
      ).status,
    ).toBe(200);
    const made = (await createKey(boss.key, { name: 'temp', scopes: ['content:read'] })).body;
    await call('DELETE', `${s.url}/api/v1/keys/${made.key.id}`, { key: boss.key });
    const entries = (await audit(boss.key, '?limit=4')).body.entries;
    expect(entries.map((e) => [e.action, e.keyName])).toEqual([
      ['key.revoked', 'boss'],
      ['key.created', 'boss'],
      ['item.thumbnail_set', 'boss'],
      ['item.created', 'boss'],
    ]);
    expect(entries[2]!.details).toEqual({ thumbnailKey: p.body.key, replaced: null });
    expect(entries[1]!.details).toMatchObject({ keyId: made.key.id, name: 'temp', scopes: ['content:read'] });
    expect(JSON.stringify(entries)).not.toContain(made.secret);
  });

  it('pages newest first and filters by key and time; bad queries are 400', async () => {
    const brand = `paged-${Date.now()}`;
    const boss = await s.makeKey(brand, { name: 'boss' });
    const writer = await s.makeKey(brand, { name: 'writer', scopes: ['content:write'] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await uploadItem(s, writer.key, video(`v${i}.mp4`), { type: 'shortform' })).item.id);
    const seen: Entry[] = [];
    for (let before: number | null = null; ;) {
      const page = await audit(boss.key, `?keyId=${writer.id}&limit=2${before === null ? '' : `&before=${before}`}`);
      seen.push(...page.body.entries);
      if (page.body.nextBefore === null) break;
      expect(page.body.hasMore).toBe(true);
      before = page.body.nextBefore;
    }
    expect(seen.map((e) => e.itemId)).toEqual([...ids].reverse());
    const future = new Date(s.clock.now.getTime() + 1000).toISOString();
    expect((await audit(boss.key, `?since=${encodeURIComponent(future)}`)).body.entries).toEqual([]);
    const past = new Date(s.clock.now.getTime() - 1000).toISOString().replace('Z', '+00:00');
    expect((await audit(boss.key, `?since=${encodeURIComponent(past)}`)).body.entries).toHaveLength(7);
    for (const q of ['?since=yesterday', '?limit=0', '?limit=101', '?before=x', '?brand=other'])
      expect([q, (await audit(boss.key, q)).status]).toEqual([q, 400]);
  });
});

describe('retention', () => {
  let short: TestServer;
  beforeAll(async () => {
    short = await startTestServer({ auditRetentionSeconds: 3600 });
  });
  afterAll(async () => short.dispose());

  it('the sweeper removes entries older than the retention, and only those', async () => {
    const boss = await short.makeKey('acme', { name: 'boss' });
    await uploadItem(short, boss.key, image('old.jpg'));
    short.clock.advance(3000_000);
    await uploadItem(short, boss.key, image('new.jpg'));
    short.clock.advance(700_000);
    expect((await short.sweep()).auditEntries).toBe(2);
    const left = await call<{ entries: Entry[] }>('GET', `${short.url}/api/v1/audit`, { key: boss.key });
    expect(left.body.entries.map((e) => [e.action, e.details.fileName])).toEqual([['item.created', 'new.jpg']]);
  });
});
