// Content identity (docs/api.md, Checksums): every stored file's SHA-256, declared at presign and
// verified before it is promoted; the "do you already have these?" check, scoped to the brand; and
// the sweeper filling in files stored before checksums were kept. Runs on SQLite + disk and on
// PostgreSQL + S3 (RGW 16.2, which verifies no checksum: complete hashes the object itself there).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onS3 } from '../support/backend.js';
import * as srv from '../support/server.js';
import type { FileSpec, TestServer } from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await srv.serverWithKey()));
afterAll(async () => s.dispose());

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const errorOf = (r: { body: unknown }) =>
  (r.body as { error: { code: string; message: string; details: Array<{ path?: string }> } }).error;

/** A file of its own bytes: `n` makes them differ from every other test's. */
const photo = (n: number, name = `p${n}.jpg`): FileSpec => ({
  fileName: name,
  contentType: 'image/jpeg',
  bytes: srv.jpeg(300 + n),
});

/** The PUT as a client that honours presign's `headers` sends it (S3 signs the checksum header). */
async function putWith(p: { body: { presignedUrl: string; headers?: Record<string, string> } }, f: FileSpec) {
  const headers = Object.fromEntries(
    Object.entries(p.body.headers ?? {}).filter(([name]) => !/^content-(length|type)$/i.test(name)),
  );
  return srv.put(p.body.presignedUrl, f, headers);
}

/** presign (declaring the checksum unless `declare` is false) → PUT → complete; the complete's answer. */
async function upload(f: FileSpec, o: { declare?: boolean; type?: string; contentItemId?: string; k?: string } = {}) {
  const extra = {
    ...(o.declare === false ? {} : { sha256: sha256(f.bytes) }),
    ...(o.type ? { type: o.type } : {}),
  };
  const p = await srv.presign(s, o.k ?? key, f, extra);
  expect(p.status, p.text).toBe(200);
  expect((await putWith(p, f)).status).toBe(200);
  const c = await srv.complete(
    s,
    o.k ?? key,
    p.body.key,
    f,
    p.body.type,
    o.contentItemId ? { contentItemId: o.contentItemId } : {},
  );
  expect(c.status, c.text).toBe(200);
  return c.body;
}

const check = (files: Array<{ sha256: string; size: number }>, k = key) =>
  srv.call<{ files: Array<{ sha256: string; size: number; matches: Array<Record<string, unknown>> }> }>(
    'POST',
    `${s.url}/api/v1/upload/check`,
    { key: k, json: { files } },
  );

describe('presign declares the checksum', () => {
  it('takes a SHA-256 in hex, either case; anything else is 400 invalid_request naming sha256', async () => {
    const f = photo(1);
    const upper = await srv.presign(s, key, f, { sha256: sha256(f.bytes).toUpperCase() });
    expect(upper.status).toBe(200);
    for (const bad of ['abc', sha256(f.bytes).slice(1) + 'g', 42]) {
      const r = await srv.presign(s, key, f, { sha256: bad });
      expect(r.status).toBe(400);
      expect(errorOf(r).code).toBe('invalid_request');
      expect(errorOf(r).details.map((d) => d.path)).toContain('sha256');
    }
  });

  it.runIf(onS3)('on S3 the PUT must carry it as x-amz-checksum-sha256 (base64), a signed header', async () => {
    const f = photo(2);
    const p = await srv.presign(s, key, f, { sha256: sha256(f.bytes) });
    const headers = p.body.headers;
    expect(headers['x-amz-checksum-sha256']).toBe(createHash('sha256').update(f.bytes).digest('base64'));
    expect(new URL(p.body.presignedUrl).searchParams.get('X-Amz-SignedHeaders')).toContain('x-amz-checksum-sha256');
  });
});

