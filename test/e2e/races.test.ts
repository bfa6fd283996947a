// Races against a real `contentlib serve`, driven over raw sockets with deterministic
// interleavings: a PUT is sent but for its last byte (and the server is seen receiving it),
// then complete, DELETE or PATCH runs, then the last byte goes. Whatever the order, an item
// serves exactly the bytes that were checked, a late PUT stores nothing (403 upload_closed),
// and after a restart (which sweeps) no object is left without a row, nor a row without its
// object. Then 50 PATCHes racing DELETEs: 200 or 404, never a 500.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { type Answer, http, query } from '../support/http.js';
import { type RawAnswer, parseResponse } from '../support/raw-http.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { type FileSpec, image, jpeg, video } from '../support/server.js';

let root: string;
let dataDir: string;
let server: ServeProcess;
let apiKey: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'contentlib-races-'));
  dataDir = join(root, 'data');
  apiKey = (await createApiKey(dataDir, 'acme')).key;
  server = await startServe(dataDir, join(root, 'home'));
});

afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

interface Presigned {
  presignedUrl: string;
  key: string;
  fileId: string;
  type: string;
}

async function presign(f: FileSpec, extra: Record<string, unknown> = {}): Promise<Presigned> {
  const a = await http('POST', `${server.url}/api/v1/upload/presign`, {
    key: apiKey,
    json: { fileName: f.fileName, contentType: f.contentType, fileSize: f.bytes.length, ...extra },
  });
  expect(a.status, a.text).toBe(200);
  return a.json as Presigned;
}

async function putWhole(p: Presigned, f: FileSpec): Promise<Answer> {
  return http('PUT', p.presignedUrl, { body: f.bytes, headers: { 'content-type': f.contentType } });
}

async function complete(p: Presigned, f: FileSpec): Promise<Answer> {
  return http('POST', `${server.url}/api/v1/upload/complete`, {
    key: apiKey,
    json: { key: p.key, fileName: f.fileName, contentType: f.contentType, fileSize: f.bytes.length, type: p.type },
  });
}

/** `.part` files being received right now. */
async function receiving(): Promise<number> {
  return (await readdir(join(dataDir, 'tmp'))).filter((n) => n.endsWith('.part')).length;
}

/**
 * A PUT of `bytes` whose last byte is held back until `finish()`. Resolves once the server is
 * receiving it (its `.part` file exists), so what runs next runs while the PUT is in flight.
 */
