// Multipart uploads on the disk store (an extension, docs/api.md "Multipart uploads"): parts in
// any order, a part retried, checked like a single PUT's file before promotion, re-presigned
// part URLs, the sweeper freeing abandoned parts, and spec clients that never see any of it.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onS3 } from '../support/backend.js';
import { startS3 } from '../support/s3rver.js';
import {
  type FileSpec,
  type TestServer,
  call,
  complete,
  mp4,
  presign,
  serverWithKey,
  stagingKeyOf,
  startTestServer,
  uploadedSize,
} from '../support/server.js';

const MIB = 1024 * 1024;

interface Parts {
  partSize: number;
  partCount: number;
  parts: { partNumber: number; url: string; headers: Record<string, string> }[];
  uploaded: { partNumber: number; size: number; etag: string }[];
}

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await serverWithKey()));
afterAll(() => s?.dispose());

const big = (name: string, bytes = mp4(30, { size: 20 * MIB + 5 })): FileSpec => ({
  fileName: name,
  contentType: 'video/mp4',
  bytes,
});

async function start(f: FileSpec) {
  const res = await presign(s, key, f, { multipart: true });
  expect(res.status).toBe(200);
  return res.body as typeof res.body & { multipart?: { partSize: number; partCount: number } };
}

async function partUrls(storageKey: string, partNumbers: number[]) {
  const res = await call<Parts>('POST', `${s.url}/api/v1/upload/parts`, {
    key,
    json: { key: storageKey, partNumbers },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function putPart(p: Parts['parts'][number], bytes: Buffer) {
  return call('PUT', p.url, { body: bytes, headers: { 'content-type': p.headers['Content-Type']! } });
}

const slice = (f: FileSpec, partSize: number, n: number) => f.bytes.subarray((n - 1) * partSize, n * partSize);

async function partDirs(): Promise<string[]> {
  return readdir(join(s.dataDir, 'parts')).catch(() => []);
}

describe.skipIf(onS3)('multipart uploads (disk store)', () => {
  it('is offered only when asked for, and only above the threshold', async () => {
    const spec = await presign(s, key, big('spec.mp4'));
    expect(spec.body).not.toHaveProperty('multipart');
    const small = await presign(s, key, big('small.mp4', mp4(30, { size: 2 * MIB })), { multipart: true });
    expect(small.body).not.toHaveProperty('multipart');
  });

  it('assembles parts sent out of order, one retried, to the exact bytes', async () => {
    const f = big('long.mp4');
    const p = await start(f);
    expect(p.multipart).toEqual({ partSize: 8 * MIB, partCount: 3 });
    const { parts } = await partUrls(p.key, [3, 1, 2]);
    const etags = new Map<number, string>();
    for (const part of parts) {
      if (part.partNumber === 1) {
        // A first attempt with other bytes, then the retry that replaces it.
        expect((await putPart(part, Buffer.alloc(8 * MIB, 1))).status).toBe(200);
      }
      const res = await putPart(part, slice(f, 8 * MIB, part.partNumber));
      expect(res.status).toBe(200);
      etags.set(part.partNumber, String(res.headers.etag));
    }
    const listed = await partUrls(p.key, []);
    expect(listed.uploaded.map((u) => [u.partNumber, u.size])).toEqual([
      [1, 8 * MIB],
      [2, 8 * MIB],
      [3, 4 * MIB + 5],
    ]);
    const done = await complete(s, key, p.key, f, 'shortform', {
      parts: [...etags].map(([partNumber, etag]) => ({ partNumber, etag })),
    });
    expect(done.status).toBe(200);
    const got = await fetch(done.body.item.fileUrl);
    expect(Buffer.from(await got.arrayBuffer()).equals(f.bytes)).toBe(true);
    expect(await partDirs()).not.toContain(p.fileId);
  });

  it('refuses wrong bytes at complete and promotes nothing', async () => {
    const f = big('bad.mp4', Buffer.alloc(20 * MIB + 5, 0x20));
    const p = await start(f);
    const { parts } = await partUrls(p.key, [1, 2, 3]);
    const etags = [];
    for (const part of parts) {
      const res = await putPart(part, slice(f, 8 * MIB, part.partNumber));
      etags.push({ partNumber: part.partNumber, etag: String(res.headers.etag) });
    }
    const done = await complete(s, key, p.key, f, 'shortform', { parts: etags });
    expect(done.status).toBe(415);
    expect(done.text).toMatch(/content_mismatch/);
    expect(await uploadedSize(s.storage, p)).toBeNull();
  });

  it('refuses a complete naming a missing part or a stale ETag, and assembles nothing', async () => {
    const f = big('partial.mp4');
    const p = await start(f);
    const { parts } = await partUrls(p.key, [1, 2]);
    const etags = [];
    for (const part of parts) {
      const res = await putPart(part, slice(f, 8 * MIB, part.partNumber));
      etags.push({ partNumber: part.partNumber, etag: String(res.headers.etag) });
    }
    const missing = await complete(s, key, p.key, f, 'shortform', { parts: [...etags, { partNumber: 3, etag: 'x' }] });
    expect(missing.status).toBe(400);
    expect(missing.text).toMatch(/part 3 was not uploaded whole/);
    const [third] = (await partUrls(p.key, [3])).parts;
    await putPart(third!, slice(f, 8 * MIB, 3));
    const stale = await complete(s, key, p.key, f, 'shortform', {
      parts: [{ ...etags[0]!, etag: '"stale"' }, etags[1]!, { partNumber: 3, etag: 'x' }],
    });
    expect(stale.status).toBe(400);
    expect(stale.text).toMatch(/part 1's ETag differs/);
    expect(await s.storage.head(stagingKeyOf(p.fileId))).toBeNull();
  });

  it('refuses a part of the wrong length and a tampered URL', async () => {
    const f = big('len.mp4');
    const p = await start(f);
    const [part] = (await partUrls(p.key, [1])).parts;
    const short = await putPart(part!, Buffer.alloc(100));
    expect([short.status, short.text]).toEqual([403, expect.stringMatching(/content_length_mismatch/)]);
    const tampered = await putPart({ ...part!, url: part!.url.replace(/\/1\?/, '/2?') }, slice(f, 8 * MIB, 2));
    expect([tampered.status, tampered.text]).toEqual([403, expect.stringMatching(/signature_mismatch/)]);
    expect((await partUrls(p.key, [])).uploaded).toEqual([]);
  });

  it('re-presigns an expired part URL', async () => {
    const f = big('late.mp4');
    const p = await start(f);
    const [old] = (await partUrls(p.key, [1])).parts;
    s.clock.advance(3601_000);
    try {
      const late = await putPart(old!, slice(f, 8 * MIB, 1));
      expect(late.status).toBe(403);
      expect(late.text).toMatch(/expired/);
      const [fresh] = (await partUrls(p.key, [1])).parts;
      expect((await putPart(fresh!, slice(f, 8 * MIB, 1))).status).toBe(200);
    } finally {
      s.clock.advance(-3601_000);
    }
  });

  it('the sweeper frees the parts of an abandoned upload', async () => {
    const f = big('gone.mp4');
    const p = await start(f);
    const [part] = (await partUrls(p.key, [1])).parts;
    expect((await putPart(part!, slice(f, 8 * MIB, 1))).status).toBe(200);
    expect(await partDirs()).toContain(p.fileId);
    s.clock.advance(3 * 3600_000);
    try {
      await s.sweep();
      expect(await partDirs()).not.toContain(p.fileId);
      expect((await call('POST', `${s.url}/api/v1/upload/parts`, { key, json: { key: p.key } })).status).toBe(400);
    } finally {
      s.clock.advance(-3 * 3600_000);
    }
  });
});

describe('multipart uploads on an S3 store (not offered yet)', () => {
  it('answers presign with the single PUT only, and /upload/parts as unknown', async () => {
    const s3 = await startS3();
    let t: TestServer | undefined;
    try {
      await s3.createBucket('parts');
      t = await startTestServer({
        storageUrl: 's3://parts/library',
        s3: { endpoint: s3.endpoint, region: 'us-east-1', credentials: s3.credentials },
        clock: 'real',
      });
      const k = await t.key('acme');
      const p = await presign(t, k, big('s3.mp4'), { multipart: true });
      expect(p.status).toBe(200);
      expect(p.body).not.toHaveProperty('multipart');
      const parts = await call('POST', `${t.url}/api/v1/upload/parts`, { key: k, json: { key: p.body.key } });
      expect(parts.status).toBe(400);
      expect(await s3.listKeys('parts')).toEqual([]);
    } finally {
      await t?.dispose();
      await s3.stop();
    }
  });
});
