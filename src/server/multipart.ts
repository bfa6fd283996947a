// Multipart uploads on the server (an extension, docs/api.md "Multipart uploads", issue 28), the
// store-neutral part the routes share: the plan offered at presign (src/server/routes/presign.ts)
// and recorded with the upload, opening and aborting the store's multipart upload, and joining
// the parts at complete (./complete-upload.ts) into the staging object, which is then checked
// like a single PUT's file — its SHA-256 included, never taken on the store's word. The routes of
// the extension (POST /parts and /abort) are src/server/routes/multipart.ts; a part's PUT on the
// disk store is the one receiver's, src/server/routes/storage.ts.
import { type PartPlan, offersParts, partBytes, partsOf, planParts } from '../rules/parts.js';
import type { Services } from './context.js';
import { apiError } from './errors.js';
import type { Upload } from './repo/uploads.js';
import { isObjectState, sameEtag, stagingKeyOf } from './storage/interface.js';
import type { JoinedFile } from './stored-file.js';

/** The plan to offer at presign, or null for a single PUT (not asked, no store support, small file). */
export function multipartPlan(s: Services, fileSize: number, asked: boolean): PartPlan | null {
  if (!asked || !s.deps.multipart || !offersParts(fileSize)) return null;
  return planParts(fileSize);
}

/** The plan recorded at presign, or null when the upload was offered a single PUT. */
export function recordedPlan(upload: Pick<Upload, 'partSize' | 'fileSize'>): PartPlan | null {
  if (upload.partSize === null || upload.partSize <= 0) return null;
  return partsOf(upload.fileSize, upload.partSize);
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

export const notMultipart = () =>
  apiError(
    'invalid_upload',
    'no open multipart upload with this key belongs to you; presign with "multipart": true first',
    [{ path: 'key', message: 'unknown multipart upload' }],
  );

export const storeForgot = () =>
  apiError(
    'invalid_upload',
    'the store no longer holds this multipart upload (aborted, or its parts already joined); presign again and send the whole file',
    [{ path: 'key', message: 'multipart upload gone from the store' }],
  );

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
    if (!part || part.size !== partBytes(plan, upload.fileSize, n)) throw bad(`part ${n} was not uploaded whole`);
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