async function heldPut(url: string, contentType: string, bytes: Buffer): Promise<{ finish(): Promise<RawAnswer> }> {
  const before = await receiving();
  const u = new URL(url);
  const socket = connect(Number(u.port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(bytes.subarray(0, bytes.length - 1));
  for (let i = 0; (await receiving()) <= before; i++) {
    if (i > 400) throw new Error('the server never started receiving the held PUT');
    await delay(10);
  }
  return {
    async finish() {
      socket.write(bytes.subarray(bytes.length - 1));
      await closed;
      return parseResponse(Buffer.concat(chunks).toString('latin1'));
    },
  };
}

async function fetchBytes(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A JPEG of `size` bytes that differs from jpeg(size): same magic, other filler. */
function otherJpeg(size: number): Buffer {
  const b = jpeg(size);
  b.fill(0x41, 12, size - 2);
  return b;
}

const CLOSED = 'upload_closed';

describe('a PUT in flight', () => {
  it('when complete runs: the item serves the checked bytes; the late body stores nothing', async () => {
    const f = video('race-complete.mp4', 10);
    const p = await presign(f);
    expect((await putWhole(p, f)).status).toBe(200);
    const html = Buffer.alloc(f.bytes.length, '<html>');
    const late = await heldPut(p.presignedUrl, f.contentType, html);
    const c = await complete(p, f);
    expect(c.status, c.text).toBe(200);
    const answer = await late.finish();
    expect(answer.status).toBe(403);
    expect((answer.json as { error: { code: string } }).error.code).toBe(CLOSED);
    const item = (c.json as { item: { fileUrl: string } }).item;
    expect((await fetchBytes(item.fileUrl)).equals(f.bytes)).toBe(true);
  });

  it('when complete runs on the first PUT still in flight: nothing to check yet, and the URL closes after', async () => {
    const f = image('first-in-flight.jpg', 4096);
    const p = await presign(f);
    const first = await heldPut(p.presignedUrl, f.contentType, f.bytes);
    const early = await complete(p, f);
    expect(early.status).toBe(400);
    expect((await first.finish()).status).toBe(200);
    const c = await complete(p, f);
    expect(c.status, c.text).toBe(200);
    expect((await fetchBytes((c.json as { item: { fileUrl: string } }).item.fileUrl)).equals(f.bytes)).toBe(true);
    const again = await putWhole(p, { ...f, bytes: otherJpeg(4096) });
    expect(again.status).toBe(403);
    expect((again.json as { error: { code: string } }).error.code).toBe(CLOSED);
  });

  it('when the item is DELETEd: the late body is refused and leaves nothing', async () => {
    const f = image('race-delete.jpg', 4096);
    const p = await presign(f);
    expect((await putWhole(p, f)).status).toBe(200);
    const late = await heldPut(p.presignedUrl, f.contentType, otherJpeg(4096));
    const c = await complete(p, f);
    const id = (c.json as { contentItemId: string }).contentItemId;
    expect((await http('DELETE', `${server.url}/api/v1/content/${id}`, { key: apiKey })).status).toBe(200);
    expect((await late.finish()).status).toBe(403);
    expect(query(dataDir, 'SELECT key FROM uploads WHERE file_id = ?', p.fileId)).toEqual([]);
  });

  it('when PATCH attaches it as a thumbnail: the thumbnail serves the checked bytes', async () => {
    const v = video('race-thumb.mp4', 10);
    const pv = await presign(v);
    await putWhole(pv, v);
    const item = ((await complete(pv, v)).json as { contentItemId: string }).contentItemId;
    const t = image('thumb.jpg', 2048);
    const pt = await presign(t, { thumbnail: true });
    expect((await putWhole(pt, t)).status).toBe(200);
    const late = await heldPut(pt.presignedUrl, t.contentType, otherJpeg(2048));
    const patched = await http('PATCH', `${server.url}/api/v1/content/${item}`, {
      key: apiKey,
      json: { thumbnailKey: pt.key },
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await late.finish()).status).toBe(403);
    const thumbnailUrl = (patched.json as { item: { thumbnailUrl: string } }).item.thumbnailUrl;
    expect((await fetchBytes(thumbnailUrl)).equals(t.bytes)).toBe(true);
  });
});

describe('PATCH racing DELETE', () => {
  it('50 times: every PATCH answers 200 or 404, every DELETE 200 or 404, never a 500', async () => {
    for (let i = 0; i < 50; i++) {
      const f = image(`pd-${i}.jpg`, 512);
      const p = await presign(f);
      await putWhole(p, f);
      const id = ((await complete(p, f)).json as { contentItemId: string }).contentItemId;
      const t = image(`pd-thumb-${i}.jpg`, 512);
      const pt = await presign(t, { thumbnail: true });
      await putWhole(pt, t);
      const [patched, deleted] = await Promise.all([
        http('PATCH', `${server.url}/api/v1/content/${id}`, { key: apiKey, json: { thumbnailKey: pt.key } }),
        http('DELETE', `${server.url}/api/v1/content/${id}`, { key: apiKey }),
      ]);
      expect([200, 404], patched.text).toContain(patched.status);
      expect([200, 404], deleted.text).toContain(deleted.status);
    }
    expect(server.stderr()).not.toContain('internal error');
  });
});

describe('after a restart (which sweeps)', () => {
  it('no object without a row, no row without its object, no staging object of a closed upload', async () => {
    await server.stop();
    server = await startServe(dataDir, join(root, 'home'));
    // The sweep at start runs beside the first requests: wait for its staging pass to be done.
    const openIds = () =>
      new Set(
        query<{ file_id: string }>(
          dataDir,
          'SELECT file_id FROM uploads WHERE completed_at IS NULL AND item_id IS NULL',
        ).map((r) => r.file_id),
      );
    const strays = async () => (await readdir(join(dataDir, 'staging'))).filter((n) => !openIds().has(n));
    for (let i = 0; i < 200 && (await strays()).length > 0; i++) await delay(25);
    const rows = query<{ key: string; file_id: string; completed_at: string | null; item_id: string | null }>(
      dataDir,
      'SELECT key, file_id, completed_at, item_id FROM uploads',
    );
    const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');
    const known = new Set(rows.map((r) => hashOf(r.key)));
    const objects: string[] = [];
    for (const dir of await readdir(join(dataDir, 'objects')))
      objects.push(...(await readdir(join(dataDir, 'objects', dir))));
    for (const name of objects) expect(known.has(name), `object ${name} has no row`).toBe(true);

    const referenced = query<{ key: string }>(
      dataDir,
      `SELECT file_key AS key FROM items UNION SELECT thumbnail_key FROM items WHERE thumbnail_key IS NOT NULL
       UNION SELECT file_key FROM carousel_files`,
    );
    const present = new Set(objects);
    for (const r of referenced) expect(present.has(hashOf(r.key)), `row ${r.key} has no object`).toBe(true);

    const open = new Set(rows.filter((r) => !r.completed_at && !r.item_id).map((r) => r.file_id));
    for (const name of await readdir(join(dataDir, 'staging')))
      expect(open.has(name), `staging object ${name} of a closed upload`).toBe(true);
  });
});
