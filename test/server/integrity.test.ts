// Storage integrity on the server side: what complete and PATCH check themselves (magic bytes,
// the video's own duration, thumbnails), what closes a presigned URL (completion, revocation),
// where signed URLs point (never the Host header), nesting limits, control characters, exact
// bodies, file modes, and a full disk answered with 507.
import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey, createApiKey } from '../../src/server/admin.js';
import { databasePath } from '../../src/server/repo/sqlite/db.js';
import { MAX_JSON_DEPTH } from '../../src/server/json-body.js';
import { rawRequest } from '../support/raw-http.js';
import * as srv from '../support/server.js';
import type { FileSpec, TestServer } from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await srv.serverWithKey()));
afterAll(async () => {
  await s.dispose();
});

const codeOf = (r: { body: unknown }) => (r.body as { error: { code: string } }).error.code;
const detailsOf = (r: { body: unknown }) =>
  (r.body as { error: { details: Array<Record<string, unknown>> } }).error.details;

async function putAndComplete(f: FileSpec, type: string, extra: Record<string, unknown> = {}) {
  const p = await srv.presign(s, key, f, { type });
  expect(p.status, p.text).toBe(200);
  expect((await srv.put(p.body.presignedUrl, f)).status).toBe(200);
  return { p, c: await srv.complete(s, key, p.body.key, f, type, extra) };
}

describe('the duration is the file’s', () => {
  it.each([
    ['a 95 s video sent as 10 s', 95, 10],
    ['a 10 s video sent as 95 s', 10, 95],
    ['a 10 s video sent as 10.6 s', 10, 10.6],
  ])('%s: 422 invalid_duration with both values', async (_name, real, claimed) => {
    const { c } = await putAndComplete(srv.video('lie.mp4', real), 'shortform', { durationSeconds: claimed });
    expect(c.status, c.text).toBe(422);
    expect(codeOf(c)).toBe('invalid_duration');
    expect(detailsOf(c)[0]).toMatchObject({ given: claimed, measured: real });
  });

  it('a client duration within 0.5 s is fine, and the file’s value is stored', async () => {
    const { c } = await putAndComplete(srv.video('close.mp4', 10), 'shortform', { durationSeconds: 10.4 });
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.durationSeconds).toBe(10);
  });

  it('the 3–90 s rule applies to what the file says, with or without a client value', async () => {
    const { c } = await putAndComplete(srv.video('long.mp4', 95), 'shortform');
    expect(c.status).toBe(422);
    expect(codeOf(c)).toBe('invalid_duration');
  });

  it('a file without a video track is refused (415 content_mismatch), whatever the client says', async () => {
    const bytes = srv.mp4(10);
    // The one hdlr says 'soun': an audio-only MP4.
    bytes.write('soun', bytes.indexOf('vide'), 'latin1');
    const { c } = await putAndComplete({ fileName: 'audio.mp4', contentType: 'video/mp4', bytes }, 'shortform', {
      durationSeconds: 10,
    });
    expect(c.status, c.text).toBe(415);
    expect(codeOf(c)).toBe('content_mismatch');
  });

  it('fileName at complete must be the presign’s', async () => {
    const f = srv.image('named.jpg');
    const p = await srv.presign(s, key, f);
    await srv.put(p.body.presignedUrl, f);
    const c = await srv.complete(s, key, p.body.key, { ...f, fileName: 'other.jpg' }, 'carousel');
    expect(c.status).toBe(400);
    expect(codeOf(c)).toBe('invalid_upload');
  });
});

