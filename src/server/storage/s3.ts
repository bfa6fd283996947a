// Objects in an S3-compatible store (AWS S3, MinIO, Ceph RGW, R2, Garage) through the AWS SDK v3,
// behind the same Storage interface as the disk. Loaded with a dynamic import only when
// `--storage s3://…` is given, so the embedded default never pays for the SDK. An upload's bytes
// go from the client straight to the store with a presigned PUT that signs content-type,
// content-length and host: the store itself answers 403 when the PUT's headers differ from what
// the presign allowed. Staging objects live under `<prefix>/staging/`, final ones beside them.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  type CheckedVersion,
  type MultipartStore,
  bareEtag,
  sameEtag,
  type ObjectHead,
  type OpenMultipart,
  ObjectStateError,
  type PresignedPut,
  type PutToPresign,
  STAGING_PREFIX,
  type Storage,
  type StoredPart,
} from './interface.js';
import { DEFAULT_TIMEOUTS } from '../limits.js';
import { attachmentDisposition, fileNameOfKey } from './disposition.js';
import { sha256OfObject } from './object-hash.js';

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

export interface S3StorageOptions {
  location: S3Location;
  /** Overrides AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (MinIO, R2, Ceph RGW …). */
  endpoint?: string;
  region?: string;
  /** Path-style addressing (endpoint/bucket/key): what most self-hosted stores need. */
  forcePathStyle?: boolean;
  credentials?: S3ClientConfig['credentials'];
  /** The clock URLs are signed with (the server's, so expiries match the database's). */
  now?: () => Date;
  /** Each call to the store, its retries included, gives up after this many milliseconds. */
  timeoutMs?: number;
}

/** Client settings from options and the standard AWS environment (region, endpoint, credentials, profiles). */
export function s3ClientConfig(o: S3StorageOptions, env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUTS.storageMs;
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
    // A store that accepts no connection, or stops answering on one, fails the call instead of
    // holding it (and the request behind it); each call's overall deadline is in createS3Storage.
    requestHandler: { connectionTimeout: Math.min(3_000, timeoutMs), requestTimeout: timeoutMs },
  };
}

/** The signed header that carries the body's SHA-256 (base64) on a presigned PUT. */
export const CHECKSUM_HEADER = 'x-amz-checksum-sha256';

/**
 * A whole-object ChecksumSHA256 (base64 of 32 bytes) as hex; undefined for a multipart upload's
 * checksum of checksums (`…-3`), which is not the SHA-256 of the bytes.
 */
export function sha256OfChecksum(checksum: string): string | undefined {
  const bytes = /^[A-Za-z0-9+/]{43}=$/.test(checksum) ? Buffer.from(checksum, 'base64') : null;
  return bytes?.length === 32 ? bytes.toString('hex') : undefined;
}

const quoted = (etag: string) => `"${bareEtag(etag)}"`;

function statusOf(err: unknown): number | undefined {
  return err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
}

function isMissing(err: unknown): boolean {
  return (
    err instanceof S3ServiceException && (err.name === 'NotFound' || err.name === 'NoSuchKey' || statusOf(err) === 404)
  );
}

/** A multipart upload that is not (or no longer) open: completed, aborted, or never made. */
function isNoSuchUpload(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NoSuchUpload' || statusOf(err) === 404);
}

/** SigV4 allows at most 7 days; at least one second so a URL is never born expired. */
function lifetimeSeconds(expiresAt: Date, now: Date): number {
  return Math.min(7 * 24 * 3600, Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 1000)));
}

export interface S3Storage extends Storage {
  close(): void;
}

