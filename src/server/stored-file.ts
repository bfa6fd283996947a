// What the server checks in an uploaded object before it is promoted, reading it only through
// Storage's ranged reads (the same code reads disk and object storage): the magic bytes match
// the declared type; for a video, that it has a video track and how long it is (media/probe.ts,
// the same parser the CLI runs before an upload: moov before or after mdat, fragmented files);
// and its SHA-256, which must be the one declared at presign.
import type { ByteSource } from '../media/byte-source.js';
import { MediaError } from '../media/errors.js';
import { readMediaFacts } from '../media/facts.js';
import { probeVideo } from '../media/probe.js';
import { SNIFF_BYTES, describeFormat, sniff } from '../media/sniff.js';
import type { MediaFacts } from '../rules/media-facts.js';
import { formatOfMime } from '../rules/rules.js';
import { type HttpError, apiError } from './errors.js';
import { type ObjectHead, type Storage, isObjectState, sameEtag, stagingKeyOf } from './storage/interface.js';
import { sha256OfObject } from './storage/object-hash.js';

export { HASH_RANGE_BYTES, sha256OfObject } from './storage/object-hash.js';

/** One version of one object, read by ranges. */
export interface StoredObject {
  storage: Storage;
  key: string;
  head: ObjectHead;
}

/** A ByteSource (media/) over one pinned version of an object: a changed object fails the read. */
export function byteSourceOf(o: StoredObject): ByteSource {
  return {
    size: o.head.size,
    read: (offset: number, length: number) => o.storage.readRange(o.key, offset, length, o.head.etag),
  };
}

/** The declared type's magic bytes, or the 415 `content_mismatch` to answer (the caller removes the object). */
export async function magicBytesProblem(o: StoredObject, contentType: string): Promise<HttpError | null> {
  const first = await o.storage.readRange(o.key, 0, SNIFF_BYTES, o.head.etag);
  const real = sniff(first);
  if (real && real === formatOfMime(contentType)) return null;
  return apiError(
    'content_mismatch',
    `the uploaded bytes are ${describeFormat(real)} data, not ${contentType}; the object was removed — upload the right file or declare its real type`,
    [{ path: 'contentType', message: 'does not match the file content', actual: describeFormat(real) }],
  );
}

/**
 * A file joined from a multipart upload's parts (./multipart.ts): no store verified its
 * bytes against the declared SHA-256 as they arrived, so its checksum is never taken on the
 * store's word. `sha256` is what the disk store computed as it joined version `etag`.
 */
export interface JoinedFile {
  etag?: string;
  sha256?: string;
}

/**
 * The object's SHA-256, known for sure, or the 400 `bad_digest` to answer when it is not the
 * `declared` one (the caller removes the object). Of that very version (its etag), in this
 * order: the hash computed while its parts were joined (`joined`); the hash the store computed
 * as its bytes arrived (the disk store, in this process: `Storage.hashedOnArrival`); the
 * checksum the store reports for it (S3's, verified when it was PUT); otherwise — after a
 * restart, or on a store that verifies no checksum — the object is read and hashed here. So
 * nothing is promoted with an unknown or wrong checksum, and a file is read back only when
 * nothing vouches for it.
 */
export async function verifiedSha256(
  o: StoredObject,
  declared: string | null,
  joined: JoinedFile | null = null,
  declaredAt: 'presign' | 'complete' = 'presign',
): Promise<{ sha256: string } | { problem: HttpError }> {
  const computed = joined?.sha256 && joined.etag && sameEtag(joined.etag, o.head.etag) ? joined.sha256 : undefined;
  const sha256 =
    computed ?? o.storage.hashedOnArrival?.(o.key, o.head.etag) ?? o.head.sha256 ?? (await sha256OfObject(o));
  if (!declared || sha256 === declared) return { sha256 };
  return {
    problem: apiError(
      'bad_digest',
      `the stored bytes' SHA-256 is ${sha256}, not the ${declared} declared at ${declaredAt}: they changed on the way; the object was removed — PUT the file again, then complete`,
      [{ path: 'sha256', message: 'differs from the stored bytes', actual: sha256, expected: declared }],
    ),
  };
}

export type VideoFacts =
  /** `media`: the rest of what the header says (issue 39), null when only the duration could be read. */
  | { kind: 'duration'; seconds: number; media: MediaFacts | null }
  /** The header gives no usable duration: only a longform may rely on the client's value. */
  | { kind: 'unknown'; reason: string; message: string }
  /** Not a video at all (no video track): refused whatever the type. */
  | { kind: 'not_video'; message: string };

/** What the video's own header says; never throws for a damaged file (ObjectStateError passes through). */
export async function videoFacts(o: StoredObject): Promise<VideoFacts> {
  // One walk reads the duration and the facts; should the facts' extra boxes be damaged where the
  // duration is not, the duration check alone decides, as it did before facts were kept.
  const media = await readMediaFacts(byteSourceOf(o)).catch((err: unknown) => {
    if (err instanceof MediaError) return null;
    throw err;
  });
  if (media?.kind === 'video' && media.durationSeconds !== undefined)
    return { kind: 'duration', seconds: media.durationSeconds, media };
  try {
    return { kind: 'duration', seconds: (await probeVideo(byteSourceOf(o))).durationSeconds, media: null };
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
    if (err.reason === 'no_video_track') return { kind: 'not_video', message: err.message };
    return { kind: 'unknown', reason: err.reason, message: err.message };
  }
}

/** The stored file's facts (an image's size and orientation, a video's all), or null when its header cannot be read. */
export async function mediaFactsOf(o: StoredObject): Promise<MediaFacts | null> {
  try {
    return await readMediaFacts(byteSourceOf(o));
  } catch (err) {
    if (err instanceof MediaError) return null;
    throw err;
  }
}

/**
 * An upload's bytes checked, then promoted to its final key; returns what `check` returns.
 * `check` reads the staging object (pinned by its etag), or the final object an earlier try
 * promoted without getting to commit; `undefined` when there is neither. Only the version that
 * was checked becomes final: the promote is given its etag and the SHA-256 `check` verified, and
 * proves the final object is those bytes whatever the store does with a copy (storage/s3.ts), so a
 * PUT landing meanwhile makes the promote fail and the new bytes are checked instead. After
 * three such changes in a row, `stillChanging()` is thrown.
 */
export async function checkThenPromote<T extends { sha256: string }>(
  storage: Storage,
  upload: { key: string; fileId: string },
  check: (object: StoredObject | undefined) => Promise<T>,
  stillChanging: () => Error,
): Promise<T> {
  const staging = stagingKeyOf(upload.fileId);
  for (let attempt = 0; attempt < 3; attempt++) {
    const stagedHead = await storage.head(staging);
    const key = stagedHead ? staging : upload.key;
    const head = stagedHead ?? (await storage.head(upload.key));
    try {
      const result = await check(head ? { storage, key, head } : undefined);
      if (head && key === staging)
        await storage.promote(staging, upload.key, { etag: head.etag, size: head.size, sha256: result.sha256 });
      return result;
    } catch (err) {
      // Written again (or completed by another instance) while being checked: look again.
      if (isObjectState(err, 'changed') || isObjectState(err, 'missing')) continue;
      throw err;
    }
  }
  throw stillChanging();
}
