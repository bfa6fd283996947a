// Every API endpoint × every scope (docs/api.md, Scopes), on SQLite + disk and, in vitest's
// postgres-s3 project, on PostgreSQL + S3: a key holding the endpoint's scope gets its 2xx, any
// other key a 403 `forbidden` naming the missing scope, and nothing changes. Expired and revoked
// keys answer 401 on every endpoint, whatever their scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope, holds } from '../../src/api/scopes.js';
import { onS3 } from '../support/backend.js';
import { errorBodyProblem } from '../support/http.js';
import {
  type Reply,
  type TestServer,
  call,
  image,
  presign,
  put,
  startTestServer,
  uploadItem,
} from '../support/server.js';

let s: TestServer;
let admin: string;
beforeAll(async () => {
  s = await startTestServer();
  admin = (await s.makeKey('acme', { name: 'admin' })).key;
});
afterAll(async () => s.dispose());

/** A fresh item of the brand, made by the admin key. */
async function newItem(): Promise<string> {
  return (await uploadItem(s, admin, image('m.jpg'))).item.id;
}

/** A fresh carousel of three images, made by the admin key: its id and its images' ids in order. */
async function newCarousel(): Promise<{ id: string; fileIds: string[] }> {
  const first = await uploadItem(s, admin, image('a.jpg'));
  const id = first.item.id;
  const rest = [];
  for (const name of ['b.jpg', 'c.jpg']) rest.push(await uploadItem(s, admin, image(name), { contentItemId: id }));
  return { id, fileIds: [first.file!.id, ...rest.map((r) => r.file!.id)] };
}

/** How many audit entries the brand has: a refused request must add none. */
async function auditCount(): Promise<number> {
  let n = 0;
  for (let before: number | null = null; ;) {
    const r: Reply<{ entries: unknown[]; nextBefore: number | null }> = await call(
      'GET',
      `${s.url}/api/v1/audit?limit=100${before === null ? '' : `&before=${before}`}`,
      { key: admin },
    );
    n += r.body.entries.length;
    if (r.body.nextBefore === null) return n;
    before = r.body.nextBefore;
  }
}

interface Endpoint {
  name: string;
  /** The scope the documentation says it needs (written here, not read from the code under test). */
  scope: Scope;
  status: number;
  /** Makes what the request needs (with the same key where it must), then returns the request. */
  prepare(key: string): Promise<() => Promise<Reply>>;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /api/v1/upload/presign',
    scope: 'content:write',
    status: 200,
    prepare: async (key) => () => presign(s, key, image()),
  },
  {
    name: 'POST /api/v1/upload/complete',
    scope: 'content:write',
    status: 200,
    // An upload of the caller's own (a key without content:write cannot presign: the admin's then).
    prepare: async (key) => {
      const f = image('c.jpg');
      const mine = await presign(s, key, f);
      const p = mine.status === 200 ? mine : await presign(s, admin, f);
      expect((await put(p.body.presignedUrl, f)).status).toBe(200);
      const json = { key: p.body.key, fileName: f.fileName, contentType: f.contentType, fileSize: f.bytes.length };
      return () => call('POST', `${s.url}/api/v1/upload/complete`, { key, json: { ...json, type: 'carousel' } });
    },
  },
  {
    name: 'POST /api/v1/upload/check',
    scope: 'content:read',
    status: 200,
    prepare: async (key) => () =>
      call('POST', `${s.url}/api/v1/upload/check`, {
        key,
        json: { files: [{ sha256: 'a'.repeat(64), size: 1 }] },
      }),
  },
  {
    name: 'GET /api/v1/content',
    scope: 'content:read',
    status: 200,
    prepare: async (key) => () => call('GET', `${s.url}/api/v1/content`, { key }),
  },
  {
    name: 'GET /api/v1/content/:id',
    scope: 'content:read',
    status: 200,
    prepare: async (key) => {
      const id = await newItem();
      return () => call('GET', `${s.url}/api/v1/content/${id}`, { key });
    },
  },
  {
    name: 'PATCH /api/v1/content/:id',
    scope: 'content:write',
    status: 200,
    prepare: async (key) => {
      const id = await newItem();
      return () => call('PATCH', `${s.url}/api/v1/content/${id}`, { key, json: { title: 'T' } });
    },
  },
  {
    name: 'DELETE /api/v1/content/:id',
    scope: 'content:delete',
    status: 200,
    prepare: async (key) => {
      const id = await newItem();
      return () => call('DELETE', `${s.url}/api/v1/content/${id}`, { key });
    },
  },
  {
    name: 'PUT /api/v1/content/:id/order',
    scope: 'content:write',
    status: 200,
    prepare: async (key) => {
      const { id, fileIds } = await newCarousel();
      return () => call('PUT', `${s.url}/api/v1/content/${id}/order`, { key, json: { fileIds: fileIds.reverse() } });
    },
  },
  {
    name: 'DELETE /api/v1/content/:id/files/:fileId',
    scope: 'content:write',
    status: 200,
    prepare: async (key) => {
      const { id, fileIds } = await newCarousel();
      return () => call('DELETE', `${s.url}/api/v1/content/${id}/files/${fileIds[0]}`, { key });
    },
  },
  {
    name: 'PUT /api/v1/content/:id/files/:fileId',
    scope: 'content:write',
    status: 200,
    // As complete: an upload of the caller's own (the admin's when the key cannot presign).
    prepare: async (key) => {
      const { id, fileIds } = await newCarousel();
      const f = image('new.jpg');
      const mine = await presign(s, key, f);
      const p = mine.status === 200 ? mine : await presign(s, admin, f);
      expect((await put(p.body.presignedUrl, f)).status).toBe(200);
      const json = { key: p.body.key, fileName: f.fileName, contentType: f.contentType, fileSize: f.bytes.length };
      return () => call('PUT', `${s.url}/api/v1/content/${id}/files/${fileIds[1]}`, { key, json });
    },
  },
  {
    name: 'POST /api/v1/keys',
    scope: 'keys:admin',
    status: 201,
    prepare: async (key) => () =>
      call('POST', `${s.url}/api/v1/keys`, { key, json: { name: 'made', scopes: ['keys:admin'] } }),
  },
  {
    name: 'GET /api/v1/keys',
    scope: 'keys:admin',
    status: 200,
    prepare: async (key) => () => call('GET', `${s.url}/api/v1/keys`, { key }),
  },
  {
    name: 'DELETE /api/v1/keys/:id',
    scope: 'keys:admin',
    status: 200,
    prepare: async (key) => {
      const spare = await s.makeKey('acme', { name: 'spare', scopes: ['content:read'] });
      return () => call('DELETE', `${s.url}/api/v1/keys/${spare.id}`, { key });
    },
  },
  {
    name: 'GET /api/v1/audit',
    scope: 'audit:read',
    status: 200,
    prepare: async (key) => () => call('GET', `${s.url}/api/v1/audit`, { key }),
  },
];

