// The Storage contract's set-up on an S3 endpoint (the run's RGW, a proxy in front of it, or the
// store CONTENTLIB_TEST_S3_ENDPOINT names):
// each run gets a prefix of its own under the given location, its objects are written the way
// clients write them (a presigned PUT with the headers it names), and dispose deletes every
// object left under that prefix, so a real bucket is left as it was found.
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import {
  type S3Location,
  type S3StorageOptions,
  createS3Storage,
  s3ClientConfig,
} from '../../src/server/storage/s3.js';
import type { ContractSetup } from '../server/storage-contract.js';

/** Deletes every object under `prefix/` in the bucket (the SDK directly: finals are not listed by Storage). */
export async function emptyPrefix(o: S3StorageOptions, prefix: string): Promise<number> {
  const client = new S3Client(s3ClientConfig(o));
  let n = 0;
  try {
    for (;;) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: o.location.bucket, Prefix: `${prefix}/` }));
      const keys = (page.Contents ?? []).flatMap((c) => (c.Key ? [c.Key] : []));
      if (keys.length === 0) return n;
      for (const Key of keys) await client.send(new DeleteObjectCommand({ Bucket: o.location.bucket, Key }));
      n += keys.length;
    }
  } finally {
    client.destroy();
  }
}

/** A PUT of `bytes` to a presigned URL with the headers it names, as clients send it; asserted to succeed. */
async function putPresigned(
  signed: { url: string; headers: Record<string, string> },
  bytes: Buffer,
): Promise<Response> {
  // fetch sets Content-Length from the body itself (and may refuse one given by hand).
  const headers = Object.fromEntries(
    Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
  );
  const res = await fetch(signed.url, { method: 'PUT', headers, body: bytes });
  expect(res.status, await res.text()).toBe(200);
  return res;
}

export function s3ContractSetup(
  location: S3Location,
  client: Omit<S3StorageOptions, 'location'> = {},
): () => Promise<ContractSetup> {
  return async () => {
    const prefix = [location.prefix, `contract-${randomUUID()}`].filter(Boolean).join('/');
    const options: S3StorageOptions = { ...client, location: { bucket: location.bucket, prefix } };
    const storage = createS3Storage(options);
    return {
      storage,
      async stage(key, bytes, contentType) {
        const put = await storage.presignPut({
          key,
          contentType,
          contentLength: bytes.length,
          expiresAt: new Date(Date.now() + 60_000),
        });
        await putPresigned(put, bytes);
      },
      multipart: {
        store: storage.multipart!,
        async putPart(stagingKey, uploadId, partNumber, bytes) {
          const part = await storage.multipart!.presignPart({
            stagingKey,
            uploadId,
            partNumber,
            size: bytes.length,
            expiresAt: new Date(Date.now() + 60_000),
          });
          return (await putPresigned(part, bytes)).headers.get('etag') ?? '';
        },
      },
      async dispose() {
        // Multipart uploads a failed test left open under the prefix.
        for (const u of await storage.multipart!.listUploads())
          await storage.multipart!.abort(u.stagingKey, u.uploadId);
        storage.close();
        await emptyPrefix(options, prefix);
      },
    };
  };
}
