// The client against answers our server never gives but the world does: an S3 XML error, an HTML
// page from a proxy, an empty 502, a stalled answer, a closed port, a lost DELETE answer. A bare
// node:http server on 127.0.0.1 plays that part; the happy paths run against the real server in
// the end-to-end tests.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import {
  ApiError,
  NetworkError,
  StorageError,
  TimeoutError,
  UnexpectedResponseError,
  classifyForRetry,
  errorFromResponse,
  redactKey,
} from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { describeError } from '../../src/cli/error-messages.js';
import { EXIT } from '../../src/cli/errors.js';
import { listenLocal } from '../support/listen.js';

const KEY = 'cl_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;
let handler: Handler = (_req, res) => res.end();
let hits = 0;
let seenAuth: string | undefined;
const server = createServer((req, res) => {
  seenAuth = req.headers.authorization;
  req.resume();
  req.on('end', () => handler(req, res, hits++));
});
let base = '';
let close: () => Promise<void>;
beforeAll(async () => ({ url: base, close } = await listenLocal(server)));
afterAll(() => close());

function client(extra: Partial<Parameters<typeof createApiClient>[0]> = {}) {
  hits = 0;
  return createApiClient({ baseUrl: `${base}/`, apiKey: KEY, retry: NO_WAIT_RETRY, sleep: async () => {}, ...extra });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const item = {
  id: 'a1',
  type: 'shortform',
  title: 't',
  status: 'draft',
  thumbnailUrl: null,
  createdAt: '2026-01-01T00:00:00Z',
  extra: 1,
};

describe('api client', () => {
  it('knows the brand only from a service that says it (our Content-Library-Brand header, an extension)', async () => {
    handler = (_req, res) => json(res, 200, { items: [], limit: 1, offset: 0, hasMore: false });
    const plain = client();
    await plain.list({ limit: 1 });
    expect(plain.reportedBrand()).toBeUndefined();
    await plain.close();
    handler = (_req, res) =>
      json(
        res,
        200,
        { items: [], limit: 1, offset: 0, hasMore: false },
        { 'content-library-brand': 'Caf%C3%A9%20Acme' },
      );
    const ours = client();
    await ours.list({ limit: 1 });
    expect(ours.reportedBrand()).toBe('Café Acme');
    await ours.close();
  });

  it('sends the bearer key, parses a list and keeps extra fields', async () => {
    handler = (req, res) => {
      expect(req.url).toBe('/api/v1/content?status=draft&limit=2');
      json(res, 200, { items: [item], limit: 2, offset: 0, hasMore: false });
    };
    const c = client();
    const page = await c.list({ status: 'draft', limit: 2 });
    expect(seenAuth).toBe(`Bearer ${KEY}`);
    expect(page.items[0]).toMatchObject({ id: 'a1', extra: 1 });
    await c.close();
  });

  it('turns our JSON error body into ApiError, and a 404 is not retried', async () => {
    handler = (_req, res) => json(res, 404, { error: { code: 'not_found', message: 'No such item' } });
    const c = client();
    const err = await c.get('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', method: 'GET' });
    expect(hits).toBe(1);
    const d = describeError(err);
    expect(d.exitCode).toBe(EXIT.notFound);
    expect(d.message).toContain("Item nope is not in this brand's library");
    await c.close();
  });

  it('maps a 401 to exit 4 naming the base URL and how to log in, never the key', async () => {
    handler = (_req, res) =>
      json(res, 401, { error: { code: 'unauthorized', message: 'Unknown API key' } }, { 'www-authenticate': 'Bearer' });
    const c = client();
    const err = await c.list({}).catch((e: unknown) => e);
    const d = describeError(err);
    expect(d.exitCode).toBe(EXIT.auth);
    expect(d.message).toContain(`${base} rejected the API key`);
    expect(d.message).toContain('contentlib login');
    expect(d.message).not.toContain(KEY.slice(3, 12));
    await c.close();
  });

  it('retries 503 and 429 (with Retry-After) until success', async () => {
    const waits: number[] = [];
    handler = (_req, res, hit) => {
      if (hit === 0) return json(res, 503, { error: { code: 'internal', message: 'busy' } });
      if (hit === 1)
        return json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '7' });
      json(res, 200, { item, files: [] });
    };
    const c = client({ sleep: async (ms) => void waits.push(ms) });
    const got = await c.get('a1');
    expect(got.item.id).toBe('a1');
    expect(hits).toBe(3);
    expect(waits[1]).toBe(7000);
    await c.close();
  });

  it('reads an S3 XML error as StorageError', () => {
    const xml =
      '<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>The signature &amp; key differ</Message></Error>';
    const err = errorFromResponse(403, {}, xml, 'PUT', 'https://bucket.s3.example.com/u/f/a.mp4?sig=1');
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ code: 'SignatureDoesNotMatch', message: 'The signature & key differ', status: 403 });
    expect(classifyForRetry(err)).toEqual({ retry: false });
    expect(describeError(err).message).toContain('Object storage refused the upload');
  });

  it('reads our JSON storage error on a storage URL as StorageError', () => {
    const err = errorFromResponse(
      403,
      {},
      JSON.stringify({ error: { code: 'expired', message: 'URL expired' } }),
      'PUT',
      'http://127.0.0.1:1/storage/u/f/a.mp4?expires=1',
    );
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ code: 'expired' });
  });

  it('turns an HTML page from a proxy into UnexpectedResponseError, retried when 5xx', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body>Bad gateway</body></html>');
    };
    const c = client();
    const err = await c.list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect((err as Error).message).toContain('an HTML page');
    expect(hits).toBe(NO_WAIT_RETRY.attempts);
    expect(describeError(err).exitCode).toBe(EXIT.failure);
    await c.close();
  });

  it('turns an empty 200 or a wrong shape into UnexpectedResponseError', async () => {
    handler = (_req, res) => res.end('');
    const c = client();
    await expect(c.list({})).rejects.toBeInstanceOf(UnexpectedResponseError);
    handler = (_req, res) => json(res, 200, { nothing: true });
    await expect(c.list({})).rejects.toThrow(/unexpected shape/);
    await c.close();
  });

  it('times out a stalled answer as TimeoutError', async () => {
    handler = () => {}; // never answers
    const c = client({ timeoutMs: 200, retry: { attempts: 1, baseMs: 0, capMs: 0 } });
    const err = await c.get('a1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    await c.close();
  });

  it('reports a refused connection as NetworkError with a useful message', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const c = createApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      retry: NO_WAIT_RETRY,
      sleep: async () => {},
    });
    const err = await c.list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED' });
    const d = describeError(err);
    expect(d.message).toContain(`Could not reach http://127.0.0.1:${port}: connection refused`);
    expect(d.message).toContain('--embedded');
    await c.close();
  });

  it('counts a DELETE as done when its retry after a lost answer finds the item gone', async () => {
    handler = (req, res, hit) => {
      expect(req.method).toBe('DELETE');
      if (hit === 0) return req.socket.destroy(); // the delete happened, the answer was lost
      json(res, 404, { error: { code: 'not_found', message: 'No such item' } });
    };
    const c = client();
    await expect(c.remove('a1')).resolves.toEqual({ deleted: true });
    expect(hits).toBe(2);
    // Without a lost answer, a 404 stays a 404.
    handler = (_req, res) => json(res, 404, { error: { code: 'not_found', message: 'No such item' } });
    await expect(c.remove('a1')).rejects.toBeInstanceOf(ApiError);
    await c.close();
  });

  it('traces requests with the key redacted', async () => {
    const lines: string[] = [];
    handler = (_req, res) => json(res, 200, { items: [], limit: 50, offset: 0, hasMore: false });
    const c = client({ trace: (l) => lines.push(l) });
    await c.list({});
    expect(lines.join('\n')).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/content/);
    expect(lines.join('\n')).toMatch(/← 200 GET .* in \d+ ms/);
    expect(lines.join('\n')).not.toContain(KEY);
    await c.close();
  });

  it('redacts keys to their first 7 characters', () => {
    expect(redactKey(KEY)).toBe('cl_abcd…');
    expect(redactKey('short')).toBe('…');
  });
});
