// The one check of a video file, shared by the CLI (before anything is sent) and the server
// (at complete): is it an MP4/MOV box structure, does it hold a video track, and how long is
// it. Judged by structure, never by the brand in `ftyp`: a Sony XAVC or Canon CAEP file is an
// ordinary MP4, an AAC-only `isom` file is audio.
//
// Only box headers and a few small boxes are read, through a ByteSource, so a 1 GB file costs
// a handful of reads (a fragmented one, about one read per fragment) and the same code can read
// object storage by ranged GETs.
//
// Written by hand rather than taken from `music-metadata` or `file-type`: a box walk is all we
// need, and it reads through a ByteSource (files and ranged GETs alike), which they do not.
import { type Box, children, latin1 } from './boxes.js';
import { type ByteSource, readAhead, withFileSource } from './byte-source.js';
import { MediaError } from './errors.js';
import { type SegmentIndex, type TrafTime, readMoof, readSidx } from './fragments.js';
import { type Movie, type Track, readMovie } from './movie.js';

/** Where a duration was read from, weakest evidence last. */
export type DurationSource = 'movie header' | 'fragment header' | 'fragments' | 'segment index';

export interface VideoProbe {
  durationSeconds: number;
  durationFrom: DurationSource;
  /** Always true: a file without one is refused with MediaError 'no_video_track'. */
  hasVideoTrack: true;
  hasAudioTrack: boolean;
  /** The file has movie fragments (moof). */
  fragmented: boolean;
  /** ftyp's major brand ('isom', 'qt  ', 'XAVC', …); undefined for QuickTime files without ftyp. */
  majorBrand?: string;
}