describe('thumbnails are checked and closed', () => {
  it('PNG bytes declared as a JPEG thumbnail: 415 content_mismatch, nothing attached, the object removed', async () => {
    const { item } = await srv.uploadItem(s, key, srv.video('t.mp4', 10));
    const fake: FileSpec = { fileName: 'thumb.jpg', contentType: 'image/jpeg', bytes: srv.png(300) };
    const p = await srv.presign(s, key, fake, { thumbnail: true });
    expect((await srv.put(p.body.presignedUrl, fake)).status).toBe(200);
    const r = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, {
      key,
      json: { thumbnailKey: p.body.key },
    });
    expect(r.status).toBe(415);
    expect(codeOf(r)).toBe('content_mismatch');
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
    const got = await srv.call('GET', `${s.url}/api/v1/content/${item.id}`, { key });
    expect((got.body as { item: { thumbnailUrl: string | null } }).item.thumbnailUrl).toBeNull();
  });

  it('an attached thumbnail’s URL is closed: a second PUT is 403 upload_closed and changes nothing', async () => {
    const { item } = await srv.uploadItem(s, key, srv.video('t2.mp4', 10));
    const t = srv.image('t2.jpg', 400);
    const p = await srv.presign(s, key, t, { thumbnail: true });
    await srv.put(p.body.presignedUrl, t);
    const r = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, {
      key,
      json: { thumbnailKey: p.body.key },
    });
    expect(r.status).toBe(200);
    const swap = await srv.put(p.body.presignedUrl, srv.image('evil.jpg', 400));
    expect(swap.status).toBe(403);
    expect(codeOf(swap)).toBe('upload_closed');
    const served = await fetch((r.body as { item: { thumbnailUrl: string } }).item.thumbnailUrl);
    expect(Buffer.from(await served.arrayBuffer()).equals(t.bytes)).toBe(true);
  });
});

describe('presigned URLs', () => {
  it('a completed upload’s URL is closed: 403 upload_closed', async () => {
    const f = srv.image('done.jpg');
    const { p } = await putAndComplete(f, 'carousel');
    const again = await srv.put(p.body.presignedUrl, f);
    expect(again.status).toBe(403);
    expect(codeOf(again)).toBe('upload_closed');
  });

  it('revoking the key that presigned closes the URL', async () => {
    const created = await createApiKey(s.dataDir, 'acme');
    const f = srv.image('revoked.jpg');
    const p = await srv.presign(s, created.key, f);
    expect(await revokeApiKey(s.dataDir, created.id)).toBe(true);
    const r = await srv.put(p.body.presignedUrl, f);
    expect(r.status).toBe(403);
    expect(codeOf(r)).toBe('upload_closed');
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
  });

  it('signed URLs never come from the Host header', async () => {
    const port = Number(new URL(s.url).port);
    const body = JSON.stringify({ fileName: 'host.jpg', contentType: 'image/jpeg', fileSize: 256 });
    const a = await rawRequest(
      port,
      `POST /api/v1/upload/presign HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`,
      body,
    );
    expect(a.status).toBe(200);
    const url = (a.json as { presignedUrl: string }).presignedUrl;
    expect(url.startsWith(`${s.url}/storage/staging/`)).toBe(true);
    expect(a.raw).not.toContain('evil.example');
  });

  it('serve --public-url puts that base in every URL', async () => {
    const proxied = await srv.startTestServer({ publicUrl: 'https://media.example.com/cl' });
    try {
      const k = await proxied.key();
      const p = await srv.presign(proxied, k, srv.image());
      expect(p.body.presignedUrl.startsWith('https://media.example.com/cl/storage/staging/')).toBe(true);
    } finally {
      await proxied.dispose();
    }
  });
});

