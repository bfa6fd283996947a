// The API client's JSON calls go over node:http (src/api/http-transport.ts), not undici: the
// failures it meets must come out as the same typed errors and words as before (errors.ts), the
// timeouts must fire on a stalled answer and a stalled body, an abort must pass through as the
// signal's reason, one connection must serve call after call, and HTTPS must work (a bare
// node:http / node:https server on 127.0.0.1 plays the service), for the downloads' GETs of
// signed URLs too (src/download/fetch.ts).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NetworkError, TimeoutError, classifyForRetry } from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { describeError } from '../../src/cli/error-messages.js';
import { cli, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

const KEY = 'cl_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const ONE_TRY = { attempts: 1, baseMs: 0, capMs: 0 };
const page = {
  items: [
    {
      id: 'a1',
      type: 'shortform',
      title: 'over tls',
      status: 'draft',
      thumbnailUrl: null,
      createdAt: '2026-01-01T00:00:00Z',
    },
  ],
  limit: 50,
  offset: 0,
  hasMore: false,
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end();
const sockets = new Set<unknown>();
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => handler(req, res));
});
server.on('connection', (s) => sockets.add(s));
let base = '';

const tls = {
  key: readFileSync(join(FIXTURES, 'tls/localhost.key')),
  cert: readFileSync(join(FIXTURES, 'tls/localhost.crt')),
};
/** A longform the TLS service holds, its bytes at /store/clip.mp4 (a signed URL's stand-in). */
const CLIP_ID = '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11';
const clip = randomBytes(3 * 1024 * 1024 + 5);
const clipItem = (base: string) => ({
  ...page.items[0]!,
  id: CLIP_ID,
  type: 'longform',
  title: 'clip',
  fileUrl: `${base}/store/clip.mp4?X-Amz-Signature=s`,
  fileSize: clip.length,
  fileName: 'clip.mp4',
  contentType: 'video/mp4',
  sha256: createHash('sha256').update(clip).digest('hex'),
});
const tlsServer = createTlsServer(tls, (req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url?.startsWith('/store/clip.mp4')) {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(clip.length) });
      return void res.end(clip);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === `/api/v1/content/${CLIP_ID}`) return void res.end(JSON.stringify({ item: clipItem(tlsBase) }));
    res.end(JSON.stringify(page));
  });
});
let tlsBase = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  tlsBase = `https://localhost:${(tlsServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  tlsServer.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => tlsServer.close(() => r()));
});

function client(extra: Partial<Parameters<typeof createApiClient>[0]> = {}) {
  return createApiClient({ baseUrl: base, apiKey: KEY, retry: NO_WAIT_RETRY, sleep: async () => {}, ...extra });
}

describe('the JSON calls over node:http', () => {
  it('sends a fresh request id each call, and reuses one connection for call after call', async () => {
    const seen: { method?: string; id?: string }[] = [];
    handler = (req, res) => {
      seen.push({ method: req.method, id: req.headers['x-request-id'] as string | undefined });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ revoked: true, id: 'k1' }));
    };
    sockets.clear();
    const c = client();
    for (let i = 0; i < 3; i++) await c.revokeKey('k1');
    await c.close();
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatchObject({ method: 'DELETE' });
    expect(new Set(seen.map((s) => s.id)).size).toBe(3);
    expect(sockets.size).toBe(1);
  });

  it('sends a JSON body with its length', async () => {
    let got: { type?: string; length?: string } | undefined;
    handler = (req, res) => {
      got = { type: req.headers['content-type'], length: req.headers['content-length'] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ item: page.items[0] }));
    };
    const c = client();
    await c.patch('a1', { title: 'é' });
    await c.close();
    expect(got?.type).toBe('application/json');
    expect(got?.length).toBe(String(Buffer.byteLength(JSON.stringify({ title: 'é' }))));
  });

  it('times out a body that stalls after the headers as TimeoutError, which is retried', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"items":'); // and nothing more
    };
    const c = client({ timeoutMs: 200, retry: ONE_TRY });
    const err = await c.list({}).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/got no answer within/);
    expect(classifyForRetry(err)).toMatchObject({ retry: true });
  });

  it('reports an answer cut off mid-body as a reset connection, an outage that is retried', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"items":', () => res.socket?.destroy());
    };
    const c = client({ retry: ONE_TRY });
    const err = await c.list({}).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ECONNRESET' });
    expect((err as Error).message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/content failed: connection reset$/);
    expect(classifyForRetry(err)).toEqual({ retry: true, outage: true });
  });

  it('passes an abort through as the signal’s reason, before and during a request', async () => {
    handler = () => {}; // never answers
    const c = client();
    const early = new AbortController();
    early.abort(new Error('stopped before'));
    await expect(c.list({}, { signal: early.signal })).rejects.toThrow('stopped before');
    const late = new AbortController();
    const pending = c.list({}, { signal: late.signal }).catch((e: unknown) => e);
    setTimeout(() => late.abort(new Error('stopped during')), 50);
    expect(await pending).toMatchObject({ message: 'stopped during' });
    await c.close();
  });

  it('names a host that does not resolve', async () => {
    const c = createApiClient({ baseUrl: 'http://no-such-host.invalid', apiKey: KEY, retry: ONE_TRY });
    const err = await c.list({}).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(NetworkError);
    // ENOTFOUND where a resolver answers; EAI_AGAIN where none can be reached.
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain((err as NetworkError).code);
    if ((err as NetworkError).code === 'ENOTFOUND')
      expect(describeError(err).message).toContain('Could not reach http://no-such-host.invalid: host not found');
  });

  it('speaks HTTPS, and refuses a certificate it cannot trust with TLS’s own words', async () => {
    const c = createApiClient({ baseUrl: tlsBase, apiKey: KEY, retry: ONE_TRY });
    const err = await c.list({}).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(
      /^GET https:\/\/localhost:\d+\/api\/v1\/content failed: self-signed certificate/,
    );
  });

  it('lists over HTTPS from the built command when the certificate is trusted (NODE_EXTRA_CA_CERTS)', async () => {
    const home = await tempHome();
    try {
      const r = await cli(home.dir, ['ls', '--json'], {
        env: {
          CONTENTLIB_BASE_URL: tlsBase,
          CONTENTLIB_API_KEY: KEY,
          NODE_EXTRA_CA_CERTS: join(FIXTURES, 'tls/localhost.crt'),
        },
      });
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject([{ id: 'a1', title: 'over tls' }]);
    } finally {
      await home.remove();
    }
  });

  it('downloads a file from an https URL with the built command, its SHA-256 checked', async () => {
    const home = await tempHome();
    const out = await mkdtemp(join(tmpdir(), 'contentlib-tls-'));
    try {
      const r = await cli(home.dir, ['download', CLIP_ID, '-o', out, '--json'], {
        env: {
          CONTENTLIB_BASE_URL: tlsBase,
          CONTENTLIB_API_KEY: KEY,
          NODE_EXTRA_CA_CERTS: join(FIXTURES, 'tls/localhost.crt'),
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(`"sha256":"${clipItem(tlsBase).sha256}"`);
      expect((await readFile(join(out, 'clip.mp4'))).equals(clip)).toBe(true);
    } finally {
      await home.remove();
      await rm(out, { recursive: true, force: true });
    }
  });
});
