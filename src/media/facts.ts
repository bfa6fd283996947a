// The facts of a media file (issue 39): one entry point for the server (at complete, and the
// sweeper's backfill, over object storage) and the CLI (`show`, `check`, `upload --for`, over a
// local file). The format is judged by the first bytes, as everywhere else (./sniff.ts).
import type { MediaFacts } from '../rules/media-facts.js';
import { type ByteSource, withFileSource } from './byte-source.js';
import { MediaError } from './errors.js';
import { readImageFacts } from './image-facts.js';
import { SNIFF_BYTES, sniff } from './sniff.js';
import { readVideoFacts } from './video-facts.js';

/** The facts of the video or image in `source`; throws MediaError when it is neither or is damaged. */
export async function readMediaFacts(source: ByteSource): Promise<MediaFacts> {
  if (source.size === 0) throw new MediaError('empty', 'the file is empty (0 bytes); export or copy it again');
  const head = await source.read(0, SNIFF_BYTES);
  const format = sniff(head);
  if (format === 'mp4' || format === 'mov') return readVideoFacts(source);
  // GIF is no upload format, but `check` may be asked about one: its size is still a fact.
  if (format || /^GIF8[79]a/.test(String.fromCharCode(...head.subarray(0, 6)))) return readImageFacts(source);
  throw new MediaError('not_mp4', 'the file is not a video (MP4, MOV) or image (JPEG, PNG, WebP) this tool reads');
}

/** readMediaFacts on the file at `path`. */
export function readMediaFactsFile(path: string): Promise<MediaFacts> {
  return withFileSource(path, readMediaFacts);
}
