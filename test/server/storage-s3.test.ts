// The S3 storage against a real S3 (Ceph's RADOS Gateway started for the run, or the store
// CONTENTLIB_TEST_S3_ENDPOINT names: test/support/s3.ts): the Storage contract, then presigned PUT
// and GET, HEAD, ranged reads, promote (copy then delete), delete and the staging listing in
// detail; then a served upload, and the store itself refusing a PUT whose signed headers differ.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, errorFromResponse } from '../../src/api/errors.js';
import { createApiKey, revokeApiKey } from '../../src/server/admin.js';
import { describeRefusal, refusalRetry } from '../../src/api/storage-refusal.js';
import { ObjectStateError, stagingKeyOf } from '../../src/server/storage/interface.js';
import { type S3Storage, createS3Storage } from '../../src/server/storage/s3.js';
import { type AwsCopyProxy, startAwsCopyProxy } from '../support/aws-copy-proxy.js';
import { s3ContractSetup } from '../support/s3-storage.js';
import { type TestS3, serverStorage, startS3 } from '../support/s3.js';
import { type TestServer, call, complete, image, presign, put, startTestServer, video } from '../support/server.js';
import { storageContract } from './storage-contract.js';

let s3: TestS3;
let storage: S3Storage;
beforeAll(async () => {
  s3 = await startS3();
  await s3.createBucket('media');
  storage = createS3Storage({
    location: { bucket: s3.bucket('media'), prefix: 'lib' },
    endpoint: s3.endpoint,
    credentials: s3.credentials,
  });
}, 200_000);
afterAll(async () => {
  storage?.close();
  await s3?.stop();
}, 60_000);

storageContract('S3', () =>
  s3ContractSetup(
    { bucket: s3.bucket('media'), prefix: 'contract' },
    { endpoint: s3.endpoint, credentials: s3.credentials },
  )(),
);

