// The multipart extension's API routes (docs/api.md "Multipart uploads", issue 28), on whichever
// store has multipart uploads (Storage.multipart: S3's own, or the disk store's in
// storage/disk-parts.ts): POST /api/v1/upload/parts hands out part URLs (any batch, again when
// they expired) and lists the parts the store holds; POST /api/v1/upload/abort closes an open
// upload now and frees its parts. The plan, opening, aborting and joining are store-neutral
// (../multipart.ts); on disk the parts are PUT to /storage-parts/<fileId>/<n>, received by the
// one receiver of ./storage.ts. The spec's single PUT is untouched.
import type { FastifyInstance } from 'fastify';
import { AbortUploadRequestSchema, PartsRequestSchema } from '../../api/schemas.js';
import type { AbortUploadResponse, PartsResponse } from '../../api/response-schemas.js';
import { type PartPlan, partBytes } from '../../rules/parts.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest } from '../errors.js';
import { abortMultipart, notMultipart, recordedPlan, storeForgot } from '../multipart.js';
import type { Caller } from '../repo/interface.js';
import type { Upload } from '../repo/uploads.js';
import { isObjectState, objectKeysOf, stagingKeyOf } from '../storage/interface.js';
import { callerOf } from './common.js';

/** The caller's open multipart upload behind `key`, with its plan. */
function openMultipartOf(caller: Caller, upload: Upload | null): { upload: Upload; plan: PartPlan } {
  const plan = upload && recordedPlan(upload);
  if (
    !upload ||
    !plan ||
    !upload.multipartId ||
    upload.userId !== caller.userId ||
    upload.brandId !== caller.brandId ||
    upload.completedAt ||
    upload.itemId ||
    upload.thumbnail
  )
    throw notMultipart();
  return { upload, plan };
}

export function registerPartsApi(api: FastifyInstance, s: Services): void {
  api.post('/api/v1/upload/parts', async (request) => {
    const caller = callerOf(request);
    const parsed = PartsRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the parts request');
    const { upload, plan } = openMultipartOf(caller, await s.repo.getUpload(parsed.data.key));
    const multipart = s.deps.multipart;
    if (!multipart) throw notMultipart();
    const expires = Math.floor(s.deps.now().getTime() / 1000) + s.deps.urlLifetimeSeconds;
    for (const n of parsed.data.partNumbers)
      if (n > plan.partCount)
        throw apiError('invalid_request', `part ${n} is not one of parts 1–${plan.partCount}`, [
          { path: 'partNumbers', message: 'out of range', actual: n, limit: plan.partCount },
        ]);
    const stagingKey = stagingKeyOf(upload.fileId);
    const uploaded = await multipart.listParts(stagingKey, upload.multipartId!).catch((err: unknown) => {
      if (isObjectState(err, 'missing')) throw storeForgot();
      throw err;
    });
    // An upload still being sent is not abandoned: the sweeper leaves it (and its parts) until these URLs expire.
    await s.repo.renewUpload(upload.key, expires * 1000);
    const parts = await Promise.all(
      parsed.data.partNumbers.map(async (partNumber) => {
        const size = partBytes(plan, upload.fileSize, partNumber)!;
        const signed = await multipart.presignPart({
          stagingKey,
          uploadId: upload.multipartId!,
          partNumber,
          size,
          expiresAt: new Date(expires * 1000),
        });
        return { partNumber, url: signed.url, headers: signed.headers };
      }),
    );
    return {
      partSize: plan.partSize,
      partCount: plan.partCount,
      expiresAt: new Date(expires * 1000).toISOString(),
      parts,
      uploaded: uploaded.map((p) => ({ partNumber: p.partNumber, size: p.size, etag: p.etag })),
    } satisfies PartsResponse;
  });

  api.post('/api/v1/upload/abort', async (request) => {
    const caller = callerOf(request);
    const parsed = AbortUploadRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the abort request');
    const { key } = parsed.data;
    // One at a time with a complete of the same key: either the complete wins, or the abort.
    return s.oneAtATime(key, () => abortUpload(s, caller, key));
  });
}

/** Closes the caller's open upload `key` now and frees its parts and objects; idempotent. */
async function abortUpload(s: Services, caller: Caller, key: string): Promise<AbortUploadResponse> {
  const upload = await s.repo.getUpload(key);
  // Keys start with their user's id (object-keys.ts): a key of the caller's whose row is gone was
  // aborted, swept or deleted with its item — closed, which is what an abort wants.
  const own = upload
    ? upload.userId === caller.userId && upload.brandId === caller.brandId
    : key.startsWith(`${caller.userId}/`);
  if (!own)
    throw apiError('invalid_upload', 'no upload with this key belongs to you; pass back the key presign returned', [
      { path: 'key', message: 'unknown upload' },
    ]);
  const closed = await s.repo.abortUpload(key, s.deps.now().toISOString(), objectKeysOf);
  if (!closed) return { key, aborted: false };
  await abortMultipart(s, closed);
  await s.removeObjects(objectKeysOf(closed));
  return { key, aborted: true };
}
