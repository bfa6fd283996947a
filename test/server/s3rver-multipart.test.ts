// test/support/s3rver.ts fills s3rver's multipart gaps (ListParts, AbortMultipartUpload,
// ListMultipartUploads, NoSuchUpload for an upload that is gone) so that the server's real S3
// code runs in tests: checked here through the AWS SDK, as the server calls them.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestS3, startS3 } from '../support/s3rver.js';

const BUCKET = 'gaps';
let s3: TestS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3();
  await s3.createBucket(BUCKET);
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: s3.credentials,
  });
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

async function open(key: string) {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
  return UploadId!;
}

const part = (key: string, uploadId: string, n: number, body: Buffer) =>
  client.send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId, PartNumber: n, Body: body }));

describe('s3rver with its multipart gaps filled', () => {
  it('lists the parts received, then completes with s3rver’s own CompleteMultipartUpload', async () => {
    const key = 'p/staging/one';
    const id = await open(key);
    const second = await part(key, id, 2, Buffer.from('world'));
    await part(key, id, 1, Buffer.from('hello '));
    const listed = await client.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: id }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, 6],
      [2, 5],
    ]);
    expect(listed.Parts?.[1]?.ETag).toBe(second.ETag);
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'p/' }));
    expect(uploads.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([[key, id]]);
    expect(uploads.Uploads?.[0]?.Initiated).toBeInstanceOf(Date);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: id,
        MultipartUpload: { Parts: listed.Parts!.map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag })) },
      }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(await got.Body!.transformToString()).toBe('hello world');
    // Completed: gone from the lists, and no longer takes parts.
    expect(
      (await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'p/' }))).Uploads ?? [],
    ).toEqual([]);
    await expect(part(key, id, 3, Buffer.from('!'))).rejects.toMatchObject({ name: 'NoSuchUpload' });
  });

  it('aborts: the parts are gone, the upload answers NoSuchUpload, and other prefixes are not listed', async () => {
    const key = 'q/staging/two';
    const id = await open(key);
    await part(key, id, 1, Buffer.from('bytes'));
    await client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId: id }));
    await expect(client.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: id }))).rejects.toMatchObject({
      name: 'NoSuchUpload',
    });
    await expect(
      client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId: id })),
    ).rejects.toMatchObject({ name: 'NoSuchUpload' });
    await expect(part(key, id, 2, Buffer.from('late'))).rejects.toMatchObject({ name: 'NoSuchUpload' });
    const other = await open('r/staging/three');
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'q/' }));
    expect(listed.Uploads ?? []).toEqual([]);
    await client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'r/staging/three', UploadId: other }));
  });
});
