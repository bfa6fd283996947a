// What a hostile or careless client can no longer do, on both backends (the vitest project
// postgres-s3 runs this file again on PostgreSQL + RGW): store text that a backend refuses
// with a 500 or a terminal obeys (NUL, controls, direction overrides, lone surrogates), hold a
// brand's quota with presigns alone, fill the store with thumbnails, and what any client gets
// on every answer: nosniff, no-store where signed URLs are returned, a DELETE that works
// whatever its Content-Type, and a limit on requests without a valid key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MB } from '../../src/rules/rules.js';
import { onS3 } from '../support/backend.js';
import { type TestServer, call, image, presign, serverWithKey, uploadItem } from '../support/server.js';

const errorOf = (r: { body: unknown }) =>
  (r.body as { error: { code: string; message: string; details: Array<{ path?: string }> } }).error;

/** The field a 400 names (its first detail's path). */
const fieldOf = (r: { body: unknown }) => errorOf(r).details[0]?.path;

// The two text suites start from the same place: a server, its brand key and one stored image,
// shared by both (neither changes what the other reads: the first refuses every change).
describe('text from clients', () => {
  let s: TestServer;
  let key: string;
  let id: string;
  beforeAll(async () => {
    ({ s, key } = await serverWithKey());
    id = (await uploadItem(s, key, image())).item.id;
  });
  afterAll(async () => s.dispose());

  describe('NUL and what is not UTF-8, at the edge, the same on both databases', () => {
    // PostgreSQL refused these with "invalid byte sequence for encoding UTF8: 0x00" (a 500) where
    // SQLite answered 400 or 404 (issue 36): now both refuse them before any query.
    it.each([
      ['DELETE', '/api/v1/keys/%00', undefined, 'id'],
      ['DELETE', '/api/v1/keys/abc%00def', undefined, 'id'],
      ['GET', '/api/v1/content/%00', undefined, 'id'],
      // A path whose escapes are not UTF-8 is refused by the router, before a route (and its
      // parameter names) is known: the 400 names the URL.
      ['GET', '/api/v1/content/abc%FFdef', undefined, 'url'],
      ['PATCH', '/api/v1/content/%C0%AF', { title: 'x' }, 'url'],
      ['DELETE', '/api/v1/content/ID/files/%00', undefined, 'fileId'],
      ['GET', '/api/v1/content?status=%00', undefined, 'status'],
      ['GET', '/api/v1/content?search=%FF', undefined, 'search'],
      ['GET', '/api/v1/content?%00=1', undefined, 'query'],
      ['GET', '/api/v1/audit?item=a%00b', undefined, 'item'],
      ['POST', '/api/v1/upload/abort', { key: 'a\u0000b' }, 'key'],
      ['POST', '/api/v1/upload/parts', { key: 'a\u0000b' }, 'key'],
      ['POST', '/api/v1/upload/complete', { key: 'a\u0000b', fileName: 'a.jpg' }, 'key'],
      ['POST', '/api/v1/upload/check', { sha256: ['\ud800'] }, 'sha256.0'],
      ['PATCH', '/api/v1/content/ID', { platformSettings: { 'a\u0000': 1 } }, 'platformSettings.a\u0000'],
    ] as const)('%s %s → 400', async (method, path, json, field) => {
      const r = await call(method, `${s.url}${path.replace('ID', id)}`, { key, ...(json ? { json } : {}) });
      expect(r.status, r.text).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
      expect(fieldOf(r)).toBe(field);
    });

    it('a JSON body whose bytes are not UTF-8: 400, nothing stored', async () => {
      const body = Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const r = await call('PATCH', `${s.url}/api/v1/content/${id}`, {
        key,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(errorOf(r).message).toContain('not valid UTF-8');
      const item = (await call('GET', `${s.url}/api/v1/content/${id}`, { key })).body as { item: { title: string } };
      expect(item.item.title).not.toContain('caf');
    });

    it('UTF-8 that is well formed passes the edge: é, 日本, 🎉 in a search', async () => {
      const r = await call('GET', `${s.url}/api/v1/content?search=${encodeURIComponent('é日本🎉')}`, { key });
      expect(r.status).toBe(200);
    });
  });

  describe('text is checked the same on every backend', () => {
    const patch = (json: unknown) => call('PATCH', `${s.url}/api/v1/content/${id}`, { key, json });

    it.each([
      ['description', { description: 'a\u0000b' }],
      ['description', { description: 'escape \u001b[31m red' }],
      ['description', { description: 'C1 \u009b' }],
      ['description', { description: 'a lone CR\r here' }],
      ['description', { description: 'reversed \u202e gpj.exe' }],
      ['description', { description: 'isolate \u2066x\u2069' }],
      ['description', { description: 'lone surrogate \ud800' }],
      ['title', { title: 'a\nb' }],
      ['title', { title: 'tab\there' }],
      ['title', { title: '\u200b' }],
      ['title', { title: ' \u200d\u2060\u00ad ' }],
      ['title', { title: 'RLO \u202e' }],
      ['hashtags.0', { hashtags: ['nul\u0000'] }],
      ['hashtags.1', { hashtags: ['ok', 'esc\u001b'] }],
      ['platformSettings.yt.note', { platformSettings: { yt: { note: 'x\u0000' } } }],
      ['platformSettings.yt.k\u0000', { platformSettings: { yt: { 'k\u0000': 1 } } }],
      ['platformSettings.yt.list.1', { platformSettings: { yt: { list: ['ok', '\udc00'] } } }],
      ['thumbnailKey', { thumbnailKey: 'k\u0000' }],
    ])('PATCH refuses %s: 400 naming the field, nothing changed', async (field, json) => {
      const before = await call('GET', `${s.url}/api/v1/content/${id}`, { key });
      const r = await patch(json);
      expect(r.status).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
      expect(fieldOf(r)).toBe(field);
      expect((await call('GET', `${s.url}/api/v1/content/${id}`, { key })).body).toEqual(before.body);
    });

    it.each([
      [{ description: 'tabs\tand\nnewlines\r\nare text' }],
      [{ title: 'Émoji 🎉 日本語 עברית' }],
      [{ hashtags: ['café', '日本'] }],
      [{ platformSettings: { yt: { caption: 'line 1\nline 2' } } }],
    ])('PATCH keeps %j exactly', async (json) => {
      const r = await patch(json);
      expect(r.status).toBe(200);
      expect((r.body as { item: Record<string, unknown> }).item).toMatchObject(json);
    });

    it.each([
      ['%00', 'search'],
      ['%1B%5B31m', 'search'],
      ['%E2%80%AE', 'search'],
    ])('the list refuses search=%s, naming %s', async (q, field) => {
      const r = await call('GET', `${s.url}/api/v1/content?search=${q}`, { key });
      expect(r.status).toBe(400);
      expect(fieldOf(r)).toBe(field);
    });

    it('presign and complete refuse controls in names and keys', async () => {
      const p = await presign(s, key, { ...image(), fileName: 'next\u0085line.jpg' });
      expect(p.status).toBe(400);
      expect(fieldOf(p)).toBe('fileName');
      const c = await call('POST', `${s.url}/api/v1/upload/complete`, {
        key,
        json: { key: 'k\u0000', fileName: 'a.jpg', contentType: 'image/jpeg', fileSize: 10, type: 'carousel' },
      });
      expect(c.status).toBe(400);
      expect(fieldOf(c)).toBe('key');
    });

    it.each([
      ['escape \u001b[31m'],
      ['nul\u0000'],
      ['two\nlines'],
      ['RLO \u202e'],
      ['\u200b\u200d'],
      ['x'.repeat(101)],
    ])('a key made over the API refuses the name %j: 400 naming it, no key made', async (name) => {
      const before = (await call<{ keys: unknown[] }>('GET', `${s.url}/api/v1/keys`, { key })).body.keys.length;
      const r = await call('POST', `${s.url}/api/v1/keys`, { key, json: { name, scopes: ['content:read'] } });
      expect(r.status).toBe(400);
      expect(fieldOf(r)).toBe('name');
      expect((await call<{ keys: unknown[] }>('GET', `${s.url}/api/v1/keys`, { key })).body.keys).toHaveLength(before);
    });

    it('a key name in any script is kept exactly', async () => {
      const name = 'Équipe 日本 🎉';
      const r = await call<{ key: { name: string } }>('POST', `${s.url}/api/v1/keys`, {
        key,
        json: { name, scopes: ['content:read'] },
      });
      expect(r.status).toBe(201);
      expect(r.body.key.name).toBe(name);
    });

    it.each([
      ['itemId', 'itemId=a%00b'],
      ['keyId', 'keyId=%1B%5B31m'],
    ])('the audit log refuses controls in %s', async (field, q) => {
      const r = await call('GET', `${s.url}/api/v1/audit?${q}`, { key });
      expect(r.status).toBe(400);
      expect(fieldOf(r)).toBe(field);
    });

    it('....mp4 keeps its extension in the key', async () => {
      const p = await presign(s, key, { ...image(), fileName: '....jpg' });
      expect(p.status).toBe(200);
      expect(p.body.key.endsWith('/_.jpg')).toBe(true);
    });
  });
});

describe('presigns cannot lock a brand out', () => {
  let s: TestServer;
  let spammer: string;
  beforeAll(async () => {
    ({ s, key: spammer } = await serverWithKey({ quotaBytes: 100 * MB }));
  });
  afterAll(async () => s.dispose());
  const ask = (key: string, n: number, fileSize = 5 * MB) =>
    call('POST', `${s.url}/api/v1/upload/presign`, {
      key,
      json: { fileName: `big-${n}.jpg`, contentType: 'image/jpeg', fileSize },
    });

  it("one key's burst of presigns stops at its own cap; a teammate's key still uploads", async () => {
    const answers = [];
    for (let n = 0; n < 40; n++) answers.push(await ask(spammer, n));
    const ok = answers.filter((a) => a.status === 200).length;
    // A quarter of the brand's 100 MB quota: five 5 MB reservations.
    expect(ok).toBe(5);
    const refused = answers.find((a) => a.status !== 200)!;
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const teammate = await s.key('acme');
    const done = await uploadItem(s, teammate, image('teammate.jpg', 3 * 1024));
    expect(done.item.title).toBe('teammate');
  });

  it('reservations whose bytes never came stop counting for the brand after the window', async () => {
    // Three more keys fill the brand's quota with reservations alone: 25 + 25 + 20 MB beside the
    // spammer's 25 MB and the teammate's 3 KB item leave less than 5 MB.
    for (const count of [5, 5, 4]) {
      const other = await s.key('acme');
      for (let n = 0; n < count; n++) expect((await ask(other, n)).status).toBe(200);
    }
    const late = await s.key('acme');
    const full = await ask(late, 0);
    expect(full.status).toBe(403);
    expect(errorOf(full).code).toBe('quota_exceeded');
    s.clock.advance(5 * 60_000 + 1000);
    expect((await ask(late, 1)).status).toBe(200);
  });

  it('a key holds at most 100 reservations at once', async () => {
    const key = await s.key('acme');
    const answers = [];
    for (let n = 0; n < 101; n++) answers.push((await ask(key, n, 10)).status);
    expect(answers.slice(0, 100).every((st) => st === 200)).toBe(true);
    expect(answers[100]).toBe(429);
  });
});

describe('thumbnails are bounded', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    ({ s, key } = await serverWithKey({
      quotaBytes: 1 * MB,
      // Their own quota, and one key's reservations without a cap, to see the quota itself.
      reservations: { thumbnailQuotaBytes: 50 * MB, keyReservedBytes: Number.MAX_SAFE_INTEGER },
    }));
  });
  afterAll(async () => s.dispose());

  it('outside the brand quota (the contract), within a quota of their own', async () => {
    const thumb = (n: number) =>
      call('POST', `${s.url}/api/v1/upload/presign`, {
        key,
        json: { fileName: `t${n}.jpg`, contentType: 'image/jpeg', fileSize: 20 * MB, thumbnail: true },
      });
    // 20 MB each, with a brand quota of 1 MB: two fit in 50 MB, the third does not.
    expect((await thumb(1)).status).toBe(200);
    expect((await thumb(2)).status).toBe(200);
    const third = await thumb(3);
    expect(third.status).toBe(403);
    expect(errorOf(third).code).toBe('quota_exceeded');
    expect(errorOf(third).message).toMatch(/thumbnails would exceed their own quota of 50 MB/);
  });
});

