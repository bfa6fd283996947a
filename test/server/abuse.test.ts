// Abuse: property-based tests (fast-check) throw random and malformed bodies, headers, query
// strings, URLs and storage PUTs at the server. The answer is always a 4xx (or a 2xx for what
// happens to be valid) with the DESIGN.md error body: never a 500, never a crash. A key of one
// brand never reads, changes or deletes anything of another, and no response or log line ever
// holds an API key or a filesystem path.
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, errorBodyProblem, fixtureMedia, http, query, uploadFlow } from '../support/http.js';
import { ROOT } from '../support/paths.js';
import { type RawAnswer, rawRequest } from '../support/raw-http.js';
import { type TestServer, startTestServer } from '../support/server.js';

// Modest by default so npm test stays fast; ABUSE_RUNS=1000 for a deep run.
const RUNS = Number(process.env.ABUSE_RUNS ?? 60);

let dataDir: string;
let server: TestServer;
let port: number;
const keys = { a: '', b: '' };
const internal: string[] = [];
/** Everything a client sent and got back, scanned for secrets at the end. */
const exchanges: Array<{ sent: string; got: string }> = [];
const stderrLines: string[] = [];
const realStderrWrite = process.stderr.write.bind(process.stderr);

interface BrandA {
  item: string;
  carousel: string;
  /** Stored by PUT, never completed: B must not be able to complete it. */
  pendingKey: string;
  thumbnailKey: string;
}
let a: BrandA;
let bItem: string;
/** B's own stored upload, for trying to add it to A's carousel. */
let bPending: { key: string; size: number };

function note(sent: string, got: Answer | RawAnswer): void {
  exchanges.push({ sent, got: 'raw' in got ? got.raw : `${JSON.stringify(got.headers)}\n${got.text}` });
}

/** 4xx with the documented body from either table (API, or storage for /storage URLs). */
function problemOf(ans: Answer, tables: ReadonlyArray<'api' | 'storage'> = ['api', 'storage']): string | null {
  if (ans.status < 400 || ans.status >= 500) return `status ${ans.status}: ${ans.text.slice(0, 200)}`;
  const problems = tables.map((t) => errorBodyProblem(ans, t));
  return problems.includes(null) ? null : problems.join(' / ');
}

/** A 2xx, or a 4xx with the documented body; never a 5xx, never silence. */
function acceptable(ans: Answer, method = 'GET'): string | null {
  if (ans.status >= 200 && ans.status < 300) return null;
  if (method === 'HEAD' && ans.status >= 400 && ans.status < 500) return null; // HEAD answers carry no body
  return problemOf(ans);
}

beforeAll(async () => {
  // The server has no logger of its own: internal errors go to onInternalError, and anything
  // else it might print goes to stderr, which is captured here too.
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderrLines.push(String(chunk));
    return (realStderrWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  server = await startTestServer({
    clock: 'real',
    onInternalError: (e) => internal.push(e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e)),
  });
  dataDir = server.dataDir;
  port = Number(new URL(server.url).port);
  keys.a = await server.key('brand-a');
  keys.b = await server.key('brand-b');

  const { clip, photo } = fixtureMedia();
  const done = async (r: Awaited<ReturnType<typeof uploadFlow>>) => {
    if (r.complete?.status !== 200) throw new Error(`seeding failed: ${JSON.stringify(r)}`);
    return (r.complete.json as { contentItemId: string }).contentItemId;
  };
  const item = await done(await uploadFlow(server.url, keys.a, clip, 'a-video.mp4'));
  const carousel = await done(await uploadFlow(server.url, keys.a, photo, 'a-photo-1.jpg'));
  const second = await http('POST', `${server.url}/api/v1/upload/presign`, {
    key: keys.a,
    json: { fileName: 'a-photo-2.jpg', contentType: 'image/jpeg', fileSize: photo.bytes.length, type: 'carousel' },
  });
  const p2 = second.json as { presignedUrl: string; key: string };
  await http('PUT', p2.presignedUrl, { body: photo.bytes, headers: { 'content-type': 'image/jpeg' } });
  await http('POST', `${server.url}/api/v1/upload/complete`, {
    key: keys.a,
    json: {
      key: p2.key,
      fileName: 'a-photo-2.jpg',
      contentType: 'image/jpeg',
      fileSize: photo.bytes.length,
      type: 'carousel',
      contentItemId: carousel,
    },
  });
  const pending = await stored(keys.a, clip.bytes, 'a-pending.mp4', 'video/mp4', { type: 'shortform' });
  const thumb = await stored(keys.a, photo.bytes, 'a-thumb.jpg', 'image/jpeg', { thumbnail: true });
  a = { item, carousel, pendingKey: pending, thumbnailKey: thumb };
  bItem = await done(await uploadFlow(server.url, keys.b, clip, 'b-video.mp4'));
  bPending = {
    key: await stored(keys.b, photo.bytes, 'b-photo.jpg', 'image/jpeg', { type: 'carousel' }),
    size: photo.bytes.length,
  };
});