describe('request bodies', () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

  it.each([
    ['5000 deep in platformSettings', `{"platformSettings":{"x":${nested(5000)}}}`],
    ['33 deep', `{"platformSettings":{"x":${nested(MAX_JSON_DEPTH - 1)}}}`],
    ['arrays 1000 deep', `{"hashtags":${'['.repeat(1000)}${']'.repeat(1000)}}`],
  ])('a body nested %s is 400 invalid_request, nothing stored', async (_name, body) => {
    const { item } = await srv.uploadItem(s, key, srv.image('deep.jpg'));
    const r = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, {
      key,
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status, r.text).toBe(400);
    expect(codeOf(r)).toBe('invalid_request');
    const got = await srv.call('GET', `${s.url}/api/v1/content/${item.id}`, { key });
    expect((got.body as { item: { platformSettings: unknown } }).item.platformSettings).toEqual({});
  });

  it('nesting up to the limit is accepted, and brackets inside strings do not count', async () => {
    const { item } = await srv.uploadItem(s, key, srv.image('ok-depth.jpg'));
    const body = `{"title":"${'[{'.repeat(100)}","platformSettings":{"x":${nested(MAX_JSON_DEPTH - 2)}}}`;
    const r = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, {
      key,
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status, r.text).toBe(200);
  });

  it.each([
    ['NUL', 'a\u0000b.jpg'],
    ['a right-to-left override', 'gpj.\u202eexe.jpg'],
    ['an isolate', 'a\u2066b.jpg'],
    ['DEL', 'a\u007fb.jpg'],
    ['a newline', 'a\nb.jpg'],
  ])('a file name with %s is 400 at presign', async (_name, fileName) => {
    const r = await srv.presign(s, key, { ...srv.image(), fileName });
    expect(r.status).toBe(400);
    expect(codeOf(r)).toBe('invalid_request');
  });

  it('a title with control characters is 400', async () => {
    const { item } = await srv.uploadItem(s, key, srv.image('title.jpg'));
    const r = await srv.call('PATCH', `${s.url}/api/v1/content/${item.id}`, { key, json: { title: 'evil\u202etxt' } });
    expect(r.status).toBe(400);
  });

  it('a PUT body that runs past its Content-Length (Connection: close) stores nothing', async () => {
    const f = srv.image('long.jpg', 256);
    const p = await srv.presign(s, key, f);
    const u = new URL(p.body.presignedUrl);
    const a = await rawRequest(
      Number(u.port),
      `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: image/jpeg\r\nContent-Length: 256`,
      Buffer.concat([f.bytes, Buffer.from('and some more bytes after the body')]),
    );
    expect(a.status).toBeGreaterThanOrEqual(400);
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
    const c = await srv.complete(s, key, p.body.key, f, 'carousel');
    expect(c.status).toBe(400);
  });
});

describe('timeouts', () => {
  it('a PUT whose body stalls is cut off after the idle timeout, and stores nothing', async () => {
    const quick = await srv.startTestServer({ idleTimeoutMs: 300 });
    try {
      const k = await quick.key();
      const f = srv.image('stall.jpg', 4096);
      const p = await srv.presign(quick, k, f);
      const u = new URL(p.body.presignedUrl);
      const socket = connect(Number(u.port), '127.0.0.1');
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(
        `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: image/jpeg\r\nContent-Length: 4096\r\n\r\n`,
      );
      socket.write(f.bytes.subarray(0, 100));
      // Never sends the rest: the server, not this test, ends the connection.
      await closed;
      expect(await srv.uploadedSize(quick.storage, p.body)).toBeNull();
    } finally {
      await quick.dispose();
    }
  });
});

describe('at rest', () => {
  it('database, WAL and SHM are 0600; data folders 0700', async () => {
    const db = databasePath(s.dataDir);
    for (const file of [db, `${db}-wal`, `${db}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    for (const dir of ['objects', 'staging', 'tmp'])
      expect(statSync(join(s.dataDir, dir)).mode & 0o777, dir).toBe(0o700);
  });
});

describe('a full disk (injected write error)', () => {
  it('a PUT is answered 507 insufficient_storage while the body is still coming, and nothing is stored', async () => {
    const full = await srv.startTestServer({ writeError: 'ENOSPC' });
    try {
      const k = await full.key();
      const f = srv.image('full.jpg', 64 * 1024);
      const p = await srv.presign(full, k, f);
      const r = await srv.put(p.body.presignedUrl, f);
      expect(r.status).toBe(507);
      expect(codeOf(r)).toBe('insufficient_storage');
      expect(await srv.uploadedSize(full.storage, p.body)).toBeNull();
      expect((await readdir(join(full.dataDir, 'tmp'))).filter((n) => n.endsWith('.part'))).toEqual([]);
    } finally {
      await full.dispose();
    }
  });
});
