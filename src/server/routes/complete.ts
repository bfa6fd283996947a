// POST /api/v1/upload/complete: turns a PUT upload into a new item or a carousel image.
// Idempotent per key: a second complete of the same key returns the same item and file record.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { type CompleteRequest, CompleteRequestSchema } from '../../api/schemas.js';
import { readVideoDuration } from '../../media/duration.js';
import { MediaError } from '../../media/errors.js';
import { SNIFF_BYTES, describeFormat, sniff } from '../../media/sniff.js';
import { TYPE_RULES, type TypeRule, checkDuration, checkFile, formatOfMime } from '../../rules/rules.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest, violationError } from '../errors.js';
import { titleFromFileName } from '../object-keys.js';
import { presentFile, presentItem, urlSigner } from '../present.js';
import type { Caller } from '../repo/keys.js';
import type { Upload } from '../repo/uploads.js';
import { baseUrlOf, callerOf } from './common.js';

export function registerComplete(app: FastifyInstance, s: Services): void {
  app.post('/api/v1/upload/complete', async (request) => {
    const caller = callerOf(request);
    const parsed = CompleteRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the complete request');
    const body = parsed.data;
    const url = urlSigner(s, baseUrlOf(request));

    const upload = usableUpload(s, caller, body);
    if (upload.completedAt) return previousResult(s, caller, upload, url);

    const violations = checkFile(body.type, body.contentType, body.fileSize);
    if (violations.length > 0) throw violationError(violations[0]!);
    const target = body.contentItemId ? carouselTarget(s, caller, body) : null;

    await checkMagicBytes(s, upload);
    const durationSeconds = await resolveDuration(s, body);

    const result = s.deps.db
      .transaction(() => commit(s, caller, body, upload, target !== null, durationSeconds))
      .immediate();
    const item = s.items.get(caller.brandId, result.itemId)!;
    return {
      item: presentItem(item, url),
      contentItemId: item.id,
      ...(result.fileId ? { file: presentFile(s.items.file(result.fileId)!, url) } : {}),
    };
  });
}

/** The upload behind `key`, when it is the caller's, was PUT, and matches what complete says. */
function usableUpload(s: Services, caller: Caller, body: CompleteRequest): Upload {
  const upload = s.uploads.get(body.key);
  // Another user's key answers exactly like an unknown one.
  if (!upload || upload.userId !== caller.userId || upload.brandId !== caller.brandId) {
    throw apiError(
      'invalid_upload',
      'no upload with this key belongs to you; presign first and pass back the key it returned',
      [{ path: 'key', message: 'unknown upload' }],
    );
  }
  if (upload.thumbnail) {
    throw apiError(
      'invalid_upload',
      'this key is a thumbnail upload: thumbnails are not completed, pass the key as thumbnailKey to PATCH /api/v1/content/:id',
      [{ path: 'key', message: 'thumbnail upload' }],
    );
  }
  if (upload.completedAt) return upload;
  if (!upload.storedAt) {
    throw apiError(
      'invalid_upload',
      'nothing was uploaded for this key yet; PUT the file to the presigned URL, then complete',
      [{ path: 'key', message: 'not uploaded' }],
    );
  }
  if (upload.fileSize !== body.fileSize) {
    throw apiError(
      'invalid_upload',
      `fileSize ${body.fileSize} differs from the ${upload.fileSize} bytes presigned and uploaded for this key`,
      [{ path: 'fileSize', message: 'differs from the upload', actual: body.fileSize, limit: upload.fileSize }],
    );
  }
  if (upload.contentType !== body.contentType) {
    throw apiError(
      'invalid_upload',
      `contentType ${body.contentType} differs from ${upload.contentType} given at presign; send the same value`,
      [{ path: 'contentType', message: 'differs from the upload', actual: body.contentType }],
    );
  }
  return upload;
}

function previousResult(s: Services, caller: Caller, upload: Upload, url: ReturnType<typeof urlSigner>) {
  const item = upload.itemId ? s.items.get(caller.brandId, upload.itemId) : null;
  if (!item)
    throw apiError(
      'invalid_upload',
      'this upload was completed into an item that has since been deleted; upload the file again',
      [{ path: 'key', message: 'item deleted' }],
    );
  const file = upload.fileRecordId ? s.items.file(upload.fileRecordId) : null;
  return { item: presentItem(item, url), contentItemId: item.id, ...(file ? { file: presentFile(file, url) } : {}) };
}

