// Opt-in: the Storage contract and a served upload against a real S3 or MinIO, which (unlike
// s3rver) checks SigV4 signatures, so a PUT whose headers differ from the signed ones must be
// refused by the store itself. Skipped unless CONTENTLIB_TEST_S3_URL names a location such as
// s3://my-test-bucket/contentlib-ci, with the endpoint, region and credentials in the standard
// AWS variables (AWS_ENDPOINT_URL_S3 for MinIO, AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY or AWS_PROFILE). Every run writes under a prefix of its own and deletes
// what it wrote. How to run it: docs/deploy.md, "Testing against a real S3 or MinIO".
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError, errorFromResponse } from '../../src/api/errors.js';
import { describeRefusal, refusalRetry } from '../../src/api/storage-refusal.js';
import { type S3Location, parseS3Url } from '../../src/server/storage/s3.js';
import { emptyPrefix, s3ContractSetup } from '../support/s3-storage.js';
import { type TestServer, call, complete, image, presign, put, startTestServer, video } from '../support/server.js';
import { storageContract } from './storage-contract.js';

const REAL_URL = process.env.CONTENTLIB_TEST_S3_URL;

function location(): S3Location {
  const parsed = parseS3Url(REAL_URL!);
  if (parsed instanceof Error) throw new Error(`CONTENTLIB_TEST_S3_URL: ${parsed.message}`);
  return parsed;
}

describe.skipIf(!REAL_URL)('a real S3 store (skipped: set CONTENTLIB_TEST_S3_URL=s3://bucket/prefix to run)', () => {
  storageContract(`S3 at ${REAL_URL}`, () => s3ContractSetup(location())());

  describe('serve --storage on it', () => {
    let s: TestServer;
    let key: string;
    let prefix: string;

    beforeAll(async () => {
      const { bucket, prefix: base } = location();
      prefix = [base, `serve-${randomUUID()}`].filter(Boolean).join('/');
      // The real clock: the store checks the presigned URLs' dates against its own.
      s = await startTestServer({ clock: 'real', storageUrl: `s3://${bucket}/${prefix}` });
      key = await s.key();
    }, 60_000);

    afterAll(async () => {
      await s?.dispose();
      if (prefix) await emptyPrefix({ location: location() }, prefix);
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
    });

    it('the store itself refuses a PUT whose headers or signature differ from the signed ones, and the CLI reads why', async () => {
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
    });
  });
});
