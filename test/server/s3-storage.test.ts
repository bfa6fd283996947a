// The S3 storage module against a real S3 endpoint (s3rver on 127.0.0.1): presigned PUT and GET,
// HEAD, ranged reads, promote (copy then delete) and delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Storage, createS3Storage } from '../../src/server/s3-storage.js';
import { type TestS3, startS3 } from '../support/s3rver.js';

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

const bytes = Buffer.from('0123456789abcdefghij');

async function putStaged(key: string): Promise<void> {
  const p = await storage.presignPut(key, {
    contentType: 'image/jpeg',
    contentLength: bytes.length,
    lifetimeSeconds: 60,
  });
  const res = await fetch(p.url, { method: 'PUT', headers: p.headers, body: bytes });
  expect(res.status).toBe(200);
}

describe('S3 storage on s3rver', () => {
  it('a presigned PUT lands under the prefix, with its size and type', async () => {
    await putStaged('staging/a b.jpg');
    expect(await s3.listKeys('media')).toContain('lib/staging/a b.jpg');
    expect(await storage.head('staging/a b.jpg')).toEqual({ size: bytes.length, contentType: 'image/jpeg' });
    expect(await storage.head('staging/none.jpg')).toBeNull();
  });

  it('reads byte ranges, short at the end and empty past it', async () => {
    await putStaged('staging/r.jpg');
    expect((await storage.readRange('staging/r.jpg', 0, 4)).toString()).toBe('0123');
    expect((await storage.readRange('staging/r.jpg', 16, 10)).toString()).toBe('ghij');
    expect((await storage.readRange('staging/r.jpg', 40, 4)).length).toBe(0);
  });

  it('promotes by copy then delete, and a presigned GET serves the final object', async () => {
    await putStaged('staging/p é.jpg');
    await storage.promote('staging/p é.jpg', 'objects/p é.jpg');
    expect(await storage.head('staging/p é.jpg')).toBeNull();
    const url = await storage.presignGet('objects/p é.jpg', { lifetimeSeconds: 60 });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
  });

  it('deletes, and deleting a missing object is fine', async () => {
    await putStaged('staging/d.jpg');
    await storage.remove('staging/d.jpg');
    await storage.remove('staging/d.jpg');
    expect(await storage.head('staging/d.jpg')).toBeNull();
    await storage.check();
  });
});
