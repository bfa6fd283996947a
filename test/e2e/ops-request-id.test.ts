// Request ids from `contentlib serve` to the CLI and back: the id a CLI error quotes is the one
// on the server's log line; --verbose shows the id of each call; incoming ids are kept when safe.
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serveWithKey } from '../support/ops.js';

let s: Served;
beforeAll(async () => {
  s = await serveWithKey();
});
afterAll(async () => s.dispose());

async function lineOf(requestId: string) {
  await expect.poll(() => s.logs().some((l) => l.requestId === requestId)).toBe(true);
  return s.logs().find((l) => l.requestId === requestId)!;
}

describe('request ids', () => {
  it('a CLI error quotes the request id that the server logged for the failing call', async () => {
    const id = randomUUID();
    const r = await s.cli(['show', id]);
    expect(r.exitCode).toBe(5);
    const quoted = /Request id: (\S+) \(quote it when reporting the problem\)/.exec(r.stderr)?.[1];
    expect(quoted).toBeDefined();
    expect(await lineOf(quoted!)).toMatchObject({
      method: 'GET',
      route: '/api/v1/content/:id',
      path: `/api/v1/content/${id}`,
      status: 404,
      errorCode: 'not_found',
    });
  });

  it('a refused request (400): the id is in the message beside the status and code', async () => {
    const r = await s.cli(['ls', '--offset', '99999999999999999999']);
    expect(r.exitCode).toBe(1);
    const quoted = /\(400 invalid_request, request id (\S+)\)/.exec(r.stderr)?.[1];
    expect(quoted).toBeDefined();
    // Quoted once, not again among the detail lines.
    expect(r.stderr.split(quoted!).length).toBe(2);
    expect(await lineOf(quoted!)).toMatchObject({
      route: '/api/v1/content',
      status: 400,
      errorCode: 'invalid_request',
    });
  });

  it('a rejected key (401): the id on a line of its own', async () => {
    const r = await s.cli(['ls'], { CONTENTLIB_API_KEY: `cl_${'x'.repeat(43)}` });
    expect(r.exitCode).toBe(4);
    const quoted = /Request id: (\S+) \(quote it/.exec(r.stderr)?.[1];
    expect(await lineOf(quoted!)).toMatchObject({ status: 401, errorCode: 'unauthorized', brandId: null });
  });

  it('--verbose shows each call with the id it sent and the id the server answered (the same: kept)', async () => {
    const r = await s.cli(['ls', '--verbose']);
    expect(r.exitCode).toBe(0);
    const sent = [...r.stderr.matchAll(/→ GET \S+ \(.*x-request-id (\S+)\)/g)].map((m) => m[1]);
    const answered = [...r.stderr.matchAll(/← 200 GET \S+ in \d+ ms \(request id (\S+)\)/g)].map((m) => m[1]);
    expect(sent.length).toBeGreaterThan(0);
    expect(answered).toEqual(sent);
    expect((await lineOf(sent[0]!)).status).toBe(200);
  });

  it('an incoming id is kept when safe to log, replaced when not; every answer carries one', async () => {
    const kept = await request(`${s.server.url}/healthz`, { headers: { 'x-request-id': 'lb-7f3a:2' } });
    await kept.body.dump();
    expect(kept.headers['x-request-id']).toBe('lb-7f3a:2');
    const unsafe = await request(`${s.server.url}/api/v1/content`, {
      headers: { 'x-request-id': 'forged" "level":"error', authorization: `Bearer ${s.key}` },
    });
    await unsafe.body.dump();
    expect(unsafe.statusCode).toBe(200);
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.server.stderr()).not.toContain('forged');
  });
});
