// Objects in an S3-compatible store (AWS S3, MinIO, Ceph RGW, R2, Garage) through the AWS SDK v3.
// Loaded with a dynamic import only when `--storage s3://…` is given, so the embedded default never
// pays for the SDK. The bytes of an upload go from the client straight to the store with a
// presigned PUT that signs content-type, content-length and host: the store itself answers 403
// when the upload's headers differ from what the presign allowed.
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

export interface S3Location {
  bucket: string;
  /** Prepended to every key with a '/', or empty for the bucket's root. */
  prefix: string;
}

/** `s3://bucket/some/prefix` → bucket and prefix (no leading or trailing slash), or an Error saying why not. */
export function parseS3Url(text: string): S3Location | Error {
  const m = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/.exec(text.trim());
  if (!m) return new Error(`"${text}" is not an s3://bucket[/prefix] URL`);
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    return new Error(`"${bucket}" is not a valid bucket name (3–63 lowercase letters, digits, dots and hyphens)`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket, prefix };
}

export interface PresignedPut {
  url: string;
  /** Headers the PUT must carry exactly as given: they are part of the signature. */
  headers: Record<string, string>;
}

export interface ObjectHead {
  size: number;
  contentType: string | null;
}

export interface S3Storage {
  readonly location: S3Location;
  presignPut(
    key: string,
    p: { contentType: string; contentLength: number; lifetimeSeconds: number },
  ): Promise<PresignedPut>;
  presignGet(key: string, p: { lifetimeSeconds: number; contentType?: string }): Promise<string>;
  /** Size and type of an object, or null when it does not exist. */
  head(key: string): Promise<ObjectHead | null>;
  /** Up to `length` bytes from `offset` (fewer at the end of the object). */
  readRange(key: string, offset: number, length: number): Promise<Buffer>;
  /** The whole object as a stream (for serving through the API when a client cannot reach the store). */
  read(key: string): Promise<Readable>;
  /** Copies `from` to `to` then deletes `from`: a late PUT to `from` can never reach `to`. */
  promote(from: string, to: string): Promise<void>;
  /** Deletes an object; a missing one counts as deleted (S3 answers 204 either way). */
  remove(key: string): Promise<void>;
  /** A cheap reachability check of the bucket (HEAD). */
  check(): Promise<void>;
  close(): void;
}

export interface S3StorageOptions {
  location: S3Location;
  /** Overrides AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (MinIO, R2, s3rver …). */
  endpoint?: string;
  region?: string;
  /** Path-style addressing (endpoint/bucket/key): what most self-hosted stores need. */
  forcePathStyle?: boolean;
  credentials?: S3ClientConfig['credentials'];
}

/** Client settings from options and the standard AWS environment (region, endpoint, credentials, profiles). */
export function s3ClientConfig(o: S3StorageOptions, env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const endpoint = o.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = o.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  return {
    region,
    ...(endpoint ? { endpoint } : {}),
    // A custom endpoint is almost always a self-hosted store without virtual-host DNS for buckets.
    forcePathStyle: o.forcePathStyle ?? (endpoint !== undefined || env.AWS_S3_FORCE_PATH_STYLE === 'true'),
    ...(o.credentials ? { credentials: o.credentials } : {}),
    // No CRC32 baked into presigned URLs or added to requests: many S3-compatible stores reject
    // the newer flexible-checksum headers, and a presigned PUT's body is not known when signing.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

function isMissing(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)
  );
}

export function createS3Storage(o: S3StorageOptions): S3Storage {
  // The SDK warns on every start under Node 20 that future releases need Node 22; the versions
  // this package allows run on 20, and `serve`'s stderr is for the operator's problems.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client(s3ClientConfig(o));
  const { bucket, prefix } = o.location;
  const objectKey = (key: string) => (prefix ? `${prefix}/${key}` : key);

  async function presignPut(
    key: string,
    p: { contentType: string; contentLength: number; lifetimeSeconds: number },
  ): Promise<PresignedPut> {
    const command = new PutObjectCommand({
      Bucket: bucket,
      Key: objectKey(key),
      ContentType: p.contentType,
      ContentLength: p.contentLength,
    });
    // The presigner leaves content-type unsigned unless told; content-length must be named too.
    const url = await getSignedUrl(client, command, {
      expiresIn: p.lifetimeSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, headers: { 'content-type': p.contentType, 'content-length': String(p.contentLength) } };
  }

  async function presignGet(key: string, p: { lifetimeSeconds: number; contentType?: string }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: bucket,
      Key: objectKey(key),
      ...(p.contentType ? { ResponseContentType: p.contentType } : {}),
    });
    return getSignedUrl(client, command, { expiresIn: p.lifetimeSeconds });
  }

  async function head(key: string): Promise<ObjectHead | null> {
    try {
      const res = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return { size: res.ContentLength ?? 0, contentType: res.ContentType ?? null };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function readRange(key: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const res = await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: objectKey(key), Range: `bytes=${offset}-${offset + length - 1}` }),
      );
      const bytes = res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      // A range starting past the end: nothing to read there, like a positional read at EOF.
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416) return Buffer.alloc(0);
      throw err;
    }
  }

  async function read(key: string): Promise<Readable> {
    const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    return res.Body as Readable;
  }

  async function promote(from: string, to: string): Promise<void> {
    await client.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: objectKey(to),
        // The copy source is URL-encoded "bucket/key" (keys may hold spaces and unicode).
        CopySource: `${bucket}/${objectKey(from).split('/').map(encodeURIComponent).join('/')}`,
      }),
    );
    await remove(from);
  }

  async function remove(key: string): Promise<void> {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async function check(): Promise<void> {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
  }

  return {
    location: o.location,
    presignPut,
    presignGet,
    head,
    readRange,
    read,
    promote,
    remove,
    check,
    close: () => client.destroy(),
  };
}
