// Multipart uploads (an extension, docs/api.md "Multipart uploads", issue 28), on whichever
// store has them (Storage.multipart: S3's own, or the disk store's in disk-parts.ts):
// - presign with `"multipart": true` opens the store's multipart upload and records the plan
//   (part size, upload id) on the upload's row; everything after follows that record;
// - POST /api/v1/upload/parts hands out part URLs (any batch, again when they expired) and lists
//   the parts the store holds; on disk the parts are PUT to /storage-parts/<fileId>/<n> (here);
// - complete joins the parts into the staging object (joinParts), which is then checked like a
//   single PUT's file — its SHA-256 included, never taken on the store's word;
// - POST /api/v1/upload/abort closes an open upload now and frees its parts.
// The spec's single PUT (storage.ts) is untouched.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AbortUploadRequestSchema, PartsRequestSchema } from '../../api/schemas.js';
import type { AbortUploadResponse, PartsResponse } from '../../api/response-schemas.js';
import { type PartPlan, partRange, planParts } from '../../rules/parts.js';
import type { Services } from '../context.js';
import { type HttpError, apiError, isDiskFull, invalidRequest, sendError, storageError } from '../errors.js';
import { DEFAULT_PUT_LIMITS } from '../limits.js';
import { type PutGate, SlowBodyError, pacedBody } from '../put-gate.js';
import type { Caller } from '../repo/interface.js';
import type { Upload } from '../repo/uploads.js';
import { verify } from '../signing.js';
import { LengthMismatchError } from '../storage/disk.js';
import { type DiskParts, PART_CONTENT_TYPE, partKey } from '../storage/disk-parts.js';
import { isObjectState, objectKeysOf, sameEtag, stagingKeyOf } from '../storage/interface.js';
import type { JoinedFile } from '../stored-file.js';
import { callerOf } from './common.js';

/** Files above this many bytes are offered a multipart upload when presign asks for one. */
export const MULTIPART_THRESHOLD_BYTES = 16 * 1024 * 1024;

/** The plan to offer at presign, or null for a single PUT (not asked, no store support, small file). */
export function multipartPlan(s: Services, fileSize: number, asked: boolean): PartPlan | null {
  if (!asked || !s.deps.multipart || fileSize <= MULTIPART_THRESHOLD_BYTES) return null;
  return planParts(fileSize);
}

/** The plan recorded at presign, or null when the upload was offered a single PUT. */
export function recordedPlan(upload: Pick<Upload, 'partSize' | 'fileSize'>): PartPlan | null {
  if (upload.partSize === null || upload.partSize <= 0) return null;
  return { partSize: upload.partSize, partCount: Math.ceil(upload.fileSize / upload.partSize) };
}

/**
 * Opens the store's multipart upload for a presign; the caller records its id with the upload.
 * Null when the store refuses (an S3-compatible store without multipart uploads, or one down):
 * the presign then offers the single PUT, always a valid answer, and the error is reported.
 */
export async function openMultipart(s: Services, fileId: string, contentType: string): Promise<string | null> {
  try {
    return await s.deps.multipart!.create(stagingKeyOf(fileId), contentType);
  } catch (err) {
    s.deps.onInternalError?.(err);
    return null;
  }
}

/** Frees a store's multipart upload; a failure is left to the sweeper (and the bucket's lifecycle rule). */
export async function abortMultipart(s: Services, upload: Pick<Upload, 'fileId' | 'multipartId'>): Promise<void> {
  if (!upload.multipartId || !s.deps.multipart) return;
  try {
    await s.deps.multipart.abort(stagingKeyOf(upload.fileId), upload.multipartId);
  } catch (err) {
    s.deps.onInternalError?.(err);
  }
}

const notMultipart = () =>
  apiError(
    'invalid_upload',
    'no open multipart upload with this key belongs to you; presign with "multipart": true first',
    [{ path: 'key', message: 'unknown multipart upload' }],
  );

