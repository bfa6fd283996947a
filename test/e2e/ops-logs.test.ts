// The log of a whole conformance-style run against `contentlib serve` (JSON lines on stderr):
// one line per request with its fields, and no API key, signature or URL query anywhere in it.
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogLine, type Served, serveWithKey } from '../support/ops.js';
import { FIXTURES } from '../support/paths.js';

const DEMO = join(FIXTURES, 'demo');

let s: Served;
/** Every signed URL the run saw; their signatures and queries must never be logged. */
const signedUrls: string[] = [];
/** Requests this test sent itself, by the x-request-id it gave them. */
const sentIds: string[] = [];

async function http(
  method: 'GET' | 'PUT' | 'POST',
  url: string,
  o: { body?: string; headers?: Record<string, string> } = {},
) {
  const id = `logs-test-${sentIds.length + 1}`;
  sentIds.push(id);
  const res = await request(url, { method, body: o.body, headers: { 'x-request-id': id, ...o.headers } });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

function collectUrls(text: string): void {
  for (const m of text.matchAll(/https?:\/\/[^\s"']+\?[^\s"']+/g)) signedUrls.push(m[0]);
}

beforeAll(async () => {
  s = await serveWithKey();
  const api = `${s.server.url}/api/v1`;
  const auth = { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' };

  // The CLI: a folder upload (videos and a carousel), list, show, edit, delete.
  const up = await s.cli(['upload', DEMO, '--json']);
  expect(up.exitCode).toBe(0);
  const listed = await s.cli(['ls', '--json']);
  collectUrls(listed.stdout);
  const items = JSON.parse(listed.stdout) as Array<{ id: string }>;
  expect(items.length).toBeGreaterThanOrEqual(3);
  const shown = await s.cli(['show', items[0]!.id, '--json']);
  collectUrls(shown.stdout);
  expect((await s.cli(['edit', items[0]!.id, '--title', 'Renamed'])).exitCode).toBe(0);
  expect((await s.cli(['rm', items[1]!.id, '--yes'])).exitCode).toBe(0);

  // By hand: a presigned PUT, a tampered one, signed GETs, a wrong key, a bad body.
  const presigned = await http('POST', `${api}/upload/presign`, {
    headers: auth,
    body: JSON.stringify({ fileName: 'x.jpg', contentType: 'image/jpeg', fileSize: 4 }),
  });
  collectUrls(presigned.text);
  const putUrl = (JSON.parse(presigned.text) as { presignedUrl: string }).presignedUrl;
  const tampered = putUrl.replace(/signature=(.)/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`);
  expect((await http('PUT', tampered, { body: 'abcd', headers: { 'content-type': 'image/jpeg' } })).status).toBe(403);
  expect((await http('PUT', putUrl, { body: 'abcd', headers: { 'content-type': 'image/jpeg' } })).status).toBe(200);
  for (const url of signedUrls.filter((u) => u.includes('/storage/')).slice(0, 4)) await http('GET', url);
  expect(
    (await http('GET', `${api}/content?search=secret-search`, { headers: { authorization: 'Bearer cl_wrong' } }))
      .status,
  ).toBe(401);
  expect((await http('POST', `${api}/upload/presign`, { headers: auth, body: '{' })).status).toBe(400);
  expect(signedUrls.length).toBeGreaterThan(3);
  // A line is written once its answer has gone out: wait for the last one to arrive.
  while (!s.logs().some((l) => l.requestId === sentIds.at(-1))) await new Promise((r) => setTimeout(r, 20));
});
afterAll(async () => s.dispose());

function requestLines(): LogLine[] {
  return s.logs().filter((l) => l.msg === 'request');
}

describe('the log of a whole run', () => {
  it('is JSON lines, one per request, each with its fields', async () => {
    const lines = requestLines();
    expect(lines.length).toBeGreaterThan(15);
    for (const line of lines) {
      expect(line).toMatchObject({ level: 'info' });
      expect(Object.keys(line)).toEqual(
        expect.arrayContaining([
          'time',
          'method',
          'route',
          'path',
          'status',
          'durationMs',
          'bytesIn',
          'bytesOut',
          'brandId',
          'keyId',
          'requestId',
        ]),
      );
      expect(typeof line.durationMs).toBe('number');
    }
    // Each request this test sent is there exactly once, under the id it gave.
    for (const id of sentIds) expect(lines.filter((l) => l.requestId === id)).toHaveLength(1);
    // Authenticated API calls name the brand and the key (its id, never the key); the PUT of a file names its size.
    const listing = lines.find((l) => l.route === '/api/v1/content' && l.status === 200);
    expect(listing?.brandId).toMatch(/^[0-9a-f-]{36}$/);
    expect(listing?.keyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.find((l) => l.route === '/storage/*')?.keyId).toBeNull();
    const put = lines.find((l) => l.requestId === sentIds[2]);
    expect(put).toMatchObject({ method: 'PUT', route: '/storage/*', status: 200, bytesIn: 4 });
    const refused = lines.find((l) => l.requestId === sentIds[1]);
    expect(refused).toMatchObject({ status: 403, errorCode: 'signature_mismatch' });
  });

  it('holds no key, no signature and no URL query', async () => {
    const log = s.server.stderr();
    expect(log).not.toContain(s.key);
    expect(log).not.toContain(s.key.slice(3, 20));
    expect(log).not.toContain('cl_wrong');
    expect(log).not.toMatch(/bearer/i);
    expect(log).not.toMatch(/signature=|expires=|X-Amz-/i);
    expect(log).not.toContain('secret-search');
    for (const url of signedUrls) {
      const query = new URL(url).search;
      expect(log).not.toContain(query.slice(1));
      const signature = new URL(url).searchParams.get('signature');
      if (signature) expect(log).not.toContain(signature);
    }
    for (const line of requestLines()) expect(String(line.path)).not.toContain('?');
  });
});
