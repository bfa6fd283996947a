// Conformance of the carousel-images extension (docs/api.md, Carousel images): reorder, remove
// and replace a carousel's images after upload, against a real server on 127.0.0.1, on SQLite +
// disk and (vitest's postgres-s3 project) on PostgreSQL + RGW. What must hold after every
// change: sortOrder 0..n-1 without gaps, the first image as the item's main file, updatedAt
// moved, createdAt and the id kept, the change in the audit log; and after a refusal, nothing
// changed at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKeyOf } from '../../src/server/storage/interface.js';
import {
  type FileSpec,
  type Item,
  type Reply,
  type TestServer,
  call,
  complete,
  image,
  mp4,
  png,
  presign,
  put,
  serverWithKey,
  uploadItem,
  video,
} from '../support/server.js';

let s: TestServer;
let key: string;
beforeAll(async () => ({ s, key } = await serverWithKey()));
afterAll(async () => s.dispose());

interface FileView {
  id: string;
  fileKey: string;
  sortOrder: number;
  fileName: string;
  fileSize: number;
  fileUrl: string;
  sha256: string | null;
}
interface Carousel {
  item: Item;
  files: FileView[];
}
type ErrorBody = { error: { code: string; message: string; details: Array<Record<string, unknown>> } };

const errorOf = (r: Reply<unknown>) => (r.body as ErrorBody).error;

/** A carousel of `n` images named p1.jpg… of distinct sizes (so each image's bytes are its own). */
async function carousel(n: number, k = key): Promise<Carousel> {
  const first = await uploadItem(s, k, image('p1.jpg', 300));
  for (let i = 2; i <= n; i++) await uploadItem(s, k, image(`p${i}.jpg`, 300 + i), { contentItemId: first.item.id });
  return get(first.item.id, k);
}

