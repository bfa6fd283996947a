// A local S3 endpoint for tests: s3rver (npm) on 127.0.0.1 and a free port, objects under a temp
// folder. It speaks enough of S3 (PUT, HEAD, ranged GET, copy, delete, list) for the server's
// storage but does not verify SigV4 signatures: test/server/s3-sigv4.test.ts proves those apart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  /** The credentials s3rver accepts. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Environment for a `serve` process (the standard AWS variables) pointed at this endpoint. */
  env: Record<string, string>;
  /** Makes a bucket that exists from now on. */
  createBucket(name: string): Promise<void>;
  /** Every object key in a bucket (tests check that nothing is left behind). */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'contentlib-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { S3Client, CreateBucketCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  return {
    endpoint,
    credentials,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async listKeys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