const storeForgot = () =>
  apiError(
    'invalid_upload',
    'the store no longer holds this multipart upload (aborted, or its parts already joined); presign again and send the whole file',
    [{ path: 'key', message: 'multipart upload gone from the store' }],
  );

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
        const size = partSize(plan, upload.fileSize, partNumber);
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

/** PUT /storage-parts/<fileId>/<partNumber> (disk store): one part, signed for its exact length; a retried part replaces the earlier one. */
export function registerPartsStorage(app: FastifyInstance, s: Services, parts: DiskParts, gate: PutGate): void {
  const putLimits = { ...DEFAULT_PUT_LIMITS, ...s.deps.putLimits };
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    scope.put('/storage-parts/:fileId/:partNumber', async (request, reply) => {
      const { fileId, partNumber: n } = request.params as { fileId: string; partNumber: string };
      const url = new URL(request.url, 'http://storage.invalid');
      const expires = Number(url.searchParams.get('expires') ?? NaN);
      const partNumber = /^[1-9]\d{0,4}$/.test(n) ? Number(n) : 0;
      const upload = /^[0-9a-f-]{36}$/.test(fileId) ? await s.repo.getUploadByFileId(fileId) : null;
      const plan = upload && recordedPlan(upload);
      const size =
        plan && partNumber >= 1 && partNumber <= plan.partCount ? partSize(plan, upload.fileSize, partNumber) : -1;
      const valid =
        size > 0 &&
        Number.isSafeInteger(expires) &&
        verify(
          s.deps.secret,
          {
            method: 'PUT',
            key: partKey(fileId, partNumber),
            expires,
            contentType: PART_CONTENT_TYPE,
            contentLength: size,
          },
          url.searchParams.get('signature') ?? '',
        );
      if (!valid)
        return reject(
          reply,
          storageError(
            'signature_mismatch',
            'the part URL signature does not match; ask POST /api/v1/upload/parts for a fresh one',
          ),
        );
      if (expires * 1000 <= s.deps.now().getTime())
        return reject(
          reply,
          storageError('expired', 'the part URL has expired; ask POST /api/v1/upload/parts for a fresh one'),
        );
      const stillOpen = async () => (await s.repo.openForPut(fileId, s.deps.now().toISOString())) !== null;
      if (!(await stillOpen()))
        return reject(reply, storageError('upload_closed', 'this upload is closed; presign again'));
      if (Number(request.headers['content-length']) !== size)
        return reject(
          reply,
          storageError(
            'content_length_mismatch',
            `part ${partNumber} is exactly ${size} bytes; send Content-Length: ${size}`,
          ),
        );
      // The same bounds as the single PUT (put-gate.ts): a place among the PUTs in flight, and a pace.
      const place = gate.admit(upload?.keyId ?? null);
      if ('kind' in place)
        return reject(
          reply,
          storageError('unavailable', 'the server takes no more uploads right now; send the part again shortly', {
            'Retry-After': '5',
          }),
        );
      reply.raw.once('close', () => place.release());
      try {
        const { start } = partRange(plan!, upload!.fileSize, partNumber);
        const body = pacedBody(request.raw, putLimits);
        const outcome = await parts.receive(fileId, partNumber, start, body, size, stillOpen);
        if (outcome === 'closed')
          return reject(reply, storageError('upload_closed', 'this upload is closed; presign again'));
        return reply.code(200).header('ETag', `"${outcome.etag}"`).send();
      } catch (err) {
        if (err instanceof LengthMismatchError)
          return reject(reply, storageError('content_length_mismatch', `${err.message}; the part was not kept`));
        if (err instanceof SlowBodyError)
          return reject(
            reply,
            storageError('request_timeout', `${err.message}; the part was not kept — send it again`),
          );
        if (request.raw.socket.destroyed) return reply.hijack();
        if (isDiskFull(err))
          return reject(
            reply,
            storageError(
              'insufficient_storage',
              'the server has no disk space left; the part was not kept — try later',
            ),
          );
        throw err;
      }
    });
  });
}

