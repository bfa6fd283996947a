// The facts of an MP4/MOV video (issue 39), read from the boxes the duration check already
// walks (./probe.ts) plus a few small ones per track: tkhd (rotation matrix), stsd (codec,
// size, profile, bit depth, pixel aspect; audio channels and rate), stts (frame rate). Sample
// data is never read, so a 1 GB file on object storage costs a handful of ranged reads.
import { MEDIA_FACTS_VERSION, type AudioFacts, type MediaFacts, orientationOf, ratioOf } from '../rules/media-facts.js';
import { type Box, findBox, findPath, payloadOf } from './boxes.js';
import type { ByteSource } from './byte-source.js';
import type { TrafTime } from './fragments.js';
import type { Movie, Track } from './movie.js';
import { probeVideoLayout } from './probe.js';
import { type VideoEntry, firstSampleEntry, readAudioEntry, readVideoEntry } from './sample-entry.js';

// stts entries are 8 bytes; a phone's variable-rate hour is ~100,000 of them. Past this, the
// rate is judged on the entries read (the table is summed, the rest of it is left unread).
const STTS_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The facts of the video in `source`. Throws MediaError for what probeVideo refuses (not an
 * MP4/MOV, no video track, no duration…): a file without facts is a file without a duration.
 */
export async function readVideoFacts(source: ByteSource): Promise<MediaFacts> {
  const { probe, movie, layout, bytes } = await probeVideoLayout(source);
  const videoTrack = movie.tracks.find((t) => t.handler === 'vide')!;
  const audioTrack = movie.tracks.find((t) => t.handler === 'soun');
  const entry = await videoEntryOf(bytes, videoTrack.box);
  const rotation = await rotationOf(bytes, videoTrack.box);
  const width = entry?.width ?? 0;
  const height = entry?.height ?? 0;
  // Pixel aspect widens (or narrows) the picture; a quarter turn swaps the sides.
  const aspect = entry?.pixelAspect ? entry.pixelAspect.h / entry.pixelAspect.v : 1;
  const shownWidth = Math.round(width * aspect);
  const turned = rotation % 180 === 90;
  const [displayWidth, displayHeight] = turned ? [height, shownWidth] : [shownWidth, height];
  // The ratio from the exact sizes (128×72 with 4:3 pixels is 64:27, not 171:72's 19:8).
  const pixel = entry?.pixelAspect ?? { h: 1, v: 1 };
  const [ratioW, ratioH] = turned ? [height * pixel.v, width * pixel.h] : [width * pixel.h, height * pixel.v];
  const table = await sampleTable(bytes, videoTrack);
  const rate = probe.fragmented
    ? fragmentedRate(videoTrack, movie, layout.trafs, table)
    : steadyRate(videoTrack, table);
  const audio = audioTrack ? await audioOf(bytes, audioTrack.box) : null;
  return {
    version: MEDIA_FACTS_VERSION,
    kind: 'video',
    width,
    height,
    displayWidth,
    displayHeight,
    displayAspectRatio: ratioW > 0 && ratioH > 0 ? ratioOf(ratioW, ratioH) : '0:0',
    orientation: orientationOf(displayWidth, displayHeight),
    rotation,
    durationSeconds: probe.durationSeconds,
    ...(rate?.fps ? { frameRate: rate.fps } : {}),
    ...(rate?.variable !== undefined ? { variableFrameRate: rate.variable } : {}),
    videoCodec: entry?.codec ?? 'unknown',
    videoCodecTag: entry?.tag ?? '',
    ...(entry?.profile ? { videoProfile: entry.profile } : {}),
    ...(entry?.bitDepth ? { bitDepth: entry.bitDepth } : {}),
    audio,
    bitrate: probe.durationSeconds > 0 ? Math.round((source.size * 8) / probe.durationSeconds) : 0,
    fastStart: layout.mdatStart === undefined || layout.moov.start < layout.mdatStart,
    fragmented: probe.fragmented,
  };
}

async function stsdOf(source: ByteSource, trak: Box): Promise<Box | undefined> {
  return findPath(source, trak, ['mdia', 'minf', 'stbl', 'stsd']);
}

