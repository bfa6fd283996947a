// Fragmented MP4 (what OBS, screen recorders, DASH/CMAF packagers and `ffmpeg -movflags
// frag_keyframe` write): the movie header says little or nothing about the length, which is
// spread over `moof` boxes. This module reads, per fragment, how much time each track's samples
// cover (`traf`: `tfhd`, `tfdt`, `trun`), the per-track defaults (`mvex/trex`), and the segment
// index (`sidx`). Only those small boxes are read; sample data (`mdat`) never is.
import { type Box, Bytes, children, payloadOf } from './boxes.js';
import type { ByteSource } from './byte-source.js';
import { MediaError } from './errors.js';

/** What one `traf` says about one track's time, before `trex` defaults are applied. */
export interface TrafTime {
  trackId: number;
  /** tfdt's baseMediaDecodeTime: where this fragment starts on the track's timeline. */
  baseTime?: number;
  /** Sum of the durations the trun entries give explicitly. */
  explicit: number;
  /** Samples whose duration is a default (tfhd's, else trex's). */
  defaulted: number;
  /** All samples of the fragment, for the frame rate (./video-facts.ts). */
  samples: number;
  /** tfhd's default_sample_duration, when it has one. */
  tfhdDefault?: number;
}

// tfhd flags (ISO/IEC 14496-12 8.8.7)
const BASE_DATA_OFFSET = 0x1;
const SAMPLE_DESCRIPTION_INDEX = 0x2;
const DEFAULT_DURATION = 0x8;
// trun flags (8.8.8)
const DATA_OFFSET = 0x1;
const FIRST_SAMPLE_FLAGS = 0x4;
const SAMPLE_DURATION = 0x100;
const SAMPLE_FIELDS = [0x100, 0x200, 0x400, 0x800];
// A trun's sample table is summed in slices of this many bytes, so a huge one costs bounded memory.
const TABLE_SLICE = 1024 * 1024;

/** The time of every traf in a moof. */
export async function readMoof(source: ByteSource, moof: Box): Promise<TrafTime[]> {
  const trafs: TrafTime[] = [];
  for await (const traf of children(source, moof.payload, moof.end)) {
    if (traf.type === 'traf') trafs.push(await readTraf(source, traf));
  }
  return trafs;
}

async function readTraf(source: ByteSource, traf: Box): Promise<TrafTime> {
  const time: TrafTime = { trackId: 0, explicit: 0, defaulted: 0, samples: 0 };
  let sawTfhd = false;
  for await (const box of children(source, traf.payload, traf.end)) {
    if (box.type === 'tfhd') {
      sawTfhd = true;
      Object.assign(time, await readTfhd(source, box));
    } else if (box.type === 'tfdt') {
      const b = await payloadOf(source, box, 12);
      time.baseTime = b.u8(0) === 1 ? b.u64(4) : b.u32(4);
    } else if (box.type === 'trun') {
      const run = await readTrun(source, box);
      time.explicit += run.explicit;
      time.defaulted += run.defaulted;
      time.samples += run.samples;
    }
  }
  if (!sawTfhd)
    throw new MediaError('malformed', 'a track fragment (traf) has no tfhd box; the file is damaged — export it again');
  return time;
}

async function readTfhd(source: ByteSource, box: Box): Promise<Pick<TrafTime, 'trackId' | 'tfhdDefault'>> {
  const b = await payloadOf(source, box, 40);
  const flags = b.flags();
  let at = 8;
  if (flags & BASE_DATA_OFFSET) at += 8;
  if (flags & SAMPLE_DESCRIPTION_INDEX) at += 4;
  return { trackId: b.u32(4), ...(flags & DEFAULT_DURATION ? { tfhdDefault: b.u32(at) } : {}) };
}

async function readTrun(
  source: ByteSource,
  box: Box,
): Promise<{ explicit: number; defaulted: number; samples: number }> {
  const head = await payloadOf(source, box, 16);
  const flags = head.flags();
  const count = head.u32(4);
  if (!(flags & SAMPLE_DURATION)) return { explicit: 0, defaulted: count, samples: count };
  let at = 8;
  if (flags & DATA_OFFSET) at += 4;
  if (flags & FIRST_SAMPLE_FLAGS) at += 4;
  const entry = 4 * SAMPLE_FIELDS.filter((bit) => flags & bit).length;
  const tableStart = box.payload + at;
  if (tableStart + count * entry > box.end)
    throw new MediaError(
      'malformed',
      `a trun box lists ${count} samples but is too short to hold them; the file is damaged — export it again`,
    );
  // The duration is the first field of each entry.
  let explicit = 0;
  const perSlice = Math.max(1, Math.floor(TABLE_SLICE / entry));
  for (let first = 0; first < count; first += perSlice) {
    const n = Math.min(perSlice, count - first);
    const slice = new Bytes(await source.read(tableStart + first * entry, n * entry), 'trun');
    for (let i = 0; i < n; i++) explicit += slice.u32(i * entry);
  }
  return { explicit, defaulted: 0, samples: count };
}

/** trex's default sample duration per track id (moov/mvex/trex). */
export async function readTrex(source: ByteSource, trex: Box): Promise<{ trackId: number; duration: number }> {
  const b = await payloadOf(source, trex, 24);
  return { trackId: b.u32(4), duration: b.u32(12) };
}

/** mehd's fragment duration, in the movie timescale; undefined when 0. */
export async function readMehd(source: ByteSource, mehd: Box): Promise<number | undefined> {
  const b = await payloadOf(source, mehd, 12);
  const units = b.u8(0) === 1 ? b.u64(4) : b.u32(4);
  return units > 0 ? units : undefined;
}

/** A segment index: the seconds its media references add up to, for one stream. */
export interface SegmentIndex {
  referenceId: number;
  seconds: number;
}

/** What one sidx box covers. Hierarchical references (to other sidx boxes) are not counted twice. */
export async function readSidx(source: ByteSource, sidx: Box): Promise<SegmentIndex | undefined> {
  // At most 65,535 references of 12 bytes follow a header of at most 32 bytes.
  const b = await payloadOf(source, sidx, 32 + 0xffff * 12);
  const version = b.u8(0);
  const referenceId = b.u32(4);
  const timescale = b.u32(8);
  let at = version === 0 ? 20 : 28;
  const count = b.u32(at) & 0xffff;
  at += 4;
  let units = 0;
  for (let i = 0; i < count; i++, at += 12) {
    const referencesIndex = b.u32(at) >>> 31 === 1;
    if (!referencesIndex) units += b.u32(at + 4);
  }
  return timescale > 0 ? { referenceId, seconds: units / timescale } : undefined;
}