// AWS gives a copy of a multipart-uploaded object an ETag of its own; RGW keeps the source's.
// The contract again through a proxy that answers such copies as AWS does (aws-copy-proxy.ts).
describe('behind a proxy answering copies of multipart objects as AWS does', () => {
  let proxy: AwsCopyProxy;
  beforeAll(async () => {
    proxy = await startAwsCopyProxy(s3.endpoint);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  storageContract('S3 (AWS copy ETags)', () =>
    s3ContractSetup(
      { bucket: s3.bucket('media'), prefix: 'contract-aws' },
      { endpoint: proxy.url, credentials: s3.credentials },
    )(),
  );

  it('a copy given a new ETag is proven by its bytes: the checked SHA-256 promotes it, another one leaves nothing final', async () => {
    const before = proxy.renamed();
    const setup = await s3ContractSetup(
      { bucket: s3.bucket('media'), prefix: 'aws-proof' },
      { endpoint: proxy.url, credentials: s3.credentials },
    )();
    try {
      const { storage: viaProxy, multipart } = setup;
      const key = stagingKeyOf(randomUUID());
      const whole = Buffer.concat([Buffer.alloc(5 * 1024 * 1024, 0x36), Buffer.from('end')]);
      const id = await multipart.store.create(key, 'video/mp4');
      await multipart.putPart(key, id, 1, whole.subarray(0, 5 * 1024 * 1024));
      await multipart.putPart(key, id, 2, whole.subarray(5 * 1024 * 1024));
      await multipart.store.complete(key, id, await multipart.store.listParts(key, id));
      const head = (await viaProxy.head(key))!;
      const other = createHash('sha256').update('other bytes').digest('hex');
      await expect(
        viaProxy.promote(key, 'u/x/wrong.mp4', { etag: head.etag, size: head.size, sha256: other }),
      ).rejects.toMatchObject({ state: 'changed' });
      expect(await viaProxy.head('u/x/wrong.mp4')).toBeNull();
      expect(proxy.renamed()).toBeGreaterThan(before);
      const right = createHash('sha256').update(whole).digest('hex');
      await viaProxy.promote(key, 'u/x/right.mp4', { etag: head.etag, size: head.size, sha256: right });
      expect((await viaProxy.head('u/x/right.mp4'))?.etag).not.toBe(head.etag);
      expect(await viaProxy.head(key)).toBeNull();
    } finally {
      await setup.dispose();
    }
  });
});

const bytes = Buffer.from('0123456789abcdefghij');

async function putStaged(body = bytes): Promise<string> {
  const key = stagingKeyOf(randomUUID());
  const p = await storage.presignPut({
    key,
    contentType: 'image/jpeg',
    contentLength: body.length,
    expiresAt: new Date(Date.now() + 60_000),
  });
  const res = await fetch(p.url, { method: 'PUT', headers: p.headers, body });
  expect(res.status).toBe(200);
  return key;
}

describe('S3 storage', () => {
  it('a presigned PUT lands in staging under the prefix, with its size and type', async () => {
    const key = await putStaged();
    expect(await s3.listKeys('media')).toContain(`lib/${key}`);
    expect(await storage.head(key)).toMatchObject({ size: bytes.length, contentType: 'image/jpeg' });
    expect(await storage.head(stagingKeyOf(randomUUID()))).toBeNull();
  });

  it('reads byte ranges, short at the end and empty past it; a missing object says so', async () => {
    const key = await putStaged();
    expect((await storage.readRange(key, 0, 4)).toString()).toBe('0123');
    expect((await storage.readRange(key, 16, 10)).toString()).toBe('ghij');
    expect((await storage.readRange(key, 40, 4)).length).toBe(0);
    await expect(storage.readRange(stagingKeyOf(randomUUID()), 0, 4)).rejects.toMatchObject({ state: 'missing' });
  });

  it('a version that changed after its check is neither read nor promoted', async () => {
    const key = await putStaged();
    const checked = (await storage.head(key))!.etag;
    // A late PUT to the same staging key replaces the bytes.
    const late = await storage.presignPut({
      key,
      contentType: 'image/jpeg',
      contentLength: bytes.length,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await fetch(late.url, { method: 'PUT', headers: late.headers, body: Buffer.from('XXXXXXXXXXXXXXXXXXXX') });
    await expect(storage.readRange(key, 0, 4, checked)).rejects.toBeInstanceOf(ObjectStateError);
    await expect(storage.promote(key, 'user/late.jpg', { etag: checked })).rejects.toMatchObject({ state: 'changed' });
    expect(await storage.head('user/late.jpg')).toBeNull();
  });

  it('promotes by copy then delete, and a presigned GET serves the final object', async () => {
    const key = await putStaged();
    const etag = (await storage.head(key))!.etag;
    await storage.promote(key, 'user/file/p é.jpg', { etag });
    expect(await storage.head(key)).toBeNull();
    const url = await storage.presignGet({ key: 'user/file/p é.jpg', expiresAt: new Date(Date.now() + 60_000) });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    await expect(storage.promote(key, 'user/file/again.jpg')).rejects.toMatchObject({ state: 'missing' });
  });

  it('deletes, and deleting a missing object is fine', async () => {
    const key = await putStaged();
    await storage.delete(key);
    await storage.delete(key);
    expect(await storage.head(key)).toBeNull();
    await storage.check();
  });

  it('lists every staging object, as staging keys', async () => {
    const key = await putStaged();
    expect(await storage.listStaging()).toContain(key);
    await storage.delete(key);
    expect(await storage.listStaging()).not.toContain(key);
  });
});

describe('serve --storage on it', () => {
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    // The real clock: the store checks the presigned URLs' dates against its own.
    s = await startTestServer({ clock: 'real', ...serverStorage(s3, `s3://${s3.bucket('media')}/served`) });
    key = await s.key();
  }, 60_000);

  afterAll(async () => {
    await s?.dispose();
  }, 60_000);

  it('uploads straight to the store, completes, serves the bytes and deletes them', async () => {
    const f = video('clip.mp4', 12);
    const p = await presign(s, key, f);
    expect(p.status).toBe(200);
    expect(p.body.presignedUrl.startsWith(s.url)).toBe(false);
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    const c = await complete(s, key, p.body.key, f, p.body.type);
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.durationSeconds).toBe(12);
    const got = await fetch(c.body.item.fileUrl);
    expect(Buffer.from(await got.arrayBuffer()).equals(f.bytes)).toBe(true);
    expect((await call('DELETE', `${s.url}/api/v1/content/${c.body.item.id}`, { key })).status).toBe(200);
    expect((await fetch(c.body.item.fileUrl)).status).not.toBe(200);
    expect(await s3.listKeys('media', 'served/')).toEqual([]);
  });

  it('the store itself refuses (403) a PUT whose Content-Type, Content-Length or signature differ from the signed ones, and the CLI reads why', async () => {
    const f = image('signed.jpg', 400);
    const p = await presign(s, key, f);
    const otherType = await put(p.body.presignedUrl, f, { 'content-type': 'image/png' });
    expect(otherType.status).toBe(403);
    expect(otherType.text).toContain('SignatureDoesNotMatch');
    const shorter = await put(p.body.presignedUrl, { ...f, bytes: f.bytes.subarray(0, 100) });
    expect(shorter.status).toBe(403);
    // A tampered signature: the store's XML answer is read by the CLI's parser as final, in words.
    const url = new URL(p.body.presignedUrl);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    const tampered = await fetch(url, { method: 'PUT', headers: { 'content-type': f.contentType }, body: f.bytes });
    expect(tampered.status).toBe(403);
    const headers = Object.fromEntries(tampered.headers.entries());
    const err = errorFromResponse(403, headers, await tampered.text(), 'PUT', url.href);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('SignatureDoesNotMatch');
    expect(refusalRetry(err as StorageError)).toBe(false);
    expect(describeRefusal(err as StorageError)).toContain('did not match what was signed');
    // Nothing landed: complete finds no upload.
    const c = await complete(s, key, p.body.key, f, p.body.type);
    expect(c.status).toBe(400);
    expect(await s3.listKeys('media', 'served/staging/')).toEqual([]);
  });

  // Last: it moves the server's clock three hours on.
  it('revoking the key that presigned does not close its S3 URL (the store is not asked), but complete refuses and the sweeper removes the bytes', async () => {
    const created = await createApiKey(s.dataDir, 'acme');
    const f = image('revoked.jpg', 400);
    const p = await presign(s, created.key, f);
    expect(p.status).toBe(200);
    expect(await revokeApiKey(s.dataDir, created.id)).toBe(true);
    // On disk this PUT is 403 upload_closed (test/server/integrity.test.ts); RGW stores it.
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    const staged = `served/${stagingKeyOf(p.body.fileId)}`;
    expect(await s3.listKeys('media', 'served/staging/')).toEqual([staged]);
    const c = await complete(s, created.key, p.body.key, f, p.body.type);
    expect(c.status).toBe(401);
    expect((await call('GET', `${s.url}/api/v1/content`, { key })).text).not.toContain('revoked.jpg');
    // An hour after the URL expired the upload is abandoned, and its staged bytes with it.
    s.clock.advance(3 * 3600_000);
    await s.sweep();
    expect(await s3.listKeys('media', 'served/staging/')).toEqual([]);
  });
});
