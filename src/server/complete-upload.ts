// Completing an upload (POST /api/v1/upload/complete, ./routes/complete.ts): checks the uploaded
// bytes, promotes them from staging to the upload's key, and turns them into a new item or a
// carousel image. Idempotent per key: a second complete of the same key returns the same item
// and file record. Replacing a carousel's image (./routes/carousel.ts) is this same completion
// into the image's place: `completeUpload` with `replaceFileId`.
import { randomUUID } from 'node:crypto';
import type { CompleteRequest, CompleteResponse } from '../api/schemas.js';
import type { MediaFacts } from '../rules/media-facts.js';
import { TYPE_RULES, type TypeRule, checkDuration, checkFile } from '../rules/rules.js';
import type { Services } from './context.js';
import { HttpError, apiError, violationError } from './errors.js';
import { titleFromFileName } from './object-keys.js';
import { presentFile, presentOne, urlSigner } from './present.js';
import type { Actor, Caller } from './repo/interface.js';
import type { Upload } from './repo/uploads.js';
import { objectKeysOf } from './storage/interface.js';
import {
  type JoinedFile,
  type StoredObject,
  type VideoFacts,
  checkThenPromote,
  mediaFactsOf,
  magicBytesProblem,
  verifiedSha256,
  videoFacts,
} from './stored-file.js';
import { abortMultipart, joinParts } from './multipart.js';

/**
 * Checks, promotes and completes an upload; `replaceFileId` puts it in that image's place in the
 * carousel `body.contentItemId` (the replaced image's objects are deleted once it is committed).
 */
export async function completeUpload(
  s: Services,
  caller: Caller,
  actor: Actor,
  body: CompleteRequest,
  replaceFileId?: string,
): Promise<CompleteResponse> {
  const upload = usableUpload(caller, body, await s.repo.getUpload(body.key));
  // A key completed before answers with its item and file record, whatever else the request says.
  // (so nothing of `checked` is written then).
  const checked = upload.completedAt
    ? { durationSeconds: null, sha256: '', media: null }
    : await checkUpload(s, caller, upload, body, replaceFileId);
  // One transaction, re-checking what a concurrent call (on any instance) or the sweeper changed.
  const result = await s.repo.complete(
    {
      brandId: caller.brandId,
      key: upload.key,
      ...(body.contentItemId ? { contentItemId: body.contentItemId } : {}),
      ...(replaceFileId ? { replaceFileId } : {}),
      type: body.type,
      title: titleFromFileName(body.fileName),
      fileName: body.fileName,
      contentType: body.contentType,
      fileSize: body.fileSize,
      durationSeconds: checked.durationSeconds,
      sha256: checked.sha256,
      media: checked.media ? JSON.stringify(checked.media) : null,
      newItemId: randomUUID(),
      newFileId: randomUUID(),
      maxCarouselFiles: TYPE_RULES.carousel.maxFiles,
      at: s.deps.now().toISOString(),
      actor,
    },
    objectKeysOf,
  );
  switch (result.kind) {
    case 'done': {
      if (result.discarded.length > 0) await s.removeObjects(result.discarded);
      // Its poster or preview is made in the background: the answer does not wait for it.
      s.deps.previews?.nudge();
      const url = urlSigner(s);
      return {
        item: await presentOne(s, caller.brandId, result.item, url),
        contentItemId: result.item.id,
        ...(result.file ? { file: await presentFile(result.file, url) } : {}),
      };
    }
    case 'upload_gone':
      throw unknownUpload();
    // The carousel was deleted, or filled, while the bytes were being checked.
    case 'carousel_gone':
      throw apiError('not_found', `no content item ${body.contentItemId}; it was deleted meanwhile`, [
        { path: 'contentItemId', message: 'deleted meanwhile' },
      ]);
    case 'carousel_full':
      throw apiError(
        'carousel_full',
        `carousel ${body.contentItemId} already has ${TYPE_RULES.carousel.maxFiles} images, the maximum; start a new carousel for more`,
      );
    case 'file_gone':
      throw imageGone(body.contentItemId!, replaceFileId!);
  }
}

/** The image a change names is not one of the carousel's (any more). */
export const imageGone = (itemId: string, fileId: string) =>
  apiError(
    'not_found',
    `carousel ${itemId} has no image ${fileId} (removed or replaced meanwhile?); see its images with GET /api/v1/content/${itemId}`,
    [{ path: 'fileId', message: 'not an image of this carousel' }],
  );

/** What the checks found in the stored bytes: the video's duration, the verified SHA-256, the media facts. */
interface CheckedBytes {
  durationSeconds: number | null;
  sha256: string;
  media: MediaFacts | null;
}