function partSize(plan: PartPlan, fileSize: number, partNumber: number): number {
  const { start, end } = partRange(plan, fileSize, partNumber);
  return end - start;
}

function reject(reply: FastifyReply, err: HttpError): FastifyReply {
  reply.header('Connection', 'close');
  return sendError(reply, err);
}

/** Whether the upload's file is whole in staging (or already promoted): its parts were joined. */
async function alreadyJoined(s: Services, upload: Upload): Promise<boolean> {
  const again = await s.repo.getUpload(upload.key);
  if (again?.storedAt) return true;
  const head = (await s.deps.storage.head(stagingKeyOf(upload.fileId))) ?? (await s.deps.storage.head(upload.key));
  return head?.size === upload.fileSize;
}

/**
 * Complete of a multipart upload: every part the recorded plan has, present whole and with the
 * ETag its PUT answered, is joined in order into the staging object, which complete then checks
 * like a single PUT's. Returns what is known of the joined file (the disk store hashed it while
 * joining); null without `parts` (a spec client, a single PUT) or when an earlier complete
 * already joined them.
 */
export async function joinParts(
  s: Services,
  upload: Upload,
  given: { partNumber: number; etag: string }[] | undefined,
): Promise<JoinedFile | null> {
  if (!given) return null;
  const plan = recordedPlan(upload);
  const multipart = s.deps.multipart;
  if (!plan || !upload.multipartId || !multipart)
    throw apiError(
      'invalid_upload',
      'this upload was presigned for a single PUT, not in parts; complete it without "parts"',
      [{ path: 'parts', message: 'not a multipart upload' }],
    );
  // Joined by an earlier complete that did not get to commit: checked as it is.
  if (upload.storedAt) return null;
  const bad = (message: string) =>
    apiError(
      'invalid_upload',
      `${message}; nothing was joined — list the parts with POST /api/v1/upload/parts, send what is missing, then complete again`,
      [{ path: 'parts', message }],
    );
  if (given.length !== plan.partCount) throw bad(`this upload has ${plan.partCount} parts, ${given.length} were named`);
  const stagingKey = stagingKeyOf(upload.fileId);
  const listed = await multipart.listParts(stagingKey, upload.multipartId).catch(async (err: unknown) => {
    if (!isObjectState(err, 'missing')) throw err;
    // Joined meanwhile by another complete (another instance), or by one that did not get to record it.
    if (await alreadyJoined(s, upload)) return null;
    throw storeForgot();
  });
  if (!listed) return null;
  const stored = new Map(listed.map((p) => [p.partNumber, p]));
  for (let n = 1; n <= plan.partCount; n++) {
    const part = stored.get(n);
    const named = given.find((p) => p.partNumber === n);
    if (!part || part.size !== partSize(plan, upload.fileSize, n)) throw bad(`part ${n} was not uploaded whole`);
    if (!named || !sameEtag(named.etag, part.etag)) throw bad(`part ${n}'s ETag differs from the stored part's`);
  }
  const ordered = Array.from({ length: plan.partCount }, (_, i) => ({
    partNumber: i + 1,
    etag: stored.get(i + 1)!.etag,
  }));
  const joined = await multipart.complete(stagingKey, upload.multipartId, ordered).catch(async (err: unknown) => {
    if (isObjectState(err, 'changed')) throw bad('a part was sent again while the parts were being joined');
    if (!isObjectState(err, 'missing')) throw err;
    if (await alreadyJoined(s, upload)) return null;
    throw storeForgot();
  });
  if (!joined) return null;
  await s.repo.markStored(upload.key, s.deps.now().toISOString());
  const head = await s.deps.storage.head(stagingKey);
  return head && joined.sha256 ? { etag: head.etag, sha256: joined.sha256 } : {};
}
