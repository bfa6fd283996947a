// POST /api/v1/upload/presign: checks the file against the rules table (or the thumbnail rule),
// the brand's quota, and hands out a signed PUT URL bound to contentType and fileSize (and to the
// file's SHA-256 when the client declares it: the store refuses a body that differs).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PresignRequestSchema, type PresignResponse } from '../../api/schemas.js';
import {
  type ContentType,
  checkFile,
  checkThumbnail,
  detectType,
  formatBytes,
  formatOfMime,
} from '../../rules/rules.js';
import type { Services } from '../context.js';
import { type HttpError, apiError, invalidRequest, violationError } from '../errors.js';
import { buildKey, sanitizeFileName } from '../object-keys.js';
import type { ReservationRefusal } from '../repo/reservations.js';
import { stagingKeyOf } from '../storage/interface.js';
import { callerOf } from './common.js';
import { abortMultipart, multipartPlan, openMultipart } from '../multipart.js';

export function registerPresign(app: FastifyInstance, s: Services): void {
  app.post('/api/v1/upload/presign', async (request) => {
    const caller = callerOf(request);
    const parsed = PresignRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the presign request');
    const body = parsed.data;

    const safeName = sanitizeFileName(body.fileName);
    if (!safeName)
      throw apiError(
        'invalid_request',
        `fileName "${body.fileName}" has no usable characters; send the file's real name`,
        [{ path: 'fileName', message: 'empty after sanitising' }],
      );

    const type = resolveType(body.type, body.contentType, body.fileSize, body.thumbnail === true);
    const violations = body.thumbnail
      ? checkThumbnail(body.contentType, body.fileSize)
      : checkFile(type, body.contentType, body.fileSize);
    if (violations.length > 0) throw violationError(violations[0]!);

    const now = s.deps.now();
    const fileId = randomUUID();
    const key = buildKey(caller.userId, fileId, safeName);
    const expires = Math.floor(now.getTime() / 1000) + s.deps.urlLifetimeSeconds;
    // Offered only when asked for (an extension): a spec client's answer never changes. The
    // store's multipart upload is opened first, so the row records its id from the start.
    const offer = body.thumbnail ? null : multipartPlan(s, body.fileSize, body.multipart === true);
    const multipartId = offer ? await openMultipart(s, fileId, body.contentType) : null;
    const plan = multipartId ? offer : null;
    // Quota checked and the bytes reserved in one transaction: racing presigns cannot overshoot it.
    const reserved = await s.repo.reserveUpload(
      {
        key,
        fileId,
        brandId: caller.brandId,
        userId: caller.userId,
        fileName: body.fileName,
        contentType: body.contentType,
        fileSize: body.fileSize,
        type,
        thumbnail: body.thumbnail === true,
        expiresAt: expires * 1000,
        createdAt: now.toISOString(),
        keyId: caller.keyId,
        sha256: body.sha256 ?? null,
        partSize: plan?.partSize ?? null,
        multipartId,
      },
      s.limits,
      now.getTime(),
    );
    if (!reserved.ok) {
      await abortMultipart(s, { fileId, multipartId });
      throw reservationError(reserved.refusal, body.fileSize, now.getTime());
    }
    // The URL writes the upload's staging object only; complete checks it and promotes it to `key`.
    const signed = await s.deps.storage.presignPut({
      key: stagingKeyOf(fileId),
      contentType: body.contentType,
      contentLength: body.fileSize,
      ...(body.sha256 ? { sha256: body.sha256 } : {}),
      expiresAt: new Date(expires * 1000),
    });
    return {
      presignedUrl: signed.url,
      ...(plan ? { multipart: { partSize: plan.partSize, partCount: plan.partCount } } : {}),
      key,
      fileId,
      type,
      expiresAt: new Date(expires * 1000).toISOString(),
      headers: signed.headers,
    } satisfies PresignResponse;
  });
}

/** The given type, else detected from the MIME type (detectType in src/rules/rules.ts); a thumbnail is an image, so carousel. */
function resolveType(
  given: ContentType | undefined,
  contentType: string,
  fileSize: number,
  thumbnail: boolean,
): ContentType {
  if (given) return given;
  const format = formatOfMime(contentType);
  if (thumbnail) return 'carousel';
  if (!format) {
    throw apiError(
      'unsupported_media_type',
      `${contentType} is not a supported media type; allowed: video/mp4, video/quicktime, image/jpeg, image/png, image/webp`,
      [{ path: 'contentType', message: 'unsupported', actual: contentType }],
    );
  }
  return detectType(format, fileSize);
}

/** A presign the reservation limits refuse (src/server/repo/reservations.ts), in the client's terms. */
function reservationError(r: ReservationRefusal, fileSize: number, nowMs: number): HttpError {
  const left = Math.max(0, r.limit - r.used);
  const detail = { path: 'fileSize', actual: fileSize, limit: left };
  switch (r.kind) {
    case 'quota':
      return apiError(
        'quota_exceeded',
        `the brand's storage quota of ${formatBytes(r.limit)} would be exceeded (${formatBytes(r.used)} used, ${formatBytes(left)} left); delete items to make room`,
        [{ ...detail, message: 'over quota' }],
      );
    case 'thumbnail_quota':
      return apiError(
        'quota_exceeded',
        `the brand's thumbnails would exceed their own quota of ${formatBytes(r.limit)} (${formatBytes(r.used)} held, ${formatBytes(left)} left); attach or delete thumbnails to make room`,
        [{ ...detail, message: 'over the thumbnail quota' }],
      );
    default: {
      // The key's own reservations free up as their URLs expire, or as they are stored and completed.
      const retryAfter = Math.max(1, Math.ceil((r.retryAtMs - nowMs) / 1000));
      const what =
        r.kind === 'key_uploads'
          ? `${r.used} uploads presigned and not yet stored (at most ${r.limit})`
          : `${formatBytes(r.used)} presigned and not yet stored (at most ${formatBytes(r.limit)})`;
      return apiError(
        'rate_limited',
        `this API key already holds ${what}; PUT and complete those first, or retry after ${retryAfter} s`,
        [{ path: 'fileSize', message: `too much reserved by this key (${r.kind})`, actual: r.used, limit: r.limit }],
        { 'Retry-After': String(retryAfter) },
      );
    }
  }
}