async function videoEntryOf(source: ByteSource, trak: Box): Promise<VideoEntry | undefined> {
  const stsd = await stsdOf(source, trak);
  const entry = stsd && (await firstSampleEntry(source, stsd));
  return entry ? readVideoEntry(source, entry) : undefined;
}

async function audioOf(source: ByteSource, trak: Box): Promise<AudioFacts | null> {
  const stsd = await stsdOf(source, trak);
  const entry = stsd && (await firstSampleEntry(source, stsd));
  if (!entry) return null;
  const a = await readAudioEntry(source, entry);
  return {
    codec: a.codec,
    ...(a.profile ? { profile: a.profile } : {}),
    channels: a.channels,
    sampleRate: a.sampleRate,
  };
}

/**
 * The clockwise turn tkhd's matrix asks for: {a b u; c d v; x y w} in 16.16. Degrees as ffmpeg's
 * `rotate` tag and ffprobe's display matrix count them (a clip shot holding a phone upright: 90).
 */
async function rotationOf(source: ByteSource, trak: Box): Promise<number> {
  const tkhd = await findBox(source, trak.payload, trak.end, 'tkhd');
  if (!tkhd) return 0;
  const b = await payloadOf(source, tkhd, 92);
  const at = b.u8(0) === 1 ? 52 : 40;
  if (b.length < at + 16) return 0;
  const fixed = (v: number) => (v | 0) / 65536;
  const a = fixed(b.u32(at));
  const bb = fixed(b.u32(at + 4));
  const degrees = -Math.round((Math.atan2(bb, a) * 180) / Math.PI);
  // Only quarter turns are real: anything else is rounded to the nearest one.
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

/** What stts says: how many samples, their summed durations, and whether those durations differ. */
interface SampleTable {
  samples: number;
  units: number;
  variable: boolean;
}

async function sampleTable(source: ByteSource, track: Track): Promise<SampleTable> {
  const none = { samples: 0, units: 0, variable: false };
  const stts = await findPath(source, track.box, ['mdia', 'minf', 'stbl', 'stts']);
  if (!stts) return none;
  const b = await payloadOf(source, stts, STTS_MAX_BYTES);
  if (b.length < 8) return none;
  const count = Math.min(b.u32(4), Math.floor((b.length - 8) / 8));
  let samples = 0;
  let units = 0;
  const deltas = new Set<number>();
  for (let i = 0; i < count; i++) {
    const n = b.u32(8 + i * 8);
    const delta = b.u32(12 + i * 8);
    samples += n;
    units += n * delta;
    // A muxer often gives the very last frame its own length: that alone is not a variable rate.
    if (!(i === count - 1 && n === 1 && count > 1)) deltas.add(delta);
  }
  return { samples, units, variable: deltas.size > 1 };
}

const fps = (samples: number, units: number, timescale: number) =>
  samples > 0 && units > 0 && timescale > 0 ? Math.round(((samples * timescale) / units) * 1000) / 1000 : undefined;

/** Frames per second of a regular file: samples ÷ summed durations; variable when the durations differ. */
function steadyRate(track: Track, t: SampleTable): { fps?: number; variable: boolean } | undefined {
  const rate = fps(t.samples, t.units, track.timescale);
  return rate === undefined ? undefined : { fps: rate, variable: t.variable };
}

/**
 * A fragmented file's frames per second: the samples in the movie header and in every fragment
 * of the track, over their durations (trun's own, else tfhd's or trex's default), as the
 * duration counts them (./probe.ts). Whether the rate varies is not judged across fragments.
 */
function fragmentedRate(
  track: Track,
  movie: Movie,
  trafs: readonly TrafTime[],
  t: SampleTable,
): { fps?: number; variable?: boolean } | undefined {
  const fallback = movie.trexDefaults.get(track.id) ?? 0;
  let samples = t.samples;
  let units = t.units;
  for (const traf of trafs) {
    if (traf.trackId !== track.id) continue;
    samples += traf.samples;
    units += traf.explicit + traf.defaulted * (traf.tfhdDefault ?? fallback);
  }
  const rate = fps(samples, units, track.timescale);
  return rate === undefined ? undefined : { fps: rate };
}
