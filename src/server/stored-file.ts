// What the server checks in an uploaded object before it is promoted, reading it only through
// Storage's ranged reads (the same code reads disk and object storage): the magic bytes match
// the declared type; for a video, that it has a video track and how long it is (media/probe.ts,
// the same parser the CLI runs before an upload: moov before or after mdat, fragmented files).
import type { ByteSource } from '../media/byte-source.js';
import { MediaError } from '../media/errors.js';
import { probeVideo } from '../media/probe.js';
import { SNIFF_BYTES, describeFormat, sniff } from '../media/sniff.js';
import { formatOfMime } from '../rules/rules.js';
import { type HttpError, apiError } from './errors.js';
import type { ObjectHead, Storage } from './storage/interface.js';

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

export type VideoFacts =
  | { kind: 'duration'; seconds: number }
  /** The header gives no usable duration: only a longform may rely on the client's value. */
  | { kind: 'unknown'; reason: string; message: string }
  /** Not a video at all (no video track): refused whatever the type. */
  | { kind: 'not_video'; message: string };

/** What the video's own header says; never throws for a damaged file (ObjectStateError passes through). */
export async function videoFacts(o: StoredObject): Promise<VideoFacts> {
  try {
    return { kind: 'duration', seconds: (await probeVideo(byteSourceOf(o))).durationSeconds };
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
    if (err.reason === 'no_video_track') return { kind: 'not_video', message: err.message };
    return { kind: 'unknown', reason: err.reason, message: err.message };
  }
}