/** An upload not completed yet: the type's rules, the carousel it goes to, then its bytes. */
async function checkUpload(
  s: Services,
  caller: Caller,
  upload: Upload,
  body: CompleteRequest,
  replaceFileId: string | undefined,
): Promise<CheckedBytes> {
  const violations = checkFile(body.type, body.contentType, body.fileSize);
  if (violations.length > 0) throw violationError(violations[0]!);
  if (body.contentItemId) await carouselTarget(s, caller, body);
  // Whether it is still there when the change commits is the completion's transaction's to say.
  if (replaceFileId && (await s.repo.file(replaceFileId))?.itemId !== body.contentItemId)
    throw imageGone(body.contentItemId!, replaceFileId);
  const joined = await joinParts(s, upload, body.parts);
  // Offered in parts: whatever is in staging may be joined from parts, never verified by the store.
  return checkAndPromote(s, upload, body, upload.partSize !== null ? (joined ?? {}) : null);
}

// Another user's key answers exactly like an unknown one; so does an upload swept meanwhile.
const unknownUpload = () =>
  apiError(
    'invalid_upload',
    'no upload with this key belongs to you; presign first and pass back the key it returned',
    [{ path: 'key', message: 'unknown upload' }],
  );

/** The upload behind `key`, when it is the caller's, was PUT, and matches what complete says. */
function usableUpload(caller: Caller, body: CompleteRequest, upload: Upload | null): Upload {
  if (!upload || upload.userId !== caller.userId || upload.brandId !== caller.brandId) throw unknownUpload();
  if (upload.thumbnail) {
    throw apiError(
      'invalid_upload',
      'this key is a thumbnail upload: thumbnails are not completed, pass the key as thumbnailKey to PATCH /api/v1/content/:id',
      [{ path: 'key', message: 'thumbnail upload' }],
    );
  }
  if (upload.completedAt) return upload;
  if (upload.fileSize !== body.fileSize) {
    throw apiError(
      'invalid_upload',
      `fileSize ${body.fileSize} differs from the ${upload.fileSize} bytes presigned and uploaded for this key`,
      [{ path: 'fileSize', message: 'differs from the upload', actual: body.fileSize, limit: upload.fileSize }],
    );
  }
  if (upload.fileName !== body.fileName) {
    throw apiError(
      'invalid_upload',
      `fileName "${body.fileName}" differs from "${upload.fileName}" given at presign; send the same name`,
      [{ path: 'fileName', message: 'differs from the upload', actual: body.fileName, limit: upload.fileName }],
    );
  }
  if (upload.contentType !== body.contentType) {
    throw apiError(
      'invalid_upload',
      `contentType ${body.contentType} differs from ${upload.contentType} given at presign; send the same value`,
      [{ path: 'contentType', message: 'differs from the upload', actual: body.contentType }],
    );
  }
  // An extension: the SHA-256 may come at complete; two declarations must agree, or which is meant?
  if (body.sha256 && upload.sha256 && body.sha256 !== upload.sha256) {
    throw apiError(
      'invalid_upload',
      `sha256 ${body.sha256} differs from the ${upload.sha256} declared at presign; send the same one, or declare it only once`,
      [
        {
          path: 'sha256',
          message: 'differs from the one declared at presign',
          actual: body.sha256,
          expected: upload.sha256,
        },
      ],
    );
  }
  return upload;
}

/**
 * The carousel an image is added to: the caller's, and a carousel. Whether it has room is the
 * completion's transaction's to say (src/server/repo/completion.ts), with the count locked.
 */
async function carouselTarget(s: Services, caller: Caller, body: CompleteRequest): Promise<void> {
  const item = await s.repo.getItem(caller.brandId, body.contentItemId!);
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
}

const NOT_UPLOADED = () =>
  apiError(
    'invalid_upload',
    'nothing was uploaded for this key yet; PUT the file to the presigned URL, then complete',
    [{ path: 'key', message: 'not uploaded' }],
  );

/**
 * Checks the uploaded bytes and promotes them to the upload's final key. The bytes are read from the staging object, pinned by its etag, and only that
 * version is promoted: a PUT that lands meanwhile makes the promote fail, and the new bytes are
 * checked instead. A final object without a staging one was promoted by an earlier complete that
 * did not get to commit (a crash, a full carousel): no URL can write there, so it is checked as is.
 */