describe.each(ENDPOINTS)('$name needs $scope', (endpoint) => {
  it.each(SCOPES.map((scope) => [scope]))('a key with only %s', async (scope) => {
    const { key } = await s.makeKey('acme', { name: `only ${scope}`, scopes: [scope] });
    const send = await endpoint.prepare(key);
    const before = await auditCount();
    const r = await send();
    // keys:admin brings audit:read with it (docs/api.md, Scopes): its admin keys read the log.
    if (holds([scope], endpoint.scope)) {
      expect(r.status, r.text).toBe(endpoint.status);
      return;
    }
    expect(r.status, r.text).toBe(403);
    const error = (r.body as { error: { code: string; message: string; details: Array<Record<string, unknown>> } })
      .error;
    expect(errorBodyProblem({ ...r, json: r.body }, 'api')).toBeNull();
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain(`lacks the scope ${endpoint.scope}`);
    expect(error.details[0]).toMatchObject({ path: 'scope', requiredScope: endpoint.scope, keyScopes: [scope] });
    expect(await auditCount()).toBe(before);
  });
});

describe('a key with every scope but one', () => {
  it.each(SCOPES.map((scope) => [scope]))(
    'lacking %s, is refused exactly the endpoints that need it',
    async (lacking) => {
      const { key } = await s.makeKey('acme', { scopes: SCOPES.filter((x) => x !== lacking) });
      for (const endpoint of ENDPOINTS) {
        const r = await (await endpoint.prepare(key))();
        const held = SCOPES.filter((x) => x !== lacking);
        expect([endpoint.name, r.status]).toEqual([endpoint.name, holds(held, endpoint.scope) ? endpoint.status : 403]);
      }
    },
  );
});

describe('expired and revoked keys answer 401 on every endpoint', () => {
  let expired: { key: string; expiresAt: string | null };
  let revoked: { key: string; revokedAt: string };
  beforeAll(async () => {
    expired = await s.makeKey('acme', {
      name: 'old CI',
      expiresAt: new Date(s.clock.now.getTime() - 1000).toISOString(),
    });
    const made = await s.makeKey('acme', { name: 'gone' });
    expect(await s.revokeKey(made.id)).toBe(true);
    revoked = { key: made.key, revokedAt: s.clock.now.toISOString() };
  });

  it.each(ENDPOINTS.map((e) => [e.name, e]))('%s', async (_name, endpoint) => {
    for (const [key, why] of [
      [expired.key, `expired at ${expired.expiresAt}`],
      [revoked.key, `revoked at ${revoked.revokedAt}`],
    ] as const) {
      const send = await endpoint.prepare(key);
      const before = await auditCount();
      const r = await send();
      expect(r.status, r.text).toBe(401);
      expect(errorBodyProblem({ ...r, json: r.body }, 'api')).toBeNull();
      expect((r.body as { error: { message: string } }).error.message).toContain(why);
      expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer/);
      expect(await auditCount()).toBe(before);
    }
  });

  it('a key that expires while its upload is open closes the upload: complete is refused, the PUT too on disk', async () => {
    const soon = await s.makeKey('acme', { expiresAt: new Date(s.clock.now.getTime() + 60_000).toISOString() });
    const f = image('late.jpg');
    const p = await presign(s, soon.key, f);
    expect(p.status).toBe(200);
    s.clock.advance(61_000);
    try {
      if (!onS3) {
        const r = await put(p.body.presignedUrl, f);
        expect([r.status, (r.body as { error: { code: string } }).error.code]).toEqual([403, 'upload_closed']);
      }
      const c = await call('POST', `${s.url}/api/v1/upload/complete`, {
        key: soon.key,
        json: {
          key: p.body.key,
          fileName: f.fileName,
          contentType: f.contentType,
          fileSize: f.bytes.length,
          type: 'carousel',
        },
      });
      expect(c.status).toBe(401);
    } finally {
      s.clock.advance(-61_000);
    }
  });
});
