// Conformance: authentication (401), the error body on every non-2xx (ours and Fastify's own),
// the optional rate limit (429) and masked 500s.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../src/api/schemas.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../src/server/admin.js';
import { buildApp } from '../../src/server/app.js';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { createSqliteRepo } from '../../src/server/repo/sqlite/repo.js';
import { createDiskStorage } from '../../src/server/storage/disk.js';
import { createDiskParts } from '../../src/server/storage/disk-parts.js';
import * as srv from '../support/server.js';
import type { TestServer } from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await srv.serverWithKey()));
afterAll(async () => s.dispose());

const errorOf = (r: { body: unknown }) => ErrorBodySchema.parse(r.body).error;

describe('authentication', () => {
  const endpoints: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
    ['POST', '/api/v1/upload/presign'],
    ['POST', '/api/v1/upload/complete'],
    ['GET', '/api/v1/content'],
    ['GET', '/api/v1/content/00000000-0000-4000-8000-000000000000'],
    ['PATCH', '/api/v1/content/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/api/v1/content/00000000-0000-4000-8000-000000000000'],
  ];

  it.each(endpoints)('%s %s without a key is 401 unauthorized with WWW-Authenticate: Bearer', async (method, path) => {
    const r = await srv.call(method, `${s.url}${path}`, method === 'POST' || method === 'PATCH' ? { json: {} } : {});
    expect(r.status).toBe(401);
    expect(errorOf(r).code).toBe('unauthorized');
    expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer/);
  });

  it.each([
    ['a malformed header', 'Token abc'],
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key', `Bearer cl_${'A'.repeat(43)}`],
    ['an empty bearer', 'Bearer '],
  ])('%s is 401', async (_what, header) => {
    const r = await srv.call('GET', `${s.url}/api/v1/content`, { headers: { authorization: header } });
    expect(r.status).toBe(401);
    expect(errorOf(r).code).toBe('unauthorized');
  });

  it('a revoked key stops working at once, even with a server running', async () => {
    const created = await createApiKey(s.dataDir, 'temp');
    expect((await srv.call('GET', `${s.url}/api/v1/content`, { key: created.key })).status).toBe(200);
    expect(await revokeApiKey(s.dataDir, created.id)).toBe(true);
    expect(await revokeApiKey(s.dataDir, created.id)).toBe(false);
    expect((await srv.call('GET', `${s.url}/api/v1/content`, { key: created.key })).status).toBe(401);
    const listed = (await listApiKeys(s.dataDir)).find((k) => k.id === created.id)!;
    expect(listed.revokedAt).not.toBeNull();
    expect(listed.prefix).toBe(created.key.slice(0, 7));
    expect(JSON.stringify(await listApiKeys(s.dataDir))).not.toContain(created.key);
  });

  it('keys are cl_ + 32 random bytes in base64url, and only a hash is stored', async () => {
    const created = await createApiKey(s.dataDir, 'acme');
    expect(created.key).toMatch(/^cl_[A-Za-z0-9_-]{43}$/);
    const db = openDatabase(s.dataDir);
    try {
      const dump = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
      expect(dump).not.toContain(created.key);
      expect(dump).not.toContain(created.key.slice(3));
    } finally {
      db.close();
    }
  });
});

describe('error bodies', () => {
  it('unknown route: 404 not_found in our shape', async () => {
    const r = await srv.call('GET', `${s.url}/api/v2/content`, { key });
    expect(r.status).toBe(404);
    expect(errorOf(r).code).toBe('not_found');
  });

  it('malformed JSON: 400 invalid_request', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, {
      key,
      body: '{"fileName":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
  });

  it('a JSON array or a JSON string instead of an object: 400', async () => {
    for (const body of ['[]', '"x"', 'null']) {
      const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, {
        key,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status, body).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
    }
  });

  it('empty body with a JSON content type: 400', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, {
      key,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
  });

  it('a non-JSON content type: 415 in our shape', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, {
      key,
      body: 'fileName=a',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(415);
    expect(errorOf(r).code).toBe('unsupported_media_type');
  });

  it('a body over 1 MiB: 413 in our shape', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, {
      key,
      json: { fileName: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(r.status).toBe(413);
    expect(errorOf(r).code).toBe('file_too_large');
  });

  it('details list every zod issue with its path', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/presign`, { key, json: { fileSize: 'big' } });
    const details = errorOf(r).details as Array<{ path?: string; requestId?: string }>;
    const paths = details.flatMap((d) => (d.path === undefined ? [] : [d.path])).sort();
    expect(paths).toEqual(['contentType', 'fileName', 'fileSize']);
    // The last entry names the request, as in every error body.
    expect(details.at(-1)?.requestId).toBe(r.headers['x-request-id']);
  });
});

describe('rate limit (optional)', () => {
  let r: TestServer;
  beforeAll(async () => {
    r = await srv.startTestServer({ rateLimit: { max: 2, windowMs: 10_000 } });
  });
  afterAll(async () => r.dispose());

  it('answers 429 rate_limited with Retry-After once the window is used up, then recovers', async () => {
    const k = await r.key();
    const url = `${r.url}/api/v1/content`;
    expect((await srv.call('GET', url, { key: k })).status).toBe(200);
    expect((await srv.call('GET', url, { key: k })).status).toBe(200);
    const limited = await srv.call('GET', url, { key: k });
    expect(limited.status).toBe(429);
    expect(errorOf(limited).code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('10');
    // Another key has its own window; the storage PUT is not limited.
    const other = await r.key();
    expect((await srv.call('GET', url, { key: other })).status).toBe(200);
    r.clock.advance(10_000);
    expect((await srv.call('GET', url, { key: k })).status).toBe(200);
  });
});

describe('unexpected failures', () => {
  it('are a 500 internal with no stack, path or secret in the body', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'contentlib-500-'));
    const db = openDatabase(dataDir);
    let base = '';
    const storage = createDiskStorage({ dataDir, secret: Buffer.alloc(32, 7), publicUrl: () => base });
    const reported: unknown[] = [];
    // A disk that fails on read: complete needs the object's first bytes.
    const broken = {
      ...storage,
      head: async () => Promise.reject(new Error(`EIO: i/o error, open '${dataDir}/objects/secret'`)),
    };
    const { app } = buildApp({
      repo: createSqliteRepo(db, { dataDir }),
      storage: broken,
      disk: storage,
      receiver: {
        object: storage.receive,
        part: createDiskParts(dataDir, Buffer.alloc(32, 7), () => base, storage.pathOf).receive,
      },
      secret: Buffer.alloc(32, 7),
      now: () => new Date(),
      quotaBytes: 1e9,
      urlLifetimeSeconds: 3600,
      auditRetentionMs: 365 * 86_400_000,
      onInternalError: (e) => reported.push(e),
    });
    try {
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      const k = (await createApiKey(dataDir, 'acme')).key;
      const f = srv.image();
      const p = await srv.presign({ url: base }, k, f);
      expect((await srv.put(p.body.presignedUrl, f)).status).toBe(200);
      const c = await srv.complete({ url: base }, k, p.body.key, f, 'carousel');
      expect(c.status).toBe(500);
      expect(errorOf(c).code).toBe('internal');
      expect(c.text).not.toContain(dataDir);
      expect(c.text).not.toContain('EIO');
      expect(c.text).not.toMatch(/at .*\.ts/);
      expect(reported).toHaveLength(1);
    } finally {
      await app.close();
      db.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
