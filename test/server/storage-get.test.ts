// The disk store's GET and HEAD of a stored file over HTTP: ranges (what a browser sends to
// play and seek a video), validators, and the headers that make a browser show, not sniff, a
// file. The decision itself is a table in test/server/file-answer.test.ts. Disk only: on S3
// the store answers these itself.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, readlink, rm } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, ftyp, mvhd0, trak, u32, u64 } from '../support/mp4-boxes.js';
import { FIXTURES } from '../support/paths.js';
import { type TestServer, serverWithKey, uploadItem } from '../support/server.js';

let s: TestServer;
let key: string;
let bytes: Buffer;
let fileUrl: string;

beforeAll(async () => {
  ({ s, key } = await serverWithKey());
  bytes = await readFile(join(FIXTURES, 'video', 'clip-5s.mp4'));
  const done = await uploadItem(
    s,
    key,
    { fileName: 'Summer café "clip".mp4', contentType: 'video/mp4', bytes },
    { type: 'shortform' },
  );
  fileUrl = done.item.fileUrl;
});
afterAll(async () => s.dispose());

/** A real MP4 head, then a 64-bit mdat box of random bytes: every byte differs from its neighbours. */
function randomMp4(size: number): Buffer {
  const head = Buffer.concat([ftyp, box('moov', mvhd0(1000, 5000), trak)]);
  const mdatHead = Buffer.concat([u32(1), Buffer.from('mdat'), u64(BigInt(size - head.length))]);
  return Buffer.concat([head, mdatHead, randomBytes(size - head.length - mdatHead.length)]);
}