afterAll(async () => {
  process.stderr.write = realStderrWrite;
  await server?.dispose();
});

/** presign + PUT, no complete; returns the storage key. */
async function stored(
  key: string,
  bytes: Buffer,
  fileName: string,
  contentType: string,
  extra: Record<string, unknown>,
): Promise<string> {
  const p = await http('POST', `${server.url}/api/v1/upload/presign`, {
    key,
    json: { fileName, contentType, fileSize: bytes.length, ...extra },
  });
  const body = p.json as { presignedUrl: string; key: string };
  const put = await http('PUT', body.presignedUrl, { body: bytes, headers: { 'content-type': contentType } });
  if (put.status !== 200) throw new Error(`seeding PUT failed: ${put.status} ${put.text}`);
  return body.key;
}

// ---- generators ---------------------------------------------------------------------------

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
];

const validPresign = { fileName: 'clip.mp4', contentType: 'video/mp4', fileSize: 3119, type: 'shortform' };
const validComplete = {
  key: 'u/f/clip.mp4',
  fileName: 'clip.mp4',
  contentType: 'video/mp4',
  fileSize: 3119,
  type: 'shortform',
  durationSeconds: 5,
};
const validPatch = {
  title: 'T',
  description: 'd',
  hashtags: ['a'],
  status: 'draft',
  platformSettings: { youtube: { visibility: 'private' } },
};

/** A valid body with one field replaced by anything, removed, or an unknown field added. */
function mutated(base: Record<string, unknown>) {
  const fields = Object.keys(base);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), fc.jsonValue()).map(([k, v]) => ({ ...base, [k]: v })),
    fc.constantFrom(...fields).map((k) => Object.fromEntries(Object.entries(base).filter(([f]) => f !== k))),
    fc.tuple(fc.string({ minLength: 1 }), fc.jsonValue()).map(([k, v]) => ({ ...base, [k]: v })),
    fc.constantFrom(
      { ...base, __proto__: { polluted: true } },
      JSON.parse(`{"__proto__": {"x": 1}, "constructor": {"prototype": {"y": 2}}}`),
    ),
  );
}