describe('every stored file has its SHA-256', () => {
  it('a video: sha256 in the item, from complete, GET and the list', async () => {
    const f = srv.video('keep.mp4', 10);
    const done = await upload(f);
    expect(done.item.sha256).toBe(sha256(f.bytes));
    const got = await srv.call<{ item: { sha256: string } }>('GET', `${s.url}/api/v1/content/${done.contentItemId}`, {
      key,
    });
    expect(got.body.item.sha256).toBe(sha256(f.bytes));
  });

  it('each carousel image on its file record; the carousel item carries its first image’s', async () => {
    const a = photo(3);
    const b: FileSpec = { fileName: 'b.png', contentType: 'image/png', bytes: srv.png(400) };
    const first = await upload(a);
    const second = await upload(b, { contentItemId: first.contentItemId });
    expect(first.file?.sha256).toBe(sha256(a.bytes));
    expect(second.file?.sha256).toBe(sha256(b.bytes));
    const got = await srv.call<{ item: { sha256: string }; files: Array<{ sha256: string }> }>(
      'GET',
      `${s.url}/api/v1/content/${first.contentItemId}`,
      { key },
    );
    expect(got.body.files.map((x) => x.sha256)).toEqual([sha256(a.bytes), sha256(b.bytes)]);
    expect(got.body.item.sha256).toBe(sha256(a.bytes));
  });

  it('a client that declares none (the spec’s presign) still works: the server computes it at complete', async () => {
    const f = srv.video('undeclared.mp4', 12);
    const done = await upload(f, { declare: false });
    expect(done.item.sha256).toBe(sha256(f.bytes));
  });

  it('a thumbnail: thumbnailSha256 once attached by PATCH', async () => {
    const item = await upload(srv.video('with-thumb.mp4', 11));
    const t: FileSpec = { fileName: 't.jpg', contentType: 'image/jpeg', bytes: srv.jpeg(777) };
    const p = await srv.presign(s, key, t, { thumbnail: true, sha256: sha256(t.bytes) });
    expect((await putWith(p, t)).status).toBe(200);
    const r = await srv.call<{ item: { thumbnailSha256: string } }>(
      'PATCH',
      `${s.url}/api/v1/content/${item.contentItemId}`,
      {
        key,
        json: { thumbnailKey: p.body.key },
      },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.item.thumbnailSha256).toBe(sha256(t.bytes));
  });
});

describe('a byte changed on the way', () => {
  /** The file's bytes with one byte flipped: what a faulty proxy or NIC delivers. */
  const flipped = (f: FileSpec, at: number): FileSpec => {
    const bytes = Buffer.from(f.bytes);
    bytes[at] = bytes[at]! ^ 0xff;
    return { ...f, bytes };
  };

  it('is refused (by the disk store at PUT, by complete on RGW), nothing is promoted, and the right bytes then complete', async () => {
    const f = srv.video('flip.mp4', 10);
    const p = await srv.presign(s, key, f, { sha256: sha256(f.bytes) });
    const bad = flipped(f, 300);
    const stored = await putWith(p, bad);
    if (onS3 && stored.status === 200) {
      // RGW 16.2 stores what it is sent: it does not verify x-amz-checksum-sha256 (AWS answers
      // 400 BadDigest, below). Complete hashes the object itself and refuses it.
      const c = await srv.complete(s, key, p.body.key, f, 'shortform');
      expect(c.status).toBe(400);
      expect(errorOf(c).code).toBe('bad_digest');
      expect(errorOf(c).message).toContain(sha256(f.bytes));
    } else {
      // The disk store (our JSON), or an S3 store that verifies the checksum (its XML).
      expect(stored.status).toBe(400);
      if (onS3) expect(stored.text).toContain('BadDigest');
      else expect((stored.body as { error: { code: string } }).error.code).toBe('bad_digest');
      const c = await srv.complete(s, key, p.body.key, f, 'shortform');
      expect(c.status).toBe(400);
      expect(errorOf(c).code).toBe('invalid_upload');
    }
    // Nothing was promoted, and nothing is left staged.
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
    expect(await s.storage.head(p.body.key)).toBeNull();
    // The same URL takes the right bytes, and complete then makes the item.
    expect((await putWith(p, f)).status).toBe(200);
    const c = await srv.complete(s, key, p.body.key, f, 'shortform');
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.sha256).toBe(sha256(f.bytes));
  });

  it('a flipped byte in the magic bytes is reported as the checksum, not as another format', async () => {
    const f = photo(4);
    const p = await srv.presign(s, key, f, { sha256: sha256(f.bytes) });
    const r = await putWith(p, flipped(f, 0));
    const c = r.status === 200 ? await srv.complete(s, key, p.body.key, f, 'carousel') : r;
    expect(errorOf(c).code).toBe('bad_digest');
  });

  it('a thumbnail with a wrong checksum is not attached', async () => {
    const item = await upload(srv.video('thumb-flip.mp4', 16));
    const t: FileSpec = { fileName: 't.jpg', contentType: 'image/jpeg', bytes: srv.jpeg(779) };
    const p = await srv.presign(s, key, t, { thumbnail: true, sha256: sha256(t.bytes) });
    const r = await putWith(p, flipped(t, 100));
    if (!onS3) expect(r.status).toBe(400);
    const patched = await srv.call('PATCH', `${s.url}/api/v1/content/${item.contentItemId}`, {
      key,
      json: { thumbnailKey: p.body.key },
    });
    expect(patched.status).toBe(400);
    expect(errorOf(patched).code).toBe(onS3 ? 'bad_digest' : 'invalid_upload');
    expect(await s.storage.head(p.body.key)).toBeNull();
  });
});

