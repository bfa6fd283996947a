// The movie header (`moov`) of an MP4/MOV: its declared length (`mvhd`), its tracks (`trak`:
// id, kind from `mdia/hdlr`, timescale and length from `mdia/mdhd`), and the fragment
// defaults of a fragmented file (`mvex`: `mehd`, `trex`). Read box by box, never as a whole.
import { type Box, type Bytes, children, findBox, findPath, payloadOf } from './boxes.js';
import type { ByteSource } from './byte-source.js';
import { MediaError } from './errors.js';
import { readMehd, readTrex } from './fragments.js';

export interface Track {
  /** The trak box itself, for readers of more than the duration (./video-facts.ts). */
  box: Box;
  id: number;
  /** hdlr's handler type: 'vide', 'soun', 'text', 'meta', … ('' when the track has none). */
  handler: string;
  /** mdhd's timescale: units per second of the track's own times (trun, tfdt). */
  timescale: number;
  /** mdhd's duration: the samples the movie header itself holds, in the track's timescale. */
  units: number;
}

export interface Movie {
  /** mvhd's timescale (units per second). */
  timescale: number;
  /** mvhd's duration in its timescale; undefined when 0 or "unknown" (all ones). */
  units: number | undefined;
  tracks: Track[];
  /** mvex/mehd: the whole fragmented length, in the movie timescale. */
  fragmentUnits?: number;
  /** mvex/trex: each track's default sample duration for fragments. */
  trexDefaults: Map<number, number>;
}

/** Reads the movie header. Throws MediaError 'no_mvhd' when it has no mvhd. */
export async function readMovie(source: ByteSource, moov: Box): Promise<Movie> {
  const mvhd = await findBox(source, moov.payload, moov.end, 'mvhd');
  if (!mvhd)
    throw new MediaError(
      'no_mvhd',
      'the movie header (moov) has no mvhd box, so the duration cannot be read; export the video again',
    );
  const movie: Movie = { ...parseMvhd(await payloadOf(source, mvhd, 32)), tracks: [], trexDefaults: new Map() };
  for await (const box of children(source, moov.payload, moov.end)) {
    if (box.type === 'trak') movie.tracks.push(await readTrack(source, box));
    else if (box.type === 'mvex') await readMvex(source, box, movie);
  }
  return movie;
}

/** mvhd's timescale and duration; duration is undefined when the file says 0 or "unknown" (all ones). */
function parseMvhd(b: Bytes): { timescale: number; units: number | undefined } {
  if (b.length === 0) throw new MediaError('truncated', 'the mvhd box is empty; the file is damaged — export it again');
  const version = b.u8(0);
  if (version !== 0 && version !== 1) {
    throw new MediaError(
      'malformed',
      `the mvhd box has version ${String(version)}, which is not 0 or 1; the file is damaged or not an MP4/MOV`,
    );
  }
  if (b.length < (version === 0 ? 20 : 32))
    throw new MediaError(
      'truncated',
      'the mvhd box is shorter than its version requires; the file is damaged — export it again',
    );
  if (version === 0) {
    const units = b.u32(16);
    return { timescale: b.u32(12), units: units === 0 || units === 0xffffffff ? undefined : units };
  }
  const units = b.u64big(24);
  return {
    timescale: b.u32(20),
    units: units === 0n || units === 0xffffffffffffffffn ? undefined : b.u64(24),
  };
}

async function readTrack(source: ByteSource, trak: Box): Promise<Track> {
  const track: Track = { box: trak, id: 0, handler: '', timescale: 0, units: 0 };
  const tkhd = await findBox(source, trak.payload, trak.end, 'tkhd');
  if (tkhd) {
    const b = await payloadOf(source, tkhd, 24);
    track.id = b.u8(0) === 1 ? b.u32(20) : b.u32(12);
  }
  const hdlr = await findPath(source, trak, ['mdia', 'hdlr']);
  // hdlr: version and flags, pre_defined (QuickTime's component type), then the handler type.
  if (hdlr) track.handler = (await payloadOf(source, hdlr, 12)).ascii(8, 4);
  const mdhd = await findPath(source, trak, ['mdia', 'mdhd']);
  if (mdhd) {
    const b = await payloadOf(source, mdhd, 32);
    const v1 = b.u8(0) === 1;
    track.timescale = v1 ? b.u32(20) : b.u32(12);
    const units = v1 ? b.u64big(24) : BigInt(b.u32(16));
    // All ones means "unknown"; a fragmented file's empty moov says 0.
    if (units !== 0xffffffffn && units !== 0xffffffffffffffffn) track.units = v1 ? b.u64(24) : Number(units);
  }
  return track;
}

async function readMvex(source: ByteSource, mvex: Box, movie: Movie): Promise<void> {
  for await (const box of children(source, mvex.payload, mvex.end)) {
    if (box.type === 'mehd') {
      const units = await readMehd(source, box);
      if (units !== undefined) movie.fragmentUnits = units;
    } else if (box.type === 'trex') {
      const { trackId, duration } = await readTrex(source, box);
      movie.trexDefaults.set(trackId, duration);
    }
  }
}