// What an MP4/MOV can start with: ftyp (ISO), styp (a segment), or a QuickTime lead atom.
const FIRST_BOXES = new Set(['ftyp', 'styp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** Everything the top-level walk collects. */
export interface Layout {
  majorBrand?: string;
  moov?: Box;
  /** Where the first media data box starts: before the moov, the file is not "fast start". */
  mdatStart?: number;
  trafs: TrafTime[];
  indexes: SegmentIndex[];
  fragmented: boolean;
}

/**
 * Checks the video in `source`. Throws MediaError, checked in this order (so a later reason
 * implies the earlier checks passed): unreadable, empty, not_mp4, malformed or truncated (the
 * whole box structure is walked), no_moov, no_mvhd, no_video_track, no_duration.
 */
export async function probeVideo(source: ByteSource): Promise<VideoProbe> {
  return (await probeVideoLayout(source)).probe;
}

/** probeVideo, with the movie header and top-level layout it read (for ./video-facts.ts). */
export async function probeVideoLayout(
  source: ByteSource,
): Promise<{ probe: VideoProbe; movie: Movie; layout: Layout & { moov: Box }; bytes: ByteSource }> {
  if (source.size === 0) throw new MediaError('empty', 'the file is empty (0 bytes); export or copy the video again');
  const bytes = readAhead(source);
  const layout = await walkTopLevel(bytes);
  if (!layout.moov) {
    throw new MediaError(
      'no_moov',
      'no movie header (moov box) found, so the duration cannot be read; the file may be incomplete or still being written — export it again',
    );
  }
  const movie = await readMovie(bytes, layout.moov);
  const kinds = new Set(movie.tracks.map((t) => t.handler));
  if (!kinds.has('vide')) throw noVideoTrack(kinds);
  const { seconds, from } = duration(movie, layout);
  const probe: VideoProbe = {
    durationSeconds: seconds,
    durationFrom: from,
    hasVideoTrack: true,
    hasAudioTrack: kinds.has('soun'),
    fragmented: layout.fragmented,
    ...(layout.majorBrand !== undefined ? { majorBrand: layout.majorBrand } : {}),
  };
  return { probe, movie, layout: { ...layout, moov: layout.moov }, bytes };
}

/** probeVideo on the file at `path` (opened, read positionally, closed). */
export function probeVideoFile(path: string): Promise<VideoProbe> {
  return withFileSource(path, probeVideo);
}

/**
 * Walks every top-level box (headers only), reading the small ones that matter on the way:
 * ftyp's brand, each moof's fragment times, each sidx. The walk goes on past `moov` so that a
 * file cut short inside `mdat` is reported even when its header came first (faststart).
 */
async function walkTopLevel(source: ByteSource): Promise<Layout> {
  const layout: Layout = { trafs: [], indexes: [], fragmented: false };
  const checkFirst = (type: string) => {
    if (!FIRST_BOXES.has(type))
      throw new MediaError(
        'not_mp4',
        'the file does not start with an MP4/MOV box (ftyp, moov, mdat…); it is not an MP4 or MOV video',
      );
  };
  for await (const box of children(source, 0, source.size, checkFirst)) {
    if (box.type === 'ftyp' && layout.majorBrand === undefined && box.end - box.payload >= 4) {
      layout.majorBrand = latin1(await source.read(box.payload, 4));
    } else if (box.type === 'moov' && !layout.moov) {
      layout.moov = box;
    } else if (box.type === 'mdat' && layout.mdatStart === undefined && box.end > box.payload) {
      layout.mdatStart = box.start;
    } else if (box.type === 'moof') {
      layout.fragmented = true;
      layout.trafs.push(...(await readMoof(source, box)));
    } else if (box.type === 'sidx') {
      const index = await readSidx(source, box);
      if (index) layout.indexes.push(index);
    }
  }
  return layout;
}

/**
 * The length of the whole file. A fragmented file's movie header may cover nothing (empty
 * moov) or only the first fragment, so its length is mehd's, else the fragments' own sample
 * durations, else the segment index's; whichever is longer than the movie header wins.
 */
function duration(movie: Movie, layout: Layout): { seconds: number; from: DurationSource } {
  const header = movie.timescale > 0 && movie.units !== undefined ? movie.units / movie.timescale : 0;
  const whole = layout.fragmented || header === 0 ? wholeLength(movie, layout) : undefined;
  if (whole && whole.seconds > header) return whole;
  if (header > 0) return { seconds: header, from: 'movie header' };
  throw new MediaError(
    'no_duration',
    movie.timescale === 0
      ? 'the movie header gives a timescale of 0, so the duration cannot be computed; export the video again'
      : 'the movie header does not say how long the video is (0 or unknown); export it again as a regular, non-streaming MP4/MOV',
  );
}

function wholeLength(movie: Movie, layout: Layout): { seconds: number; from: DurationSource } | undefined {
  if (movie.fragmentUnits !== undefined && movie.timescale > 0)
    return { seconds: movie.fragmentUnits / movie.timescale, from: 'fragment header' };
  const fragments = Math.max(0, ...movie.tracks.map((t) => trackSeconds(t, movie, layout.trafs)));
  if (fragments > 0) return { seconds: fragments, from: 'fragments' };
  const indexed = Math.max(0, ...layout.indexes.map((i) => i.seconds));
  if (indexed > 0) return { seconds: indexed, from: 'segment index' };
  return undefined;
}

/**
 * Seconds one track's samples span: those in the movie header, then each fragment's from its
 * tfdt (or, without one, right after the previous). A track whose first fragment starts late
 * on its timeline (a CMAF segment cut from a live stream) counts from there.
 */
function trackSeconds(track: Track, movie: Movie, trafs: readonly TrafTime[]): number {
  if (track.timescale === 0) return 0;
  const own = trafs.filter((t) => t.trackId === track.id);
  if (own.length === 0) return 0;
  const fallback = movie.trexDefaults.get(track.id) ?? 0;
  let end = track.units;
  const start = track.units > 0 ? 0 : (own[0]?.baseTime ?? 0);
  for (const traf of own) {
    const base = traf.baseTime ?? end;
    end = Math.max(end, base + traf.explicit + traf.defaulted * (traf.tfhdDefault ?? fallback));
  }
  return Math.max(0, end - start) / track.timescale;
}

function noVideoTrack(kinds: Set<string>): MediaError {
  if (kinds.has('soun'))
    return new MediaError(
      'no_video_track',
      'has no video track; it looks like audio (only sound tracks) — upload a video file',
    );
  return new MediaError(
    'no_video_track',
    kinds.size === 0
      ? 'has no video track (the movie header lists no tracks); export the video again'
      : `has no video track (only ${[...kinds].map((k) => `'${k || '?'}'`).join(', ')} tracks); export the video again`,
  );
}