export function createS3Storage(o: S3StorageOptions): S3Storage {
  // The SDK warns on every start under a Node it plans to drop; `serve`'s stderr is for the
  // operator's problems, and the Node lines we support are tested (.ci/run).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client(s3ClientConfig(o));
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUTS.storageMs;
  // Every call has a deadline, retries included: the SDK's own retries must not outlast it.
  const send: S3Client['send'] = ((command: Parameters<S3Client['send']>[0]) =>
    client.send(command, { abortSignal: AbortSignal.timeout(timeoutMs) })) as S3Client['send'];
  const now = o.now ?? (() => new Date());
  const { bucket, prefix } = o.location;
  const objectKey = (key: string) => (prefix ? `${prefix}/${key}` : key);

  async function presignPut(put: PutToPresign): Promise<PresignedPut> {
    // S3 wants the checksum in base64; the store answers 400 BadDigest when the body differs.
    const checksum = put.sha256 ? Buffer.from(put.sha256, 'hex').toString('base64') : undefined;
    const command = new PutObjectCommand({
      Bucket: bucket,
      Key: objectKey(put.key),
      ContentType: put.contentType,
      ContentLength: put.contentLength,
      ...(checksum ? { ChecksumSHA256: checksum } : {}),
    });
    const signingDate = now();
    // The presigner leaves content-type unsigned unless told; content-length must be named too.
    // The checksum is a signed header the client must send, not a query parameter (the
    // presigner would hoist an x-amz-* header into the query): a PUT without it, or with
    // another, does not match the signature.
    const url = await getSignedUrl(client, command, {
      signingDate,
      expiresIn: lifetimeSeconds(put.expiresAt, signingDate),
      signableHeaders: new Set(['content-type', 'content-length', ...(checksum ? [CHECKSUM_HEADER] : [])]),
      ...(checksum ? { unhoistableHeaders: new Set([CHECKSUM_HEADER]) } : {}),
    });
    return {
      url,
      headers: {
        'Content-Type': put.contentType,
        'Content-Length': String(put.contentLength),
        ...(checksum ? { [CHECKSUM_HEADER]: checksum } : {}),
      },
    };
  }

  async function presignGet(get: { key: string; expiresAt: Date }): Promise<string> {
    const signingDate = now();
    const command = new GetObjectCommand({
      Bucket: bucket,
      Key: objectKey(get.key),
      // The store cannot send nosniff: a browser opening the URL saves the file instead (disposition.ts).
      ResponseContentDisposition: attachmentDisposition(fileNameOfKey(get.key)),
    });
    return getSignedUrl(client, command, { signingDate, expiresIn: lifetimeSeconds(get.expiresAt, signingDate) });
  }

  async function head(key: string): Promise<ObjectHead | null> {
    try {
      // ChecksumMode: the SHA-256 the store verified at PUT, when the object was stored with one.
      const res = await send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key), ChecksumMode: 'ENABLED' }));
      const sha256 = res.ChecksumSHA256 ? sha256OfChecksum(res.ChecksumSHA256) : undefined;
      return {
        size: res.ContentLength ?? 0,
        contentType: res.ContentType ?? null,
        etag: res.ETag ?? '',
        lastModified: res.LastModified ?? new Date(0),
        ...(sha256 ? { sha256 } : {}),
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function readRange(key: string, offset: number, length: number, etag?: string): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const res = await send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: objectKey(key),
          Range: `bytes=${offset}-${offset + length - 1}`,
        }),
      );
      // No If-Match: the answer says which version it is, whether or not a store honours one.
      if (etag && !(res.ETag && sameEtag(res.ETag, etag))) {
        res.Body?.transformToWebStream().cancel();
        throw new ObjectStateError('changed', key);
      }
      const bytes = res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if (isMissing(err)) throw new ObjectStateError('missing', key);
      if (statusOf(err) === 412) throw new ObjectStateError('changed', key);
      // A range that starts past the end: nothing there, like a positional read at end of file.
      if (statusOf(err) === 416) return Buffer.alloc(0);
      throw err;
    }
  }

  /**
   * Copy, then prove, then delete the staging object. The proof never rests on the store: RGW
   * ignores x-amz-copy-source-if-match (Ceph trackers 40808, 53945) and answers a copy's ETag
   * without the quotes its HEAD has; AWS gives the copy of a multipart-uploaded object an ETag of
   * its own. So the final object is HEADed (a key no URL can write): the same ETag as the checked
   * version (content-derived, quotes aside) proves it; otherwise its bytes, read and hashed, must
   * have the checked SHA-256. Unproven, it is deleted, and the staging object (maybe a late PUT's
   * bytes, to be checked again) stays.
   */
  async function promote(stagingKey: string, finalKey: string, checked?: CheckedVersion): Promise<void> {
    if (!stagingKey.startsWith(STAGING_PREFIX) || finalKey.startsWith(STAGING_PREFIX))
      throw new Error(`promote goes from a staging key to a final key, not ${stagingKey} → ${finalKey}`);
    try {
      await send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: objectKey(finalKey),
          // The copy source is URL-encoded "bucket/key" (keys may hold spaces and unicode).
          CopySource: `${bucket}/${objectKey(stagingKey).split('/').map(encodeURIComponent).join('/')}`,
          // A store that honours it refuses a replaced version at once; the proof below does not rely on it.
          ...(checked ? { CopySourceIfMatch: quoted(checked.etag) } : {}),
        }),
      );
    } catch (err) {
      if (isMissing(err)) throw new ObjectStateError('missing', stagingKey);
      if (statusOf(err) === 412) throw new ObjectStateError('changed', stagingKey);
      throw err;
    }
    if (checked && !(await isCheckedVersion(finalKey, checked))) {
      await remove(finalKey);
      throw new ObjectStateError('changed', stagingKey);
    }
    await remove(stagingKey);
  }

  /** Whether the object at `key` is the checked version's bytes (promote's proof). */
  async function isCheckedVersion(key: string, checked: CheckedVersion): Promise<boolean> {
    const final = await head(key);
    if (!final || (checked.size !== undefined && final.size !== checked.size)) return false;
    if (sameEtag(final.etag, checked.etag)) return true;
    // Not a checksum the store reports: one that does not verify it may echo what the PUT declared.
    if (!checked.sha256) return false;
    try {
      return (await sha256OfObject({ storage: { readRange }, key, head: final })) === checked.sha256;
    } catch (err) {
      if (err instanceof ObjectStateError) return false;
      throw err;
    }
  }

  async function putObject(key: string, body: Buffer, contentType: string): Promise<void> {
    if (key.startsWith(STAGING_PREFIX)) throw new Error(`putObject writes final keys, not ${key}`);
    await send(new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), Body: body, ContentType: contentType }));
  }

  async function remove(key: string): Promise<void> {
    try {
      await send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async function listStaging(): Promise<string[]> {
    const keys: string[] = [];
    const listed = objectKey(STAGING_PREFIX);
    let token: string | undefined;
    do {
      const page = await send(new ListObjectsV2Command({ Bucket: bucket, Prefix: listed, ContinuationToken: token }));
      for (const item of page.Contents ?? []) {
        if (!item.Key) continue;
        keys.push(item.Key.slice(listed.length - STAGING_PREFIX.length));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  const multipart = s3Multipart({ client, send, now, bucket, objectKey, prefix });

  return {
    multipart,
    presignPut,
    presignGet,
    head,
    readRange,
    promote,
    delete: remove,
    putObject,
    listStaging,
    async check() {
      await send(new HeadBucketCommand({ Bucket: bucket }));
    },
    close: () => client.destroy(),
  };
}

/**
 * S3's multipart upload behind MultipartStore: the parts go from the client to the store with
 * presigned UploadPart URLs (content-length signed, as a single PUT's), and CompleteMultipartUpload
 * joins them into the staging object. S3 itself refuses a part list whose ETags are not its
 * parts'; the joined object's SHA-256 is then read back at complete (stored-file.ts), since S3's
 * checksum of a multipart object is a checksum of the parts' checksums.
 */
function s3Multipart(c: {
  client: S3Client;
  send: S3Client['send'];
  now: () => Date;
  bucket: string;
  objectKey: (key: string) => string;
  prefix: string;
}): MultipartStore {
  const { client, send, now, bucket, objectKey } = c;
  const stagingPrefix = objectKey(STAGING_PREFIX);

  async function listParts(stagingKey: string, uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await send(
          new ListPartsCommand({
            Bucket: bucket,
            Key: objectKey(stagingKey),
            UploadId: uploadId,
            PartNumberMarker: marker,
          }),
        );
        for (const p of page.Parts ?? [])
          if (p.PartNumber) parts.push({ partNumber: p.PartNumber, size: p.Size ?? 0, etag: bareEtag(p.ETag ?? '') });
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (err) {
      if (isNoSuchUpload(err)) throw new ObjectStateError('missing', stagingKey);
      throw err;
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async function listUploads(): Promise<OpenMultipart[]> {
    return (await multipartUploadsOf(send, bucket, stagingPrefix)).map((u) => ({
      stagingKey: u.key.slice(stagingPrefix.length - STAGING_PREFIX.length),
      uploadId: u.uploadId,
      initiated: u.initiated,
    }));
  }

  return {
    async create(stagingKey, contentType) {
      const res = await send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: objectKey(stagingKey), ContentType: contentType }),
      );
      if (!res.UploadId) throw new Error(`the store opened no multipart upload for ${stagingKey}`);
      return res.UploadId;
    },
    async presignPart({ stagingKey, uploadId, partNumber, size, expiresAt }) {
      const command = new UploadPartCommand({
        Bucket: bucket,
        Key: objectKey(stagingKey),
        UploadId: uploadId,
        PartNumber: partNumber,
        ContentLength: size,
      });
      const signingDate = now();
      const url = await getSignedUrl(client, command, {
        signingDate,
        expiresIn: lifetimeSeconds(expiresAt, signingDate),
        signableHeaders: new Set(['content-length']),
      });
      return { url, headers: { 'Content-Length': String(size) } };
    },
    listParts,
    async complete(stagingKey, uploadId, parts) {
      try {
        await send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: objectKey(stagingKey),
            UploadId: uploadId,
            MultipartUpload: {
              Parts: [...parts]
                .sort((a, b) => a.partNumber - b.partNumber)
                .map((p) => ({ PartNumber: p.partNumber, ETag: quoted(p.etag) })),
            },
          }),
        );
      } catch (err) {
        if (isNoSuchUpload(err)) throw new ObjectStateError('missing', stagingKey);
        // A part sent again since it was listed: its ETag is not the one named.
        if (err instanceof S3ServiceException && (err.name === 'InvalidPart' || err.name === 'InvalidPartOrder'))
          throw new ObjectStateError('changed', stagingKey);
        throw err;
      }
      return {};
    },
    async abort(stagingKey, uploadId) {
      try {
        await send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey(stagingKey), UploadId: uploadId }));
      } catch (err) {
        if (!isNoSuchUpload(err)) throw err;
      }
    },
    listUploads,
  };
}

/** Every multipart upload a bucket holds open under `prefix`, through all of ListMultipartUploads' pages. */
export async function multipartUploadsOf(
  send: S3Client['send'],
  bucket: string,
  prefix: string | undefined,
): Promise<Array<{ key: string; uploadId: string; initiated: Date }>> {
  const open: Array<{ key: string; uploadId: string; initiated: Date }> = [];
  let keyMarker: string | undefined;
  let idMarker: string | undefined;
  do {
    const page = await send(
      new ListMultipartUploadsCommand({
        Bucket: bucket,
        Prefix: prefix,
        KeyMarker: keyMarker,
        UploadIdMarker: idMarker,
      }),
    );
    for (const u of page.Uploads ?? [])
      if (u.Key && u.UploadId) open.push({ key: u.Key, uploadId: u.UploadId, initiated: u.Initiated ?? new Date(0) });
    const more = page.IsTruncated === true;
    keyMarker = more ? page.NextKeyMarker : undefined;
    idMarker = more ? page.NextUploadIdMarker : undefined;
  } while (keyMarker);
  return open;
}