async function get(headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await request(fileUrl, { method, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

describe('GET of a stored file', () => {
  it('without Range: the whole file, saying ranges are accepted', async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.equals(bytes)).toBe(true);
    expect(r.headers).toMatchObject({
      'accept-ranges': 'bytes',
      'content-length': String(bytes.length),
      'content-type': 'video/mp4',
      'x-content-type-options': 'nosniff',
    });
    expect(r.headers.etag).toMatch(/^"[^"]+"$/);
    expect(r.headers['content-disposition']).toBe(
      `inline; filename="Summer caf? \\"clip\\".mp4"; filename*=UTF-8''Summer%20caf%C3%A9%20%22clip%22.mp4`,
    );
  });

  it('the first bytes', async () => {
    const r = await get({ range: 'bytes=0-99' });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 0-99/${bytes.length}`);
    expect(r.headers['content-length']).toBe('100');
    expect(r.body.equals(bytes.subarray(0, 100))).toBe(true);
  });

  it('a middle range', async () => {
    const r = await get({ range: 'bytes=1000-1999' });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(r.body.equals(bytes.subarray(1000, 2000))).toBe(true);
  });

  it('an open range, as a browser seeking asks for it', async () => {
    const from = bytes.length - 300;
    const r = await get({ range: `bytes=${from}-` });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${from}-${bytes.length - 1}/${bytes.length}`);
    expect(r.body.equals(bytes.subarray(from))).toBe(true);
  });

  it('a suffix range: the last bytes', async () => {
    const r = await get({ range: 'bytes=-500' });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${bytes.length - 500}-${bytes.length - 1}/${bytes.length}`);
    expect(r.body.equals(bytes.subarray(bytes.length - 500))).toBe(true);
  });

  it('an unsatisfiable range: 416 with the size, no bytes', async () => {
    const r = await get({ range: `bytes=${bytes.length}-` });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(r.body.length).toBe(0);
  });

  it('HEAD: the same headers, no body', async () => {
    const head = await get({}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(bytes.length));
    expect(head.headers['accept-ranges']).toBe('bytes');
    const ranged = await get({ range: 'bytes=0-9' }, 'HEAD');
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 0-9/${bytes.length}`);
  });

  it('GET writes exactly the headers HEAD answers (its body is sent without Fastify: send-file.ts)', async () => {
    // What differs between any two answers, or by method: the time, the request, the connection
    // (undici asks for a HEAD's to be closed).
    const strip = ({
      date: _date,
      'x-request-id': _id,
      connection: _connection,
      'keep-alive': _keepAlive,
      ...rest
    }: Record<string, unknown>) => rest;
    for (const range of [undefined, 'bytes=10-99']) {
      const headers: Record<string, string> = range ? { range } : {};
      const [got, head] = [await get(headers), await get(headers, 'HEAD')];
      expect(strip(got.headers)).toEqual(strip(head.headers));
      expect(Object.keys(got.headers).sort()).toEqual(
        expect.arrayContaining(['content-length', 'content-type', 'etag', 'x-content-type-options']),
      );
    }
  });

  it('ETag: If-None-Match of it is 304; If-Range of it keeps the range, of another sends the whole file', async () => {
    const { headers } = await get({}, 'HEAD');
    const etag = String(headers.etag);
    expect((await get({ 'if-none-match': etag })).status).toBe(304);
    expect((await get({ range: 'bytes=0-9', 'if-range': etag })).status).toBe(206);
    const stale = await get({ range: 'bytes=0-9', 'if-range': '"an-old-version"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(bytes.length);
  });

  it('a bad signature is still refused, ranged or not, before any byte', async () => {
    const forged = fileUrl.replace(/signature=(.)/, (_m, d: string) => `signature=${d === '0' ? '1' : '0'}`);
    const res = await request(forged, { headers: { range: 'bytes=0-9' } });
    expect(res.statusCode).toBe(403);
    await res.body.text();
  });
});

describe('GET of a file of several MiB (sent through two reused 1 MiB buffers)', () => {
  let big: Buffer;
  let bigUrl: string;

  beforeAll(async () => {
    big = randomMp4(5.5 * 1024 * 1024);
    const done = await uploadItem(
      s,
      key,
      { fileName: 'big.mp4', contentType: 'video/mp4', bytes: big },
      { type: 'shortform' },
    );
    bigUrl = done.item.fileUrl;
  });

  it('every byte, whole and in ranges that cross the reads', async () => {
    const whole = await request(bigUrl);
    expect(Buffer.from(await whole.body.arrayBuffer()).equals(big)).toBe(true);
    for (const [from, to] of [
      [1000, 3 * 1024 * 1024 + 7],
      [1024 * 1024 - 1, 1024 * 1024],
      [big.length - 3, big.length - 1],
    ] as const) {
      const res = await request(bigUrl, { headers: { range: `bytes=${from}-${to}` } });
      expect(res.statusCode).toBe(206);
      expect(Buffer.from(await res.body.arrayBuffer()).equals(big.subarray(from, to + 1))).toBe(true);
    }
  });

  it('a client that leaves mid-file: the server closes the file', async () => {
    const objects = join(s.dataDir, 'objects');
    const openObjects = async () => {
      const fds = await readdir('/proc/self/fd');
      const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return targets.filter((t) => t.startsWith(objects)).length;
    };
    const before = await openObjects();
    const socket = net.connect(Number(new URL(bigUrl).port), '127.0.0.1');
    const url = new URL(bigUrl);
    socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    // The head and some of the body, then the client goes without reading the rest.
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    expect(await openObjects()).toBe(before + 1);
    socket.destroy();
    await expect.poll(openObjects, { timeout: 5000 }).toBe(before);
  });
});

describe('GET of a stored file that cannot be read', () => {
  /** The object file in the data dir whose bytes are `bytes`. */
  async function objectFile(bytes: Buffer): Promise<string> {
    const objects = join(s.dataDir, 'objects');
    for (const sub of await readdir(objects)) {
      for (const name of await readdir(join(objects, sub))) {
        const path = join(objects, sub, name);
        if ((await readFile(path)).equals(bytes)) return path;
      }
    }
    throw new Error('the uploaded file is not in the data dir');
  }

  it('failing at its first read (a directory where the file was: it opens, every read fails): 500 internal, no cut transfer; the server serves on', async () => {
    const mine = randomMp4(64 * 1024);
    const done = await uploadItem(
      s,
      key,
      { fileName: 'gone.mp4', contentType: 'video/mp4', bytes: mine },
      { type: 'shortform' },
    );
    const path = await objectFile(mine);
    await rm(path);
    await mkdir(path);
    for (const headers of [{}, { range: 'bytes=0-9' }]) {
      const res = await request(done.item.fileUrl, { headers });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['content-range']).toBeUndefined();
      const body = (await res.body.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('internal');
      expect(body.error.message).toBe(
        'the server could not read this file; try again, and report it if it keeps happening',
      );
    }
    // Other files are still served, whole.
    const other = await request(fileUrl);
    expect(Buffer.from(await other.body.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
