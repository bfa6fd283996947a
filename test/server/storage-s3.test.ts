// The S3 storage against a real S3 endpoint (s3rver on 127.0.0.1): the Storage contract, then
// presigned PUT and GET, HEAD, ranged reads, promote (copy then delete), delete and the staging
// listing in detail. storage-s3-real.test.ts runs the contract on a real store when asked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStateError, stagingKeyOf } from '../../src/server/storage/interface.js';
import { type S3Storage, createS3Storage } from '../../src/server/storage/s3.js';
import { s3ContractSetup } from '../support/s3-storage.js';
import { type TestS3, startS3 } from '../support/s3rver.js';
import { storageContract } from './storage-contract.js';

let s3: TestS3;
let storage: S3Storage;
beforeAll(async () => {
  s3 = await startS3();
  await s3.createBucket('media');
  storage = createS3Storage({
    location: { bucket: 'media', prefix: 'lib' },
    endpoint: s3.endpoint,
    credentials: s3.credentials,
  });
});
afterAll(async () => {
  storage?.close();
  await s3?.stop();
});

storageContract('S3 (s3rver)', () =>
  s3ContractSetup({ bucket: 'media', prefix: 'contract' }, { endpoint: s3.endpoint, credentials: s3.credentials })(),
);

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

describe('S3 storage on s3rver', () => {
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
    await expect(storage.promote(key, 'user/late.jpg', checked)).rejects.toMatchObject({ state: 'changed' });
    expect(await storage.head('user/late.jpg')).toBeNull();
  });

  it('promotes by copy then delete, and a presigned GET serves the final object', async () => {
    const key = await putStaged();
    const etag = (await storage.head(key))!.etag;
    await storage.promote(key, 'user/file/p é.jpg', etag);
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