async function get(id: string, k = key): Promise<Carousel> {
  const r = await call<Carousel>('GET', `${s.url}/api/v1/content/${id}`, { key: k });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const reorder = (id: string, fileIds: unknown, k = key) =>
  call<Carousel>('PUT', `${s.url}/api/v1/content/${id}/order`, { key: k, json: { fileIds } });
const removeImage = (id: string, fileId: string, k = key) =>
  call<Carousel>('DELETE', `${s.url}/api/v1/content/${id}/files/${fileId}`, { key: k });

/** Presign and PUT `f` as a carousel image (or as `type`); the presign's body. */
async function staged(f: FileSpec, type = 'carousel') {
  const p = await presign(s, key, f, { type });
  expect(p.status, p.text).toBe(200);
  expect((await put(p.body.presignedUrl, f)).status).toBe(200);
  return p.body;
}

const replace = (id: string, fileId: string, uploadKey: string, f: FileSpec, k = key) =>
  call<Carousel & { file: FileView }>('PUT', `${s.url}/api/v1/content/${id}/files/${fileId}`, {
    key: k,
    json: { key: uploadKey, fileName: f.fileName, contentType: f.contentType, fileSize: f.bytes.length },
  });

/** What must hold after every change, and what the GET of the item then shows. */
async function expectWellFormed(c: Carousel): Promise<void> {
  expect(c.files.map((f) => f.sortOrder)).toEqual(c.files.map((_, i) => i));
  expect(new Set(c.files.map((f) => f.id)).size).toBe(c.files.length);
  expect(c.item.fileCount).toBe(c.files.length);
  expect(c.item.fileName).toBe(c.files[0]!.fileName);
  expect(c.item.fileSize).toBe(c.files.reduce((sum, f) => sum + f.fileSize, 0));
  // Every image keeps its checksum (a replacement its own bytes'); the first image's is the item's.
  for (const f of c.files) expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect((c.item as { sha256?: string | null }).sha256).toBe(c.files[0]!.sha256);
  const again = await get(c.item.id);
  expect(again.files.map((f) => f.id)).toEqual(c.files.map((f) => f.id));
}

/** The bytes a signed URL serves. */
async function fetched(url: string): Promise<number> {
  const r = await call('GET', url);
  expect(r.status).toBe(200);
  return Buffer.byteLength(r.text, 'latin1');
}

async function auditActions(itemId: string): Promise<Array<{ action: string; details: Record<string, unknown> }>> {
  const r = await call<{ entries: Array<{ action: string; details: Record<string, unknown> }> }>(
    'GET',
    `${s.url}/api/v1/audit?itemId=${itemId}`,
    { key },
  );
  expect(r.status, r.text).toBe(200);
  return r.body.entries;
}

describe('reorder (PUT /api/v1/content/:id/order)', () => {
  it('puts the images in the order of a permutation of their ids; the item keeps its id and createdAt', async () => {
    const before = await carousel(3);
    const [a, b, c] = before.files;
    s.clock.advance(60_000);
    const r = await reorder(before.item.id, [c!.id, a!.id, b!.id]);
    expect(r.status, r.text).toBe(200);
    expect(r.body.files.map((f) => f.fileName)).toEqual(['p3.jpg', 'p1.jpg', 'p2.jpg']);
    await expectWellFormed(r.body);
    expect(r.body.item.id).toBe(before.item.id);
    expect(r.body.item.createdAt).toBe(before.item.createdAt);
    expect(r.body.item.updatedAt).toBe(s.clock.now.toISOString());
    expect(r.body.item.updatedAt).not.toBe(before.item.updatedAt);
    // The item's main file is the new first image: its URL serves that image's bytes.
    expect(await fetched(r.body.item.fileUrl)).toBe(c!.fileSize);
    expect((await auditActions(before.item.id))[0]).toMatchObject({
      action: 'item.images_reordered',
      details: { order: [3, 1, 2], fileIds: [c!.id, a!.id, b!.id], previousFileIds: [a!.id, b!.id, c!.id] },
    });
  });

  it('the order the images already have changes nothing: updatedAt stays, no audit entry', async () => {
    const before = await carousel(2);
    const entries = (await auditActions(before.item.id)).length;
    s.clock.advance(60_000);
    const r = await reorder(
      before.item.id,
      before.files.map((f) => f.id),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.item.updatedAt).toBe(before.item.updatedAt);
    expect(await auditActions(before.item.id)).toHaveLength(entries);
  });

  it('a stale permutation (an image was appended meanwhile) is 409 files_changed naming it, and nothing changes', async () => {
    const before = await carousel(3);
    const added = await uploadItem(s, key, image('late.jpg', 999), { contentItemId: before.item.id });
    const stale = [...before.files].reverse().map((f) => f.id);
    const r = await reorder(before.item.id, stale);
    expect(r.status, r.text).toBe(409);
    const error = errorOf(r);
    expect(error.code).toBe('files_changed');
    expect(error.details.filter((d) => d.fileId)).toEqual([
      expect.objectContaining({ path: 'fileIds', fileId: added.file!.id }),
    ]);
    const after = await get(before.item.id);
    expect(after.files.map((f) => f.fileName)).toEqual(['p1.jpg', 'p2.jpg', 'p3.jpg', 'late.jpg']);
    expect(after.item.updatedAt).toBe(added.item.updatedAt);
  });

  it('an id that is not one of its images (removed meanwhile, or another carousel’s) is 409 naming it', async () => {
    const mine = await carousel(3);
    const other = await carousel(2);
    const ids = mine.files.map((f) => f.id);
    ids[1] = other.files[0]!.id;
    const r = await reorder(mine.item.id, ids);
    expect(r.status).toBe(409);
    expect(
      errorOf(r)
        .details.filter((d) => d.fileId)
        .map((d) => d.fileId),
    ).toEqual([mine.files[1]!.id, other.files[0]!.id]);
    expect((await get(mine.item.id)).files.map((f) => f.id)).toEqual(mine.files.map((f) => f.id));
  });

  it.each([
    ['an id given twice', (ids: string[]) => [ids[0], ids[0], ids[1]]],
    ['no ids', () => []],
    ['ids that are not ids', () => ['1', '2', '3']],
    ['a string', () => 'a,b'],
  ])('%s is 400 invalid_request', async (_what, make) => {
    const before = await carousel(3);
    const r = await reorder(before.item.id, make(before.files.map((f) => f.id)));
    expect(r.status, r.text).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
    expect((await get(before.item.id)).item.updatedAt).toBe(before.item.updatedAt);
  });

  it("a video is 409 not_a_carousel; an unknown or another brand's item is 404 naming the id", async () => {
    const clip = await uploadItem(s, key, video());
    const notCarousel = await reorder(clip.item.id, ['6f1d2c3b-0000-4000-8000-000000000000']);
    expect([notCarousel.status, errorOf(notCarousel).code]).toEqual([409, 'not_a_carousel']);
    const theirs = await carousel(2, await s.key('globex'));
    for (const id of ['6f1d2c3b-0000-4000-8000-000000000000', theirs.item.id, 'nope']) {
      const r = await reorder(
        id,
        theirs.files.map((f) => f.id),
      );
      expect(r.status).toBe(404);
      expect(errorOf(r).details[0]).toMatchObject({ path: 'id' });
    }
  });
});

describe('remove (DELETE /api/v1/content/:id/files/:fileId)', () => {
  it('removes down to 2, the rest moving up; below 2 is 409 carousel_minimum and nothing changes', async () => {
    const before = await carousel(4);
    const [p1, p2, p3, p4] = before.files;
    s.clock.advance(60_000);
    const middle = await removeImage(before.item.id, p2!.id);
    expect(middle.status, middle.text).toBe(200);
    expect(middle.body.files.map((f) => f.fileName)).toEqual(['p1.jpg', 'p3.jpg', 'p4.jpg']);
    await expectWellFormed(middle.body);
    expect(middle.body.item.updatedAt).toBe(s.clock.now.toISOString());
    expect(middle.body.item.createdAt).toBe(before.item.createdAt);

    // The first image: the next one becomes the item's main file.
    const first = await removeImage(before.item.id, p1!.id);
    expect(first.status).toBe(200);
    expect(first.body.files.map((f) => f.fileName)).toEqual(['p3.jpg', 'p4.jpg']);
    await expectWellFormed(first.body);
    expect(await fetched(first.body.item.fileUrl)).toBe(p3!.fileSize);

    const refused = await removeImage(before.item.id, p4!.id);
    expect(refused.status, refused.text).toBe(409);
    expect(errorOf(refused).code).toBe('carousel_minimum');
    expect(errorOf(refused).message).toContain('at least 2');
    const after = await get(before.item.id);
    expect(after.files.map((f) => f.id)).toEqual([p3!.id, p4!.id]);
    expect(after.item.updatedAt).toBe(first.body.item.updatedAt);
    expect((await auditActions(before.item.id)).filter((e) => e.action === 'item.image_removed')).toEqual([
      expect.objectContaining({ details: { fileId: p1!.id, fileName: 'p1.jpg', sortOrder: 0 } }),
      expect.objectContaining({ details: { fileId: p2!.id, fileName: 'p2.jpg', sortOrder: 1 } }),
    ]);
  });

  it("the removed image's objects are gone from storage, its URL with them; the others stay", async () => {
    const before = await carousel(3);
    const [, gone, kept] = before.files;
    expect(await s.storage.head(gone!.fileKey)).not.toBeNull();
    const r = await removeImage(before.item.id, gone!.id);
    expect(r.status).toBe(200);
    expect(await s.storage.head(gone!.fileKey)).toBeNull();
    const fileId = gone!.fileKey.split('/')[1]!;
    expect(await s.storage.head(stagingKeyOf(fileId))).toBeNull();
    expect((await call('GET', gone!.fileUrl)).status).toBe(404);
    expect(await s.storage.head(kept!.fileKey)).not.toBeNull();
    // Nothing left for the sweeper: the deletion went through at once.
    await s.sweep();
    expect(await s.storage.head(gone!.fileKey)).toBeNull();
  });

  it('an image that is not the carousel’s is 404 naming fileId; a second remove of one is too', async () => {
    const before = await carousel(3);
    const other = await carousel(3);
    const foreign = await removeImage(before.item.id, other.files[0]!.id);
    expect([foreign.status, errorOf(foreign).details[0]?.path]).toEqual([404, 'fileId']);
    expect(await s.storage.head(other.files[0]!.fileKey)).not.toBeNull();
    expect((await removeImage(before.item.id, before.files[0]!.id)).status).toBe(200);
    const again = await removeImage(before.item.id, before.files[0]!.id);
    expect([again.status, errorOf(again).details[0]?.path]).toEqual([404, 'fileId']);
  });

  it('a removed image no longer counts against the quota', async () => {
    const q = await serverWithKey({ quotaBytes: 1000 });
    try {
      const first = await uploadItem(q.s, q.key, image('a.jpg', 300));
      await uploadItem(q.s, q.key, image('b.jpg', 300), { contentItemId: first.item.id });
      const third = await uploadItem(q.s, q.key, image('c.jpg', 300), { contentItemId: first.item.id });
      const full = await presign(q.s, q.key, image('d.jpg', 300));
      expect(full.status).toBe(403);
      const r = await call('DELETE', `${q.s.url}/api/v1/content/${first.item.id}/files/${third.file!.id}`, {
        key: q.key,
      });
      expect(r.status).toBe(200);
      expect((await presign(q.s, q.key, image('d.jpg', 300))).status).toBe(200);
    } finally {
      await q.s.dispose();
    }
  });
});

describe('replace (PUT /api/v1/content/:id/files/:fileId)', () => {
  it('a new upload takes the image’s place: same position, new id and bytes, the old objects gone', async () => {
    const before = await carousel(3);
    const old = before.files[1]!;
    const f: FileSpec = { fileName: 'better.png', contentType: 'image/png', bytes: png(777) };
    const p = await staged(f);
    s.clock.advance(60_000);
    const r = await replace(before.item.id, old.id, p.key, f);
    expect(r.status, r.text).toBe(200);
    expect(r.body.files.map((x) => x.fileName)).toEqual(['p1.jpg', 'better.png', 'p3.jpg']);
    expect(r.body.file).toMatchObject({ sortOrder: 1, fileName: 'better.png', fileKey: p.key, fileSize: 777 });
    expect(r.body.file.id).not.toBe(old.id);
    await expectWellFormed(r.body);
    expect(r.body.item.updatedAt).toBe(s.clock.now.toISOString());
    expect(r.body.item.createdAt).toBe(before.item.createdAt);
    expect(await fetched(r.body.files[1]!.fileUrl)).toBe(777);
    expect(await s.storage.head(old.fileKey)).toBeNull();
    expect((await auditActions(before.item.id))[0]).toMatchObject({
      action: 'item.image_replaced',
      details: { fileId: r.body.file.id, replacedFileId: old.id, sortOrder: 1, replacedFileName: 'p2.jpg' },
    });
    // Idempotent per upload key, like complete: the same request again changes nothing more.
    const again = await replace(before.item.id, old.id, p.key, f);
    expect(again.status).toBe(200);
    expect(again.body.file.id).toBe(r.body.file.id);
    expect(again.body.files.map((x) => x.id)).toEqual(r.body.files.map((x) => x.id));
  });

  it('replacing the first image makes the new one the item’s main file', async () => {
    const before = await carousel(2);
    const f = image('cover.jpg', 555);
    const p = await staged(f);
    const r = await replace(before.item.id, before.files[0]!.id, p.key, f);
    expect(r.status).toBe(200);
    expect(r.body.item.fileName).toBe('cover.jpg');
    expect(await fetched(r.body.item.fileUrl)).toBe(555);
  });

  it('checks the new bytes as complete does: not the declared image is 415 content_mismatch, nothing changed', async () => {
    const before = await carousel(3);
    // Declared (and PUT) as a JPEG, but PNG bytes.
    const liar: FileSpec = { fileName: 'x.jpg', contentType: 'image/jpeg', bytes: png(400) };
    const p = await staged(liar);
    const r = await replace(before.item.id, before.files[2]!.id, p.key, liar);
    expect([r.status, errorOf(r).code]).toEqual([415, 'content_mismatch']);
    const after = await get(before.item.id);
    expect(after.files.map((f) => f.id)).toEqual(before.files.map((f) => f.id));
    expect(after.item.updatedAt).toBe(before.item.updatedAt);
    expect(await s.storage.head(before.files[2]!.fileKey)).not.toBeNull();
  });

  it('a video is 415 unsupported_media_type; a size or name unlike the upload is 400 invalid_upload', async () => {
    const before = await carousel(2);
    const clip: FileSpec = { fileName: 'clip.mp4', contentType: 'video/mp4', bytes: mp4(10) };
    const v = await staged(clip, 'shortform');
    const asVideo = await replace(before.item.id, before.files[0]!.id, v.key, clip);
    expect([asVideo.status, errorOf(asVideo).code]).toEqual([415, 'unsupported_media_type']);
    const f = image('n.jpg', 350);
    const p = await staged(f);
    const wrongSize = await replace(before.item.id, before.files[0]!.id, p.key, {
      ...f,
      bytes: image('n.jpg', 351).bytes,
    });
    expect([wrongSize.status, errorOf(wrongSize).code]).toEqual([400, 'invalid_upload']);
    const unknown = await replace(before.item.id, before.files[0]!.id, 'nobody/none/n.jpg', f);
    expect([unknown.status, errorOf(unknown).code]).toEqual([400, 'invalid_upload']);
    expect((await get(before.item.id)).files.map((x) => x.id)).toEqual(before.files.map((x) => x.id));
  });

  it('an image that is not the carousel’s is 404 naming fileId, and the upload stays open to use again', async () => {
    const before = await carousel(2);
    const other = await carousel(2);
    const f = image('m.jpg', 360);
    const p = await staged(f);
    const r = await replace(before.item.id, other.files[0]!.id, p.key, f);
    expect([r.status, errorOf(r).details[0]?.path]).toEqual([404, 'fileId']);
    expect((await get(other.item.id)).files.map((x) => x.id)).toEqual(other.files.map((x) => x.id));
    const ok = await replace(before.item.id, before.files[1]!.id, p.key, f);
    expect(ok.status, ok.text).toBe(200);
  });

  it("an upload completed into another item is refused (400 invalid_upload); another brand's carousel is 404", async () => {
    const mine = await carousel(2);
    const elsewhere = await uploadItem(s, key, image('used.jpg', 362));
    const used = await replace(mine.item.id, mine.files[0]!.id, elsewhere.storageKey, image('used.jpg', 362));
    expect([used.status, errorOf(used).code, errorOf(used).details[0]?.path]).toEqual([400, 'invalid_upload', 'key']);
    expect((await get(mine.item.id)).files.map((x) => x.id)).toEqual(mine.files.map((x) => x.id));
    const theirs = await carousel(2, await s.key('globex'));
    const f = image('m.jpg', 363);
    const p = await staged(f);
    const foreign = await replace(theirs.item.id, theirs.files[0]!.id, p.key, f);
    expect([foreign.status, errorOf(foreign).details[0]?.path]).toEqual([404, 'id']);
  });

  it('a video item is 409 not_a_carousel', async () => {
    const clip = await uploadItem(s, key, video());
    const f = image('m.jpg', 361);
    const p = await staged(f);
    const r = await replace(clip.item.id, '6f1d2c3b-0000-4000-8000-000000000000', p.key, f);
    expect([r.status, errorOf(r).code]).toEqual([409, 'not_a_carousel']);
  });
});

describe('concurrent changes of one carousel', () => {
  it('20 reorders and appends at once leave sortOrder 0..n-1, no duplicates, at most 10 images', async () => {
    const start = await carousel(3);
    const id = start.item.id;
    // The appends' bytes are sent first; their completes race the reorders.
    const uploads = [];
    for (let i = 0; i < 10; i++) {
      const f = image(`c${i}.jpg`, 400 + i);
      uploads.push({ f, p: await staged(f) });
    }
    const appends = uploads.map(
      ({ f, p }) =>
        () =>
          complete(s, key, p.key, f, 'carousel', { contentItemId: id }),
    );
    const reorders = Array.from({ length: 10 }, () => async () => {
      const now = await get(id);
      return reorder(id, now.files.map((f) => f.id).reverse());
    });
    const changes = appends.flatMap((append, i) => [append, reorders[i]!]);
    const results: Array<Reply<unknown>> = await Promise.all(changes.map((change) => change()));
    for (const r of results) expect([200, 409], r.text).toContain(r.status);
    const codes = results.filter((r) => r.status === 409).map((r) => errorOf(r).code);
    for (const code of codes) expect(['carousel_full', 'files_changed']).toContain(code);
    // Exactly 7 appends found room.
    expect(codes.filter((c) => c === 'carousel_full')).toHaveLength(3);
    const after = await get(id);
    expect(after.files).toHaveLength(10);
    await expectWellFormed(after);
  });

  it('concurrent removes stop at 2', async () => {
    const start = await carousel(6);
    const results = await Promise.all(start.files.map((f) => removeImage(start.item.id, f.id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    for (const r of results.filter((x) => x.status !== 200)) expect(errorOf(r).code).toBe('carousel_minimum');
    const after = await get(start.item.id);
    expect(after.files).toHaveLength(2);
    await expectWellFormed(after);
  });
});