describe('body-less requests and headers', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    ({ s, key } = await serverWithKey());
  });
  afterAll(async () => s.dispose());

  it('DELETE and GET with Content-Type: application/json and no body are answered as usual', async () => {
    const { item } = await uploadItem(s, key, image('bodyless.jpg'));
    const json = { 'content-type': 'application/json' };
    expect((await call('GET', `${s.url}/api/v1/content/${item.id}`, { key, headers: json })).status).toBe(200);
    expect((await call('DELETE', `${s.url}/api/v1/content/${item.id}`, { key, headers: json })).status).toBe(200);
    // A POST still needs its body.
    const empty = await call('POST', `${s.url}/api/v1/upload/presign`, { key, headers: json });
    expect(empty.status).toBe(400);
  });

  it('nosniff on every answer; no-store, a CSP and no framing on the API, errors included', async () => {
    const f = image('headers.jpg');
    const answers = {
      presign: await presign(s, key, f),
      list: await call('GET', `${s.url}/api/v1/content`, { key }),
      unauthorized: await call('GET', `${s.url}/api/v1/content`),
    };
    for (const [name, r] of Object.entries(answers)) {
      expect(r.headers['x-content-type-options'], name).toBe('nosniff');
      expect(r.headers['cache-control'], name).toBe('no-store');
      expect(r.headers['content-security-policy'], name).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(r.headers['x-frame-options'], name).toBe('DENY');
    }
    expect((await call('GET', `${s.url}/healthz`)).headers['x-content-type-options']).toBe('nosniff');
  });

  it('a stored file is never shown as anything but its type: nosniff here, a download on S3', async () => {
    const { item } = await uploadItem(s, key, image('shown.jpg'));
    const got = await fetch(item.fileUrl);
    await got.arrayBuffer();
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    if (onS3) {
      // The store cannot send nosniff; the signed URL asks it for an attachment instead.
      expect(new URL(item.fileUrl).searchParams.get('response-content-disposition')).toBe(
        'attachment; filename="shown.jpg"',
      );
    } else {
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('requests without a valid key are limited per address', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    ({ s, key } = await serverWithKey({ rateLimit: { max: 10_000, windowMs: 60_000 } }));
  });
  afterAll(async () => s.dispose());

  it('401 up to 100 a minute, then 429 with Retry-After; a valid key from the same address still works', async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 101; n++)
      statuses.push((await call('GET', `${s.url}/api/v1/content`, { key: `cl_${'x'.repeat(40)}${n}` })).status);
    expect(statuses.slice(0, 100).every((st) => st === 401)).toBe(true);
    const limited = await call('GET', `${s.url}/api/v1/content`);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await call('GET', `${s.url}/api/v1/content`, { key })).status).toBe(200);
    s.clock.advance(60_000);
    expect((await call('GET', `${s.url}/api/v1/content`)).status).toBe(401);
  });
});