/** A body as text: random JSON, a mutated valid body, or bytes that are not JSON at all. */
function bodyFor(base: Record<string, unknown>) {
  return fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
    mutated(base).map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '"x"',
      '1e999',
      '{"fileSize": 1e400}',
      '\u0000',
      '{}'.repeat(1000),
      `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ),
  );
}

/** Anything outside visible ASCII (and space) percent-encoded; '%' itself left raw, so bad escapes stay bad. */
function wireSafe(s: string): string {
  return Array.from(Buffer.from(s, 'utf8'))
    .map((b) =>
      b > 0x20 && b < 0x7f && b !== 0x23 ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');
}

const queryValue = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.constantFrom(
    '%',
    '%zz',
    '%00',
    '-1',
    '1e3',
    '101',
    '100',
    '0x10',
    ' 5',
    '',
    '9007199254740993',
    'draft',
    'carousel',
    '%25_%',
  ),
);
const queryKey = fc.oneof(
  fc.constantFrom('limit', 'offset', 'status', 'type', 'search', 'search[]', 'limit[a]', '__proto__'),
  fc.string(),
);

// ---- properties ---------------------------------------------------------------------------

describe('abuse: malformed requests to every endpoint', () => {
  it('random and malformed JSON bodies and content types: a documented 4xx (or a 2xx when valid), never a 500', async () => {
    const endpoints = [
      { method: 'POST', path: '/api/v1/upload/presign', base: validPresign },
      { method: 'POST', path: '/api/v1/upload/complete', base: validComplete },
      { method: 'PATCH', path: '/api/v1/content/ITEM', base: validPatch },
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.nat(),
        fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
        fc.boolean(),
        async (ep, seed, contentType, withKey) => {
          const text = fc.sample(bodyFor(ep.base), { seed, numRuns: 1 })[0]!;
          const body = Buffer.from(text, 'utf8');
          const path = ep.path.replace('ITEM', a.item);
          const head = [`${ep.method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Length: ${body.length}`];
          if (contentType) head.push(`Content-Type: ${contentType}`);
          if (withKey) head.push(`Authorization: Bearer ${keys.a}`);
          const ans = await rawRequest(port, head.join('\r\n'), body);
          note(`${head.join('\n')}\n${text}`, ans);
          expect(acceptable(ans, ep.method), `${ep.method} ${path} ${contentType} ${text.slice(0, 100)}`).toBeNull();
          if (!withKey) expect(ans.status).toBe(401);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('random query strings on the list: 200 or a documented 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(queryKey, queryValue), { maxLength: 5 }),
        fc.boolean(),
        async (pairs, encode) => {
          const qs = pairs
            .map(([k, v]) =>
              encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${wireSafe(k)}=${wireSafe(v)}`,
            )
            .join('&');
          const head = `GET /api/v1/content?${qs} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${keys.a}`;
          const ans = await rawRequest(port, head);
          note(head, ans);
          expect([200, 400], `?${qs}: ${ans.text.slice(0, 200)}`).toContain(ans.status);
          expect(acceptable(ans)).toBeNull();
          if (ans.status === 200) expect(Array.isArray((ans.json as { items: unknown }).items)).toBe(true);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('random methods, paths and Authorization headers: never a 500, errors in the documented shape', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'api',
        'v1',
        'content',
        'upload',
        'presign',
        'complete',
        'storage',
        '..',
        '.',
        '',
        '%',
        '%zz',
        '%2F',
        '%00',
        '%2e%2e',
        'ITEM',
        'PENDING',
      ),
      fc.string().map(wireSafe),
    );
    const auth = fc.oneof(
      fc.constant(undefined),
      fc.constant('A'),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'bearer cl_',
        'Bearer cl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        'Bearer A A',
      ),
      fc.string().map((s) => `Bearer ${wireSafe(s)}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'BREW'),
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.option(fc.string().map(wireSafe), { nil: undefined }),
        auth,
        async (method, segments, search, authorization) => {
          const path = `/${segments.join('/').replace('ITEM', a.item).replace('PENDING', a.pendingKey)}${search === undefined ? '' : `?${search}`}`;
          const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
          if (authorization) head.push(`Authorization: ${authorization === 'A' ? `Bearer ${keys.a}` : authorization}`);
          if (method === 'POST' || method === 'PUT' || method === 'PATCH') head.push('Content-Length: 0');
          const ans = await rawRequest(port, head.join('\r\n'));
          note(head.join('\n'), ans);
          expect(acceptable(ans, method), `${method} ${path}`).toBeNull();
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('malformed HTTP (bad request lines, missing Host, huge headers): a documented 400', async () => {
    const heads = [
      'GARBAGE',
      'GET /api/v1/content\u0001 HTTP/1.1\r\nHost: x',
      'GET /api/v1/content HTTP/1.1',
      'GET /api/v1/content HTTP/9.9\r\nHost: x',
      `GET /api/v1/content HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}`,
      'POST /api/v1/upload/presign HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked',
      'POST /api/v1/upload/presign HTTP/1.1\r\nHost: x\r\nContent-Length: -1',
      'GET /api/v1/content/%zz HTTP/1.1\r\nHost: x',
      'PUT /storage/%E0%A4%A?expires=1&signature=x HTTP/1.1\r\nHost: x\r\nContent-Length: 0',
    ];
    heads.push(`GET /api/v1/content?search=${'x'.repeat(100_000)} HTTP/1.1\r\nHost: x`);
    for (const head of heads) {
      const ans = await rawRequest(port, head);
      note(head, ans);
      expect(ans.status, head.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(problemOf(ans), head.slice(0, 80)).toBeNull();
    }
    // A JSON body far over the API's body limit: refused in the documented shape, not buffered whole.
    const big = Buffer.from(
      JSON.stringify({ fileName: 'x'.repeat(3 * 1024 * 1024), contentType: 'video/mp4', fileSize: 1 }),
    );
    const head = `POST /api/v1/upload/presign HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.a}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}`;
    const ans = await rawRequest(port, head, big);
    note(head, ans);
    expect(ans.status).toBe(413);
    expect(problemOf(ans)).toBeNull();
  });
});

describe('abuse: the storage PUT', () => {
  it('a tampered URL, wrong headers or a wrong body length: a documented 4xx and nothing stored', async () => {
    const { clip } = fixtureMedia();
    type Mutation = (r: {
      path: string;
      headers: Record<string, string>;
      body: Buffer;
    }) => { halfClose?: boolean } | void;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
    const mutations = fc.oneof(
      fc.nat().map((i): Mutation => (r) => {
        r.path = r.path.replace(/signature=([0-9a-f]+)/, (_m, sig: string) => `signature=${flip(sig, i % sig.length)}`);
      }),
      fc.constantFrom<Mutation>(
        (r) => void (r.path = r.path.replace(/&signature=[0-9a-f]+/, '')),
        (r) => void (r.path = r.path.replace(/signature=[0-9a-f]+/, 'signature=')),
        (r) => void (r.path = r.path.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 1}`)),
        (r) => void (r.path = r.path.replace(/expires=(\d+)/, 'expires=abc')),
        (r) => void (r.path = r.path.replace(/expires=(\d+)/, 'expires=99999999999999999999')),
        (r) => void (r.path = r.path.replace(/expires=\d+&?/, '')),
        (r) => void (r.path = r.path.replace('/storage/', '/storage/x')),
        (r) => void (r.path = r.path.replace(/\/[^/?]+\?/, '/other.mp4?')),
        (r) => void (r.path = r.path.replace(/\/([^/?]+)\?/, '/%2e%2e%2F$1?')),
        (r) => void (r.headers['content-type'] = 'video/quicktime'),
        (r) => void (r.headers['content-type'] = 'Video/MP4'),
        (r) => void (r.headers['content-type'] = 'video/mp4; charset=binary'),
        (r) => void delete r.headers['content-type'],
        (r) => void (r.headers.authorization = `Bearer ${keys.a}`),
        (r) => void delete r.headers['content-length'],
        (r) => {
          r.body = r.body.subarray(0, r.body.length - 1);
          r.headers['content-length'] = String(r.body.length);
        },
        (r) => {
          r.body = Buffer.concat([r.body, Buffer.from('x')]);
          r.headers['content-length'] = String(r.body.length);
        },
        (r) => {
          // The signed length declared, fewer bytes sent, then the client stops sending.
          r.body = r.body.subarray(0, 100);
          return { halfClose: true };
        },
      ),
    );
    await fc.assert(
      fc.asyncProperty(mutations, async (mutate) => {
        const p = await http('POST', `${server.url}/api/v1/upload/presign`, {
          key: keys.a,
          json: { fileName: 'tamper.mp4', contentType: 'video/mp4', fileSize: clip.bytes.length, type: 'shortform' },
        });
        const { presignedUrl, key } = p.json as { presignedUrl: string; key: string };
        const url = new URL(presignedUrl);
        const r = {
          path: `${url.pathname}${url.search}`,
          headers: { 'content-type': 'video/mp4', 'content-length': String(clip.bytes.length) } as Record<
            string,
            string
          >,
          body: clip.bytes,
        };
        const o = mutate(r) ?? {};
        const head = [
          `PUT ${r.path} HTTP/1.1`,
          'Host: 127.0.0.1',
          ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`),
        ].join('\r\n');
        const ans = await rawRequest(port, head, r.body, o);
        note(head, ans);
        if (!o.halfClose) expect(problemOf(ans), `${head}\n${ans.text}`).toBeNull();
        else if (ans.status !== 0) expect(problemOf(ans), `${head}\n${ans.text}`).toBeNull();
        expect(await server.storage.size(key), 'an object was stored by a bad PUT').toBeNull();
        expect(
          query<{ stored_at: string | null }>(dataDir, 'SELECT stored_at FROM uploads WHERE key = ?', key)[0]
            ?.stored_at,
        ).toBeNull();
      }),
      { numRuns: RUNS },
    );
  });
});

describe('abuse: brands are sealed from each other', () => {
  it("brand B's key never reads, changes or deletes anything of brand A", async () => {
    const snapshot = async () => {
      const items = [];
      for (const id of [a.item, a.carousel]) {
        const got = await http('GET', `${server.url}/api/v1/content/${id}`, { key: keys.a });
        expect(got.status).toBe(200);
        const { item, files } = got.json as { item: Record<string, unknown>; files: Array<Record<string, unknown>> };
        // Signed URLs carry their own expiry; everything else must stay exactly the same.
        const { fileUrl: _f, thumbnailUrl: _t, ...rest } = item;
        items.push({ ...rest, files: files.map(({ fileUrl: _u, ...f }) => f) });
      }
      return items;
    };
    const before = await snapshot();
    const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);
    const ops = fc.oneof(
      fc
        .constantFrom(a.item, a.carousel)
        .map((id) => ({ method: 'GET', path: `/api/v1/content/${id}`, expect: [404] })),
      fc
        .tuple(fc.constantFrom(a.item, a.carousel), text, fc.constantFrom('draft', 'published', 'failed'))
        .map(([id, title, status]) => ({
          method: 'PATCH',
          path: `/api/v1/content/${id}`,
          json: { title, status } as unknown,
          expect: [404],
        })),
      fc
        .constantFrom(a.item, a.carousel)
        .map((id) => ({ method: 'DELETE', path: `/api/v1/content/${id}`, expect: [404] })),
      fc.constant({
        method: 'POST',
        path: '/api/v1/upload/complete',
        json: {
          key: a.pendingKey,
          fileName: 'a-pending.mp4',
          contentType: 'video/mp4',
          fileSize: fixtureMedia().clip.bytes.length,
          type: 'shortform',
        } as unknown,
        expect: [400],
      }),
      fc.constant({
        method: 'POST',
        path: '/api/v1/upload/complete',
        json: {
          key: bPending.key,
          fileName: 'b-photo.jpg',
          contentType: 'image/jpeg',
          fileSize: bPending.size,
          type: 'carousel',
          contentItemId: a.carousel,
        } as unknown,
        expect: [404],
      }),
      fc.constant({
        method: 'PATCH',
        path: `/api/v1/content/${bItem}`,
        json: { thumbnailKey: a.thumbnailKey } as unknown,
        expect: [400],
      }),
      fc.constantFrom('a-video', 'a-photo', 'a-', '').map((search) => ({
        method: 'GET',
        path: `/api/v1/content?search=${encodeURIComponent(search)}&limit=100`,
        expect: [200],
      })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(ops, { minLength: 1, maxLength: 8 }), async (list) => {
        for (const op of list) {
          const ans = await http(op.method, `${server.url}${op.path}`, {
            key: keys.b,
            ...('json' in op ? { json: op.json } : {}),
          });
          note(`${op.method} ${op.path} ${JSON.stringify('json' in op ? op.json : '')}`, ans);
          expect(op.expect, `${op.method} ${op.path}: ${ans.status} ${ans.text.slice(0, 200)}`).toContain(ans.status);
          if (ans.status === 200) {
            const ids = ((ans.json as { items?: Array<{ id: string }> }).items ?? []).map((i) => i.id);
            expect(ids).not.toContain(a.item);
            expect(ids).not.toContain(a.carousel);
          } else {
            expect(problemOf(ans, ['api'])).toBeNull();
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect(await snapshot()).toEqual(before);
    // A's pending upload is still A's to complete, and A's thumbnail is still free.
    const row = query<{ completed_at: string | null; item_id: string | null }>(
      dataDir,
      'SELECT completed_at, item_id FROM uploads WHERE key = ?',
      a.pendingKey,
    )[0];
    expect(row).toEqual({ completed_at: null, item_id: null });
    expect(
      query<{ item_id: string | null }>(dataDir, 'SELECT item_id FROM uploads WHERE key = ?', a.thumbnailKey)[0]
        ?.item_id,
    ).toBeNull();
  });
});

describe('abuse: afterwards', () => {
  it('the server still answers, never failed internally, and no response or log line held a key or a path', async () => {
    const ok = await http('GET', `${server.url}/api/v1/content`, { key: keys.a });
    expect(ok.status).toBe(200);
    expect(internal).toEqual([]);
    expect(exchanges.length).toBeGreaterThan(RUNS * 5);
    const secrets = [keys.a, keys.b, dataDir, tmpdir() + '/', ROOT, 'node_modules'];
    for (const secret of secrets) {
      // Echoing what the client itself sent is not a leak; anything else is.
      const leaks = exchanges.filter((e) => e.got.includes(secret) && !e.sent.includes(secret));
      expect(
        leaks.map((l) => `${l.sent.slice(0, 120)} → ${l.got.slice(0, 300)}`),
        `responses containing ${secret}`,
      ).toEqual([]);
      const logged = stderrLines.filter((l) => l.includes(secret));
      expect(logged, `stderr lines containing ${secret}`).toEqual([]);
    }
  });
});