describe('POST /api/v1/upload/check', () => {
  it("answers each (sha256, size) with the brand's items and files holding those bytes, in order", async () => {
    const v = srv.video('known.mp4', 13);
    const a = photo(5);
    const b = photo(6);
    const made = await upload(v);
    const carousel = await upload(a);
    const second = await upload(b, { contentItemId: carousel.contentItemId });
    const unknown = srv.jpeg(12345);
    const r = await check([
      { sha256: sha256(b.bytes), size: b.bytes.length },
      { sha256: sha256(unknown), size: unknown.length },
      { sha256: sha256(v.bytes), size: v.bytes.length },
      // The right digest with another size is other bytes.
      { sha256: sha256(v.bytes), size: v.bytes.length + 1 },
    ]);
    expect(r.status, r.text).toBe(200);
    expect(r.body.files.map((f) => f.matches)).toEqual([
      [
        {
          itemId: carousel.contentItemId,
          itemType: 'carousel',
          itemFileCount: 2,
          role: 'image',
          fileId: second.file!.id,
          sortOrder: 1,
          fileName: b.fileName,
        },
      ],
      [],
      [{ itemId: made.contentItemId, itemType: 'shortform', itemFileCount: 1, role: 'file', fileName: v.fileName }],
      [],
    ]);
  });

  it('brand B learns nothing of brand A’s files, even asking for their exact bytes', async () => {
    const other = await s.key('other-brand');
    const f = photo(7);
    const first = await upload(f);
    await upload(photo(8), { contentItemId: first.contentItemId });
    const asked = [{ sha256: sha256(f.bytes), size: f.bytes.length }];
    expect((await check(asked)).body.files[0]!.matches).toHaveLength(1);
    const r = await check(asked, other);
    expect(r.status).toBe(200);
    expect(r.body.files).toEqual([{ ...asked[0], matches: [] }]);
    // Once brand B holds the same bytes, it sees its own copy only.
    const mine = await upload(f, { k: other });
    await upload(photo(9), { contentItemId: mine.contentItemId, k: other });
    const matches = (await check(asked, other)).body.files[0]!.matches;
    expect(matches.map((m) => m.itemId)).toEqual([mine.contentItemId]);
  });

  it('finds thumbnails as thumbnails', async () => {
    const item = await upload(srv.video('thumbed.mp4', 14));
    const t: FileSpec = { fileName: 'thumb.png', contentType: 'image/png', bytes: srv.png(901) };
    const p = await srv.presign(s, key, t, { thumbnail: true, sha256: sha256(t.bytes) });
    await putWith(p, t);
    await srv.call('PATCH', `${s.url}/api/v1/content/${item.contentItemId}`, {
      key,
      json: { thumbnailKey: p.body.key },
    });
    const r = await check([{ sha256: sha256(t.bytes), size: t.bytes.length }]);
    expect(r.body.files[0]!.matches).toEqual([
      { itemId: item.contentItemId, itemType: 'shortform', itemFileCount: 1, role: 'thumbnail', fileName: 'thumb.png' },
    ]);
  });

  it.each([
    ['no files', {}, 'files'],
    ['an empty batch', { files: [] }, 'files'],
    ['a digest that is not one', { files: [{ sha256: 'x', size: 1 }] }, 'files.0.sha256'],
    ['a negative size', { files: [{ sha256: 'a'.repeat(64), size: -1 }] }, 'files.0.size'],
    ['501 files', { files: Array.from({ length: 501 }, () => ({ sha256: 'a'.repeat(64), size: 1 })) }, 'files'],
  ])('%s is 400 invalid_request naming %s', async (_what, json, path) => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/check`, { key, json });
    expect(r.status).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
    expect(errorOf(r).details.map((d) => d.path)).toContain(path);
  });

  it('needs a key like every endpoint', async () => {
    const r = await srv.call('POST', `${s.url}/api/v1/upload/check`, { json: { files: [] } });
    expect(r.status).toBe(401);
  });
});

describe('files stored before checksums were kept', () => {
  /** What a library made by an earlier version holds: the same rows, without their checksums. */
  async function forgetChecksums(): Promise<void> {
    await srv.execOnLibrary(s, [
      'UPDATE items SET sha256 = NULL, thumbnail_sha256 = NULL',
      'UPDATE carousel_files SET sha256 = NULL',
    ]);
  }

  it('say so (null) until the sweeper fills them in from the stored objects', async () => {
    const v = srv.video('old.mp4', 15);
    const a = photo(10);
    const made = await upload(v);
    const carousel = await upload(a);
    await upload(photo(11), { contentItemId: carousel.contentItemId });
    await forgetChecksums();
    const before = await srv.call<{ item: { sha256: string | null } }>(
      'GET',
      `${s.url}/api/v1/content/${made.contentItemId}`,
      {
        key,
      },
    );
    expect(before.body.item.sha256).toBeNull();
    // Not found by the check either, until it is known.
    expect((await check([{ sha256: sha256(v.bytes), size: v.bytes.length }])).body.files[0]!.matches).toEqual([]);

    const report = await s.sweep();
    expect(report.checksums).toBeGreaterThanOrEqual(4);
    const after = await srv.call<{ item: { sha256: string } }>('GET', `${s.url}/api/v1/content/${made.contentItemId}`, {
      key,
    });
    expect(after.body.item.sha256).toBe(sha256(v.bytes));
    const images = await srv.call<{ files: Array<{ sha256: string }> }>(
      'GET',
      `${s.url}/api/v1/content/${carousel.contentItemId}`,
      { key },
    );
    expect(images.body.files[0]!.sha256).toBe(sha256(a.bytes));
    expect((await check([{ sha256: sha256(v.bytes), size: v.bytes.length }])).body.files[0]!.matches).toHaveLength(1);
    // Nothing left to fill in.
    expect((await s.sweep()).checksums).toBe(0);
  });
});

// A plain srv.image(): the helper most suites use, for the record that its uploads still work unchanged.
it('the spec’s upload flow, untouched by any of this, still makes an item', async () => {
  const f = srv.image('plain.jpg', 640);
  const p = await srv.presign(s, key, f);
  expect((await srv.put(p.body.presignedUrl, f)).status).toBe(200);
  const c = await srv.complete(s, key, p.body.key, f, p.body.type);
  expect(c.status).toBe(200);
});

// An extension (docs/api.md "Checksums"): the SHA-256 declared at complete instead of at presign,
// so a client can hash a large file while its parts are sent. Checked exactly as one declared at
// presign (disk: the parts' rolling hash; RGW: the object read back).
describe('sha256 declared at complete', () => {
  const MIB = 1024 * 1024;
  const big = (name: string, seconds: number): FileSpec => ({
    fileName: name,
    contentType: 'video/mp4',
    bytes: srv.mp4(seconds, { size: 20 * MIB + seconds }),
  });
  type Parts = { parts: Array<{ partNumber: number; url: string; headers: Record<string, string> }> };

  /** presign asking for parts (declaring `extra`), then every part PUT; what complete names. */
  async function sendInParts(f: FileSpec, extra: Record<string, unknown> = {}) {
    const p = await srv.presign(s, key, f, { multipart: true, ...extra });
    expect(p.status, p.text).toBe(200);
    const plan = (p.body as { multipart?: { partCount: number; partSize: number } }).multipart;
    expect(plan?.partCount).toBe(3);
    const urls = await srv.call<Parts>('POST', `${s.url}/api/v1/upload/parts`, {
      key,
      json: { key: p.body.key, partNumbers: [1, 2, 3] },
    });
    expect(urls.status, urls.text).toBe(200);
    const parts: Array<{ partNumber: number; etag: string }> = [];
    for (const part of urls.body.parts) {
      const headers = Object.fromEntries(Object.entries(part.headers).filter(([h]) => !/^content-length$/i.test(h)));
      const at = (part.partNumber - 1) * plan!.partSize;
      const r = await srv.call('PUT', part.url, { body: f.bytes.subarray(at, at + plan!.partSize), headers });
      expect(r.status, r.text).toBe(200);
      parts.push({ partNumber: part.partNumber, etag: String(r.headers.etag) });
    }
    return { p, parts };
  }

  it('a multipart upload: the right SHA-256 completes, and is the item’s', async () => {
    const f = big('late.mp4', 31);
    const { p, parts } = await sendInParts(f);
    const c = await srv.complete(s, key, p.body.key, f, 'shortform', { parts, sha256: sha256(f.bytes).toUpperCase() });
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.sha256).toBe(sha256(f.bytes));
  });

  it('a multipart upload: a wrong SHA-256 is 400 bad_digest, nothing promoted, the upload closed', async () => {
    const f = big('late-wrong.mp4', 32);
    const { p, parts } = await sendInParts(f);
    const wrong = sha256(Buffer.from('not these bytes'));
    const c = await srv.complete(s, key, p.body.key, f, 'shortform', { parts, sha256: wrong });
    expect(c.status).toBe(400);
    expect(errorOf(c).code).toBe('bad_digest');
    expect(errorOf(c).message).toContain('declared at complete');
    expect(errorOf(c).message).toContain('presign again and send the whole file');
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
    expect(await s.storage.head(p.body.key)).toBeNull();
    // Closed: its parts cannot be listed any more, and complete again finds no stored file.
    const listed = await srv.call('POST', `${s.url}/api/v1/upload/parts`, { key, json: { key: p.body.key } });
    expect(listed.status).toBe(400);
    const again = await srv.complete(s, key, p.body.key, f, 'shortform', { parts, sha256: sha256(f.bytes) });
    expect(again.status).toBe(400);
  });

  it('one that differs from the one declared at presign is 400 invalid_upload naming sha256; nothing is lost', async () => {
    const f = big('twice.mp4', 33);
    const { p, parts } = await sendInParts(f, { sha256: sha256(f.bytes) });
    const c = await srv.complete(s, key, p.body.key, f, 'shortform', {
      parts,
      sha256: sha256(Buffer.from('other')),
    });
    expect(c.status).toBe(400);
    expect(errorOf(c).code).toBe('invalid_upload');
    expect(errorOf(c).details[0]?.path).toBe('sha256');
    expect(errorOf(c).message).toContain('declared at presign');
    // The same declaration twice is fine, and the parts were kept for it.
    const ok = await srv.complete(s, key, p.body.key, f, 'shortform', { parts, sha256: sha256(f.bytes) });
    expect(ok.status, ok.text).toBe(200);
  });

  it('a single PUT takes it too: checked the same way (a wrong one removes the object; PUT again)', async () => {
    const f = srv.video('late-single.mp4', 12);
    const p = await srv.presign(s, key, f);
    expect((await putWith(p, f)).status).toBe(200);
    const bad = await srv.complete(s, key, p.body.key, f, 'shortform', { sha256: sha256(Buffer.from('x')) });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('bad_digest');
    expect(await srv.uploadedSize(s.storage, p.body)).toBeNull();
    expect((await putWith(p, f)).status).toBe(200);
    const c = await srv.complete(s, key, p.body.key, f, 'shortform', { sha256: sha256(f.bytes) });
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.sha256).toBe(sha256(f.bytes));
  });

  it('anything but a SHA-256 in hex is 400 invalid_request naming sha256', async () => {
    const f = srv.video('late-bad-field.mp4', 13);
    const p = await srv.presign(s, key, f);
    expect((await putWith(p, f)).status).toBe(200);
    const c = await srv.complete(s, key, p.body.key, f, 'shortform', { sha256: 'abc' });
    expect(c.status).toBe(400);
    expect(errorOf(c).code).toBe('invalid_request');
    expect(JSON.stringify(errorOf(c).details)).toContain('sha256');
  });
});
