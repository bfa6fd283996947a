// Repository records for the Repo tests (repo.test.ts, held-bytes.test.ts): an upload as presign
// stores it and the completion of it, with the fixed clock and actor those tests share.
import { createHash, randomUUID } from 'node:crypto';
import type { CompleteInput, NewUpload } from '../../src/server/repo/interface.js';

export const AT = '2026-01-01T00:00:00.000Z';
export const NOW_MS = Date.parse(AT);
export const ACTOR = { keyId: 'k-ci', keyName: 'CI', requestId: 'req-1' };

/** A presigned upload of a 100-byte carousel image for `caller`; `o` overrides any field. */
export function upload(
  caller: { userId: string; brandId: string; keyId?: string },
  o: Partial<NewUpload> = {},
): NewUpload {
  const fileId = randomUUID();
  return {
    key: `${caller.userId}/${fileId}/photo.jpg`,
    fileId,
    brandId: caller.brandId,
    userId: caller.userId,
    fileName: 'photo.jpg',
    contentType: 'image/jpeg',
    fileSize: 100,
    type: 'carousel',
    thumbnail: false,
    expiresAt: NOW_MS + 3600_000,
    createdAt: AT,
    keyId: caller.keyId ?? null,
    sha256: null,
    partSize: null,
    multipartId: null,
    ...o,
  };
}

/** The completion of `u` into a new item (its SHA-256 made from its key); `o` overrides any field. */
export function completion(u: NewUpload, o: Partial<CompleteInput> = {}): CompleteInput {
  return {
    brandId: u.brandId,
    key: u.key,
    type: u.type,
    title: 'photo',
    fileName: u.fileName,
    contentType: u.contentType,
    fileSize: u.fileSize,
    durationSeconds: null,
    sha256: createHash('sha256').update(u.key).digest('hex'),
    media: null,
    newItemId: randomUUID(),
    newFileId: randomUUID(),
    maxCarouselFiles: 10,
    at: AT,
    actor: ACTOR,
    ...o,
  };
}
