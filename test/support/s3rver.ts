// A local S3 endpoint for tests: s3rver (npm) on 127.0.0.1 and a free port, objects under a temp
// folder. It speaks enough of S3 (PUT, HEAD, ranged GET, copy, delete, list) for the server's
// storage but does not verify SigV4 signatures: test/server/s3-sigv4.test.ts proves those apart.
//
// Multipart uploads: s3rver has CreateMultipartUpload, UploadPart and CompleteMultipartUpload,
// but answers ListParts, AbortMultipartUpload and ListMultipartUploads with 405, and takes a part
// for an upload that is gone (it makes its folder again). `multipartGaps` below fills those gaps
// on s3rver's own files (`<bucket>/._S3rver_uploads/<uploadId>/{key,metadata,<n>,<n>.md5}`),
// answering as S3 does (its XML, NoSuchUpload), so tests run the server's real S3 code. It does
// not check the part ETags a CompleteMultipartUpload names (s3rver does not either); the server
// checks them against ListParts itself before completing. test/server/s3rver-multipart.test.ts
// tests the filling.
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
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
  /**
   * How each object so far was made, in order, as s3rver's S3 events name it: `ObjectCreated:Put`
   * (one PUT), `ObjectCreated:Post` (a multipart upload's parts joined), `ObjectCreated:Copy`.
   */
  createdEvents(): string[];
  stop(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'contentlib-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
  // Before s3rver's own routes (Koa composes its middleware when the server starts listening).
  (server as unknown as { middleware: unknown[] }).middleware.unshift(multipartGaps(server));
  const created: string[] = [];
  (server as unknown as NodeJS.EventEmitter).on('event', (e: { Records?: Array<{ eventName?: string }> }) => {
    for (const r of e.Records ?? []) if (r.eventName) created.push(r.eventName);
  });
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
    createdEvents: () => [...created],
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The parts of Koa's context the filling uses (s3rver is a Koa app). */
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
}

const xmlEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';

/** ListParts, AbortMultipartUpload, ListMultipartUploads and UploadPart's NoSuchUpload on s3rver's files. */
function multipartGaps(server: S3rver) {
  const store = (server as unknown as { store: { getResourcePath(b: string, k: undefined, r: string): string } }).store;
  const uploadsDir = (bucket: string) => store.getResourcePath(bucket, undefined, 'uploads');
  const keyOf = (bucket: string, uploadId: string) =>
    readFile(join(uploadsDir(bucket), uploadId, 'key'), 'utf8').catch(() => null);
  const noSuchUpload = (ctx: KoaContext) => {
    ctx.status = 404;
    ctx.type = 'application/xml';
    ctx.body = `${XML_HEAD}<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.</Message></Error>`;
  };
  const xml = (ctx: KoaContext, body: string) => {
    ctx.status = 200;
    ctx.type = 'application/xml';
    ctx.body = XML_HEAD + body;
  };

  return async (ctx: KoaContext, next: () => Promise<unknown>) => {
    const [bucket, ...rest] = ctx.path.replace(/^\//, '').split('/').map(decodeURIComponent);
    const key = rest.join('/');
    const uploadId = typeof ctx.query.uploadId === 'string' ? ctx.query.uploadId : undefined;
    if (!bucket) return next();
    if (key && uploadId && /^[\w.-]+$/.test(uploadId)) {
      const stored = await keyOf(bucket, uploadId);
      if (stored !== key) return noSuchUpload(ctx);
      if (ctx.method === 'DELETE') {
        await rm(join(uploadsDir(bucket), uploadId), { recursive: true, force: true });
        ctx.status = 204;
        ctx.body = null;
        return;
      }
      if (ctx.method === 'GET') {
        const dir = join(uploadsDir(bucket), uploadId);
        const parts: string[] = [];
        const numbers = (await readdir(dir)).filter((n) => /^\d+$/.test(n)).map(Number);
        for (const n of numbers.sort((a, b) => a - b)) {
          const info = await stat(join(dir, String(n)));
          const md5 = await readFile(join(dir, `${n}.md5`), 'utf8').catch(() => '');
          parts.push(
            `<Part><PartNumber>${n}</PartNumber><LastModified>${info.mtime.toISOString()}</LastModified><ETag>&quot;${md5}&quot;</ETag><Size>${info.size}</Size></Part>`,
          );
        }
        return xml(
          ctx,
          `<ListPartsResult ${NS}><Bucket>${xmlEscape(bucket)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId><PartNumberMarker>0</PartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>${parts.join('')}</ListPartsResult>`,
        );
      }
      // UploadPart and CompleteMultipartUpload of an upload that exists: s3rver's own.
      return next();
    }
    if (!key && ctx.method === 'GET' && 'uploads' in ctx.query) {
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const ids = await readdir(uploadsDir(bucket)).catch(() => [] as string[]);
      const uploads: string[] = [];
      for (const id of ids.sort()) {
        const k = await keyOf(bucket, id);
        if (k === null || !k.startsWith(prefix)) continue;
        const info = await stat(join(uploadsDir(bucket), id, 'key'));
        uploads.push(
          `<Upload><Key>${xmlEscape(k)}</Key><UploadId>${id}</UploadId><Initiated>${info.mtime.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
        );
      }
      return xml(
        ctx,
        `<ListMultipartUploadsResult ${NS}><Bucket>${xmlEscape(bucket)}</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><Prefix>${xmlEscape(prefix)}</Prefix><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${uploads.join('')}</ListMultipartUploadsResult>`,
      );
    }
    return next();
  };
}