/** The carousel an image is added to: the caller's, a carousel, and not full yet. */
function carouselTarget(s: Services, caller: Caller, body: CompleteRequest) {
  const item = s.items.get(caller.brandId, body.contentItemId!);
  if (!item)
    throw apiError('not_found', `no content item ${body.contentItemId}; check the id with GET /api/v1/content`);
  if (item.type !== 'carousel') {
    throw apiError(
      'not_a_carousel',
      `item ${item.id} is a ${item.type}, not a carousel; only carousels take more files (omit contentItemId to create a new item)`,
    );
  }
  if (body.type !== 'carousel') {
    throw apiError('invalid_request', 'contentItemId adds an image to a carousel: send type "carousel"', [
      { path: 'type', message: 'must be carousel with contentItemId' },
    ]);
  }
  checkRoom(item.fileCount, item.id);
  return item;
}

function checkRoom(count: number, id: string): void {
  const max = TYPE_RULES.carousel.maxFiles;
  if (count >= max)
    throw apiError(
      'carousel_full',
      `carousel ${id} already has ${max} images, the maximum; start a new carousel for more`,
    );
}

/** The stored bytes must be what contentType says; a mismatching object is removed. */
async function checkMagicBytes(s: Services, upload: Upload): Promise<void> {
  const head = await s.deps.storage.head(upload.key, SNIFF_BYTES);
  const real = sniff(head);
  const declared = formatOfMime(upload.contentType);
  if (real && real === declared) return;
  await s.deps.storage.remove(upload.key);
  s.uploads.markNotStored(upload.key);
  throw apiError(
    'content_mismatch',
    `the uploaded bytes are ${describeFormat(real)} data, not ${upload.contentType}; the object was removed — upload the right file or declare its real type`,
    [{ path: 'contentType', message: 'does not match the file content', actual: describeFormat(real) }],
  );
}

/** Videos: the given duration, or the one read from the stored file; then the type's rule. */
async function resolveDuration(s: Services, body: CompleteRequest): Promise<number | null> {
  if (TYPE_RULES[body.type].media !== 'video') return null;
  let seconds = body.durationSeconds;
  if (seconds === undefined) {
    try {
      seconds = await readVideoDuration(s.deps.storage.pathOf(body.key));
    } catch (err) {
      if (!(err instanceof MediaError)) throw err;
      // Longform has no duration rule: an unreadable header just leaves the duration unknown.
      const rule: TypeRule = TYPE_RULES[body.type];
      if (!rule.duration) return null;
      throw apiError(
        'invalid_duration',
        `the video's duration could not be read (${err.message}); send durationSeconds`,
        [{ path: 'durationSeconds', message: err.reason }],
      );
    }
  }
  const violations = checkDuration(body.type, seconds);
  if (violations.length > 0) throw violationError(violations[0]!);
  return seconds;
}

/** The database side of complete, in one transaction; re-checks what a concurrent call may have changed. */
function commit(
  s: Services,
  caller: Caller,
  body: CompleteRequest,
  upload: Upload,
  addToCarousel: boolean,
  durationSeconds: number | null,
) {
  const fresh = s.uploads.get(upload.key)!;
  if (fresh.completedAt) return { itemId: fresh.itemId!, fileId: fresh.fileRecordId };
  const at = s.deps.now().toISOString();
  if (addToCarousel) {
    const itemId = body.contentItemId!;
    // The carousel may have been deleted while the bytes were being checked.
    if (!s.items.get(caller.brandId, itemId))
      throw apiError('not_found', `no content item ${itemId}; it was deleted meanwhile`);
    checkRoom(s.items.fileCount(itemId), itemId);
    const file = s.items.addFile({
      id: randomUUID(),
      itemId,
      fileKey: upload.key,
      fileName: body.fileName,
      contentType: body.contentType,
      fileSize: body.fileSize,
      createdAt: at,
    });
    s.items.touch(itemId, at);
    s.uploads.markCompleted(upload.key, at, itemId, file.id);
    return { itemId, fileId: file.id };
  }
  const itemId = randomUUID();
  s.items.create({
    id: itemId,
    brandId: caller.brandId,
    type: body.type,
    title: titleFromFileName(body.fileName),
    fileKey: upload.key,
    fileName: body.fileName,
    contentType: body.contentType,
    fileSize: body.fileSize,
    durationSeconds,
    createdAt: at,
  });
  let fileId: string | null = null;
  if (body.type === 'carousel') {
    fileId = s.items.addFile({
      id: randomUUID(),
      itemId,
      fileKey: upload.key,
      fileName: body.fileName,
      contentType: body.contentType,
      fileSize: body.fileSize,
      createdAt: at,
    }).id;
  }
  s.uploads.markCompleted(upload.key, at, itemId, fileId);
  return { itemId, fileId };
}
