// Multipart uploads on the disk store (an extension, docs/api.md "Multipart uploads", issue 28):
// POST /api/v1/upload/parts hands out signed part URLs (any batch, again when they expired) and
// lists the parts received so far; PUT /storage-parts/<fileId>/<partNumber> receives one part.
// Complete assembles the parts into the staging object (assembleParts) and then checks it like
// a single PUT's file. The spec's single PUT (storage.ts) is untouched.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PartsRequestSchema } from '../../api/schemas.js';
import { type PartPlan, partRange, planParts } from '../../rules/parts.js';
import type { Services } from '../context.js';
import { type HttpError, apiError, isDiskFull, invalidRequest, sendError, storageError } from '../errors.js';
import { DEFAULT_PUT_LIMITS } from '../limits.js';
import { type PutGate, SlowBodyError, pacedBody } from '../put-gate.js';
import { verify } from '../signing.js';
import { LengthMismatchError } from '../storage/disk.js';
import { type DiskParts, PART_CONTENT_TYPE, partKey } from '../storage/disk-parts.js';
import { stagingKeyOf } from '../storage/interface.js';
import { callerOf } from './common.js';

/** Files above this many bytes are offered a multipart upload when presign asks for one. */
export const MULTIPART_THRESHOLD_BYTES = 16 * 1024 * 1024;

/** The plan of an upload offered multipart, or null when presign would offer a single PUT. */
export function multipartPlan(s: Services, fileSize: number, asked: boolean): PartPlan | null {
  if (!asked || !s.deps.parts || fileSize <= MULTIPART_THRESHOLD_BYTES) return null;
  return planParts(fileSize);
}

export function registerPartsApi(api: FastifyInstance, s: Services): void {
  api.post('/api/v1/upload/parts', async (request) => {
    const caller = callerOf(request);
    const parsed = PartsRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the parts request');
    const upload = await s.repo.getUpload(parsed.data.key);
    const plan = upload && multipartPlan(s, upload.fileSize, true);
    if (
      !upload ||
      upload.userId !== caller.userId ||
      upload.brandId !== caller.brandId ||
      upload.completedAt ||
      upload.itemId ||
      !plan ||
      upload.thumbnail
    )
      throw apiError(
        'invalid_upload',
        'no open multipart upload with this key belongs to you; presign with "multipart": true first',
        [{ path: 'key', message: 'unknown multipart upload' }],
      );
    const expires = Math.floor(s.deps.now().getTime() / 1000) + s.deps.urlLifetimeSeconds;
    const parts = parsed.data.partNumbers.map((n) => {
      if (n > plan.partCount)
        throw apiError('invalid_request', `part ${n} is not one of parts 1–${plan.partCount}`, [
          { path: 'partNumbers', message: 'out of range', actual: n, limit: plan.partCount },
        ]);
      const { start, end } = partRange(plan, upload.fileSize, n);
      return {
        partNumber: n,
        url: s.deps.parts!.presign(upload.fileId, n, end - start, expires),
        headers: { 'Content-Type': PART_CONTENT_TYPE, 'Content-Length': String(end - start) },
      };
    });
    return {
      partSize: plan.partSize,
      partCount: plan.partCount,
      expiresAt: new Date(expires * 1000).toISOString(),
      parts,
      uploaded: await s.deps.parts!.list(upload.fileId),
    };
  });
}

/** PUT /storage-parts/<fileId>/<partNumber>: one part, signed for its exact length; a retried part replaces the earlier one. */
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
      const plan = upload && multipartPlan(s, upload.fileSize, true);
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
        const outcome = await parts.receive(fileId, partNumber, pacedBody(request.raw, putLimits), size, stillOpen);
        if (outcome === 'closed')
          return reject(reply, storageError('upload_closed', 'this upload is closed; presign again'));
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
      const stored = (await parts.list(fileId)).find((p) => p.partNumber === partNumber);
      return reply
        .code(200)
        .header('ETag', `"${stored?.etag ?? ''}"`)
        .send();
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

/**
 * Complete of a multipart upload: every part present, with the ETag the client was given, is
 * concatenated in order into the staging object, which complete then checks like a single PUT's.
 * Without `parts` (a spec client, or a single PUT) nothing happens here.
 */
export async function assembleParts(
  s: Services,
  upload: { key: string; fileId: string; fileSize: number },
  given: { partNumber: number; etag: string }[] | undefined,
): Promise<void> {
  if (!given || !s.deps.parts || !s.deps.disk) return;
  const plan = multipartPlan(s, upload.fileSize, true);
  const stored = new Map((await s.deps.parts.list(upload.fileId)).map((p) => [p.partNumber, p]));
  const bad = (message: string) =>
    apiError(
      'invalid_upload',
      `${message}; nothing was assembled — list the parts with POST /api/v1/upload/parts, send what is missing, then complete again`,
      [{ path: 'parts', message }],
    );
  if (!plan || given.length !== plan.partCount)
    throw bad(`this upload has ${plan?.partCount ?? 0} parts, ${given.length} were named`);
  for (let n = 1; n <= plan.partCount; n++) {
    const part = stored.get(n);
    const named = given.find((p) => p.partNumber === n);
    if (!part || part.size !== partSize(plan, upload.fileSize, n)) throw bad(`part ${n} was not uploaded whole`);
    if (!named || named.etag.replace(/"/g, '') !== part.etag)
      throw bad(`part ${n}'s ETag differs from the stored part's`);
  }
  const numbers = Array.from({ length: plan.partCount }, (_, i) => i + 1);
  await s.deps.parts.assemble(upload.fileId, numbers, s.deps.disk.pathOf(stagingKeyOf(upload.fileId)));
  await s.repo.markStored(upload.key, s.deps.now().toISOString());
  await s.deps.parts.remove(upload.fileId);
}