async function checkAndPromote(
  s: Services,
  upload: Upload,
  body: CompleteRequest,
  joined: JoinedFile | null,
): Promise<CheckedBytes> {
  return checkThenPromote(
    s.deps.storage,
    upload,
    async (object) => {
      if (!object) throw NOT_UPLOADED();
      return checkBytes(s, object, upload, body, joined);
    },
    () =>
      apiError(
        'invalid_upload',
        'the upload kept changing while it was being checked; let the PUT finish, then complete again',
        [{ path: 'key', message: 'still being written' }],
      ),
  );
}

/**
 * The SHA-256 (never promoted unknown or wrong: stored-file.ts), magic bytes, then for videos
 * the duration the file itself gives. A refused object is removed.
 */
async function checkBytes(
  s: Services,
  object: StoredObject,
  upload: Upload,
  body: CompleteRequest,
  joined: JoinedFile | null,
): Promise<CheckedBytes> {
  if (object.head.size !== upload.fileSize) throw NOT_UPLOADED();
  // First: a byte changed on the way may be one of the magic bytes, and this says what happened.
  // Declared at presign or at complete (an extension; usableUpload made sure they agree).
  const digest = await verifiedSha256(
    object,
    upload.sha256 ?? body.sha256 ?? null,
    joined,
    upload.sha256 ? 'presign' : 'complete',
  );
  if ('problem' in digest) return refuse(s, object, upload, body, digest.problem);
  const mismatch = await magicBytesProblem(object, upload.contentType);
  if (mismatch) return refuse(s, object, upload, body, mismatch);
  const { sha256 } = digest;
  // Measured here, where the duration is (one walk of the header through ranged reads): the
  // facts are part of the item from its first answer, and nothing is measured after.
  if (TYPE_RULES[body.type].media !== 'video')
    return { durationSeconds: null, sha256, media: await mediaFactsOf(object) };
  const facts = await videoFacts(object);
  if (facts.kind === 'not_video')
    return refuse(
      s,
      object,
      upload,
      body,
      apiError('content_mismatch', `the uploaded file ${facts.message}; the object was removed`, [
        { path: 'contentType', message: 'no video track' },
      ]),
    );
  return {
    durationSeconds: resolveDuration(body, facts),
    sha256,
    media: facts.kind === 'duration' ? facts.media : null,
  };
}

/**
 * Removes a refused object and throws `why`. A single PUT's upload may be PUT again; a multipart
 * upload's parts were used up by the join, so the whole upload is closed and freed: the client
 * presigns again and sends the file anew (the message says so).
 */
async function refuse(
  s: Services,
  object: StoredObject,
  upload: Upload,
  body: CompleteRequest,
  why: HttpError,
): Promise<never> {
  await s.deps.storage.delete(object.key);
  if (upload.partSize === null || !body.parts) {
    await s.repo.markNotStored(upload.key);
    throw why;
  }
  const closed = await s.repo.abortUpload(upload.key, s.deps.now().toISOString(), objectKeysOf);
  if (closed) {
    await abortMultipart(s, closed);
    await s.removeObjects(objectKeysOf(closed));
  }
  throw new HttpError(
    why.status,
    why.code,
    `${why.message.replace(/ \u2014 PUT the file again, then complete$/, '')}; this multipart upload is closed and its parts freed \u2014 presign again and send the whole file`,
    why.details,
    why.headers,
  );
}

/** Seconds that may differ between the client's duration and the file's (rounding, edit lists). */
export const DURATION_TOLERANCE_SECONDS = 0.5;

/**
 * The server measures: a client duration that disagrees with the file's by more than the
 * tolerance is refused, and the type's range applies to what was measured. Only a longform
 * whose header gives no duration takes the client's value (or none).
 */
function resolveDuration(body: CompleteRequest, facts: Exclude<VideoFacts, { kind: 'not_video' }>): number | null {
  const given = body.durationSeconds;
  if (facts.kind === 'unknown') {
    const rule: TypeRule = TYPE_RULES[body.type];
    if (!rule.duration) return given ?? null;
    throw apiError(
      'invalid_duration',
      `the video's duration could not be read from the file (${facts.message}); a ${body.type} needs a readable duration — export the video again`,
      [{ path: 'durationSeconds', message: facts.reason, ...(given === undefined ? {} : { given }) }],
    );
  }
  const measured = facts.seconds;
  if (given !== undefined && Math.abs(given - measured) > DURATION_TOLERANCE_SECONDS) {
    throw apiError(
      'invalid_duration',
      `durationSeconds ${given} differs from the ${measured} s the file's header gives; send the file's duration or omit it`,
      [{ path: 'durationSeconds', message: 'differs from the file', given, measured }],
    );
  }
  const violations = checkDuration(body.type, measured);
  if (violations.length > 0) throw violationError(violations[0]!);
  return measured;
}
