// The server with `--storage s3://bucket/prefix` (storageUrl) against the run's S3 (RGW): a PUT goes straight
// to the store's staging key, complete checks the bytes there (HEAD size, ranged GETs for magic
// bytes and the video's duration) and promotes them; DELETE and the sweeper clean the bucket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKeyOf } from '../../src/server/storage/interface.js';
import { type TestS3, serverStorage, startS3 } from '../support/s3.js';
import {
  type TestServer,
  call,
  complete,
  image,
  jpeg,
  presign,
  put,
  startTestServer,
  video,
} from '../support/server.js';

let s3: TestS3;
let s: TestServer;
let key: string;

beforeAll(async () => {
  s3 = await startS3();
  await s3.createBucket('media');
  // The real clock: the store checks the presigned URLs' dates against its own.
  s = await startTestServer({ clock: 'real', ...serverStorage(s3, `s3://${s3.bucket('media')}/lib`) });
  key = await s.key();
}, 200_000);

afterAll(async () => {
  await s?.dispose();
  await s3?.stop();
});

const errorOf = (r: { body: unknown }) => (r.body as { error: { code: string } }).error;

describe('serve --storage s3://…', () => {
  it('uploads to the store, completes (checked, promoted), serves and deletes the item', async () => {
    expect(s.disk).toBeUndefined();
    const f = video('clip.mp4', 12);
    const p = await presign(s, key, f);
    expect(p.status).toBe(200);
    expect(p.body.presignedUrl.startsWith(s3.endpoint)).toBe(true);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    expect(await s3.listKeys('media', 'lib/')).toEqual([`lib/${stagingKeyOf(p.body.fileId)}`]);

    const c = await complete(s, key, p.body.key, f, p.body.type);
    expect(c.status).toBe(200);
    // The duration was read from the object in the store.
    expect(c.body.item.durationSeconds).toBe(12);
    expect(await s3.listKeys('media', 'lib/')).toEqual([`lib/${p.body.key}`]);
    const got = await fetch(c.body.item.fileUrl);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(f.bytes)).toBe(true);

    const d = await call('DELETE', `${s.url}/api/v1/content/${c.body.item.id}`, { key });
    expect(d.status).toBe(200);
    expect(await s3.listKeys('media', 'lib/')).toEqual([]);
  });

  it('refuses bytes that are not the declared type and removes them from the store', async () => {
    const f = {
      fileName: 'fake.jpg',
      contentType: 'image/jpeg',
      bytes: Buffer.concat([Buffer.from('GIF89a'), jpeg(200)]),
    };
    const p = await presign(s, key, f);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    const c = await complete(s, key, p.body.key, f, p.body.type);
    expect(c.status).toBe(415);
    expect(errorOf(c).code).toBe('content_mismatch');
    expect(await s3.listKeys('media', 'lib/')).toEqual([]);
  });

  it('the sweeper removes staging objects no open upload owns; /readyz asks the bucket', async () => {
    const f = image('orphan.jpg');
    const p = await presign(s, key, f);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    // Completed elsewhere meanwhile: a second PUT's staging object can never be promoted.
    expect((await complete(s, key, p.body.key, f, p.body.type)).status).toBe(200);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    const report = await s.sweep();
    expect(report.staging).toBe(1);
    expect(await s3.listKeys('media', 'lib/staging/')).toEqual([]);
    expect((await call('GET', `${s.url}/readyz`)).status).toBe(200);
  });
});
