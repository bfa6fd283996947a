// A track's first sample description (`stsd`): which codec, and what its configuration box says —
// profile and bit depth for video (avcC, hvcC, vpcC, av1C), pixel aspect (pasp); channels and
// sample rate for audio, with AAC's object type (esds), Opus (dOps), AC-3 (dac3), E-AC-3 (dec3).
// Field layouts: ISO/IEC 14496-12 (sample entries), 14496-15 (avcC, hvcC), 14496-1 (esds), the
// VP9 and AV1 ISOBMFF bindings, ETSI TS 102 366 (dac3, dec3), and Apple's QuickTime spec.
import { type Box, type Bytes, children, findBox, payloadOf } from './boxes.js';
import type { ByteSource } from './byte-source.js';
import { MediaError } from './errors.js';

export interface VideoEntry {
  tag: string;
  codec: string;
  width: number;
  height: number;
  profile?: string;
  bitDepth?: number;
  /** pasp's horizontal and vertical spacing: the shape of one pixel. */
  pixelAspect?: { h: number; v: number };
}

export interface AudioEntry {
  tag: string;
  codec: string;
  profile?: string;
  channels: number;
  sampleRate: number;
}

const VIDEO_CODECS: Record<string, string> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  vp08: 'vp8',
  vp09: 'vp9',
  av01: 'av1',
  mp4v: 'mpeg4',
  apch: 'prores',
  apcn: 'prores',
  apcs: 'prores',
  apco: 'prores',
  ap4h: 'prores',
  ap4x: 'prores',
  dvh1: 'hevc',
  dvhe: 'hevc',
};

const AUDIO_CODECS: Record<string, string> = {
  mp4a: 'aac',
  Opus: 'opus',
  'ac-3': 'ac3',
  'ec-3': 'eac3',
  '.mp3': 'mp3',
  alac: 'alac',
  fLaC: 'flac',
  lpcm: 'pcm',
  sowt: 'pcm',
  twos: 'pcm',
  ipcm: 'pcm',
};

// Sample entries and config boxes are small; an avcC with many parameter sets is still a few KB.
const ENTRY_BYTES = 64 * 1024;

/** The first sample entry in `stbl/stsd`, as a box. */
export async function firstSampleEntry(source: ByteSource, stsd: Box): Promise<Box | undefined> {
  // stsd: version and flags (4), entry_count (4), then the entries, each a box.
  for await (const entry of children(source, stsd.payload + 8, stsd.end)) return entry;
  return undefined;
}

/** A visual sample entry: 78 bytes of fields, then its configuration boxes. */
export async function readVideoEntry(source: ByteSource, entry: Box): Promise<VideoEntry> {
  const b = await payloadOf(source, entry, 78);
  const video: VideoEntry = {
    tag: entry.type,
    codec: VIDEO_CODECS[entry.type] ?? entry.type,
    width: b.u8(24) * 256 + b.u8(25),
    height: b.u8(26) * 256 + b.u8(27),
  };
  if (entry.payload + 78 >= entry.end) return video;
  for await (const box of children(source, entry.payload + 78, entry.end)) {
    if (box.type === 'pasp') {
      const p = await payloadOf(source, box, 8);
      const h = p.u32(0);
      const v = p.u32(4);
      if (h > 0 && v > 0) video.pixelAspect = { h, v };
    } else if (box.type === 'avcC') Object.assign(video, avcProfile(await payloadOf(source, box, ENTRY_BYTES)));
    else if (box.type === 'hvcC') Object.assign(video, hevcProfile(await payloadOf(source, box, 23)));
    else if (box.type === 'vpcC') Object.assign(video, vp9Profile(await payloadOf(source, box, 8)));
    else if (box.type === 'av1C') Object.assign(video, av1Profile(await payloadOf(source, box, 4)));
  }
  return video;
}

const AVC_PROFILES: Record<number, string> = {
  66: 'Baseline',
  77: 'Main',
  88: 'Extended',
  100: 'High',
  110: 'High 10',
  122: 'High 4:2:2',
  244: 'High 4:4:4 Predictive',
};

/** avcC: profile_idc and its constraint flags; the bit depth from the extension the high profiles carry. */
function avcProfile(b: Bytes): { profile?: string; bitDepth?: number } {
  const idc = b.u8(1);
  const constraints = b.u8(2);
  let profile = AVC_PROFILES[idc];
  // constraint_set1 on Baseline: Constrained Baseline (what x264 and phones write).
  if (idc === 66 && constraints & 0x40) profile = 'Constrained Baseline';
  if (idc === 110 && constraints & 0x10) profile = 'High 10 Intra';
  const out: { profile?: string; bitDepth?: number } = profile ? { profile } : {};
  // Profiles before High are 8-bit by definition.
  if (idc === 66 || idc === 77 || idc === 88) return { ...out, bitDepth: 8 };
  // After the SPS and PPS lists, High profiles add chroma_format, bit_depth_luma_minus8, … (14496-15 5.3.3.1).
  let at = 5;
  const sps = b.u8(at++) & 0x1f;
  for (let i = 0; i < sps; i++) at += 2 + (b.u8(at) << 8) + b.u8(at + 1);
  if (at >= b.length) return out;
  const pps = b.u8(at++);
  for (let i = 0; i < pps; i++) at += 2 + (b.u8(at) << 8) + b.u8(at + 1);
  if (at + 2 > b.length) return idc === 100 ? { ...out, bitDepth: 8 } : out;
  return { ...out, bitDepth: (b.u8(at + 1) & 0x07) + 8 };
}

const HEVC_PROFILES: Record<number, string> = { 1: 'Main', 2: 'Main 10', 3: 'Main Still Picture', 4: 'Rext' };

/** hvcC: general_profile_idc (byte 1, low 5 bits) and bitDepthLumaMinus8 (byte 17, low 3 bits). */
function hevcProfile(b: Bytes): { profile?: string; bitDepth?: number } {
  const profile = HEVC_PROFILES[b.u8(1) & 0x1f];
  return { ...(profile ? { profile } : {}), bitDepth: (b.u8(17) & 0x07) + 8 };
}

/** vpcC (a full box, version 1): profile, level, then bitDepth in the high 4 bits. */
function vp9Profile(b: Bytes): { profile: string; bitDepth: number } {
  return { profile: `Profile ${b.u8(4)}`, bitDepth: b.u8(6) >> 4 };
}

const AV1_PROFILES = ['Main', 'High', 'Professional'];

/** av1C: seq_profile (byte 1, high 3 bits); high_bitdepth and twelve_bit (byte 2). */
function av1Profile(b: Bytes): { profile?: string; bitDepth: number } {
  const profile = AV1_PROFILES[b.u8(1) >> 5];
  const flags = b.u8(2);
  const bitDepth = flags & 0x40 ? (flags & 0x20 ? 12 : 10) : 8;
  return { ...(profile ? { profile } : {}), bitDepth };
}

/**
 * An audio sample entry. ISO and QuickTime version 0 share 28 bytes of fields (channels at 16,
 * the sample rate as 16.16 at 24); QuickTime version 1 adds 16 bytes, version 2 replaces them
 * with 36 bytes holding a float64 rate and a 32-bit channel count.
 */
export async function readAudioEntry(source: ByteSource, entry: Box): Promise<AudioEntry> {
  const b = await payloadOf(source, entry, 64);
  const version = b.u8(8) * 256 + b.u8(9);
  let channels = b.u8(16) * 256 + b.u8(17);
  let sampleRate = b.u32(24) >>> 16;
  let fields = 28;
  if (version === 1) fields = 44;
  else if (version === 2) {
    fields = 64;
    sampleRate = Math.round(new DataView(b.bytes.buffer, b.bytes.byteOffset + 32, 8).getFloat64(0));
    channels = b.u32(40);
  }
  const audio: AudioEntry = { tag: entry.type, codec: AUDIO_CODECS[entry.type] ?? entry.type, channels, sampleRate };
  if (entry.payload + fields >= entry.end) return audio;
  // QuickTime nests the esds of an mp4a in a `wave` box.
  const boxes = entry.payload + fields;
  const wave = await findBox(source, boxes, entry.end, 'wave');
  const inner = wave ? { from: wave.payload, to: wave.end } : { from: boxes, to: entry.end };
  for await (const box of configBoxes(source, inner.from, inner.to)) {
    if (box.type === 'esds') Object.assign(audio, esdsAudio(await payloadOf(source, box, 256), audio));
    else if (box.type === 'dac3') audio.channels = ac3Channels(await payloadOf(source, box, 3), 0);
    else if (box.type === 'dec3') audio.channels = ac3Channels(await payloadOf(source, box, 5), 2);
    else if (box.type === 'dOps') {
      const d = await payloadOf(source, box, 8);
      audio.channels = d.u8(1);
      audio.sampleRate = 48000;
    }
  }
  return audio;
}

/**
 * The boxes of a sample entry, up to the first that is not one: QuickTime ends a `wave` box
 * with a terminator atom (eight zero bytes), and an entry's trailing padding is not a box either.
 */
async function* configBoxes(source: ByteSource, from: number, to: number): AsyncGenerator<Box> {
  try {
    for await (const box of children(source, from, to)) yield box;
  } catch (err) {
    if (!(err instanceof MediaError)) throw err;
  }
}

const AAC_OBJECT_TYPES: Record<number, string> = {
  1: 'Main',
  2: 'LC',
  3: 'SSR',
  4: 'LTP',
  5: 'HE-AAC',
  23: 'LD',
  29: 'HE-AACv2',
  39: 'ELD',
};

/**
 * esds: ES_Descriptor (tag 3) › DecoderConfigDescriptor (tag 4: objectTypeIndication says AAC
 * or MP3) › DecoderSpecificInfo (tag 5: AudioSpecificConfig, whose first 5 bits are AAC's object type).
 */
function esdsAudio(b: Bytes, audio: AudioEntry): Partial<AudioEntry> {
  let at = 4;
  const descriptor = (tag: number): number | undefined => {
    if (at >= b.length || b.u8(at) !== tag) return undefined;
    at++;
    let length = 0;
    // The length takes up to four bytes, seven bits each, high bit "more".
    for (let i = 0; i < 4; i++) {
      const byte = b.u8(at++);
      length = (length << 7) | (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    return length;
  };
  if (descriptor(3) === undefined) return {};
  const flags = b.u8(at + 2);
  at += 3;
  if (flags & 0x80) at += 2; // dependsOn_ES_ID
  if (flags & 0x40) at += 1 + b.u8(at); // URL
  if (flags & 0x20) at += 2; // OCR_ES_Id
  if (descriptor(4) === undefined) return {};
  const objectType = b.u8(at);
  // 0x69 and 0x6B: MPEG-2 and MPEG-1 audio (MP3) in an mp4a entry.
  if (objectType === 0x69 || objectType === 0x6b) return { codec: 'mp3' };
  if (objectType !== 0x40 && objectType !== 0x66 && objectType !== 0x67 && objectType !== 0x68) return {};
  at += 13;
  if (descriptor(5) === undefined) return {};
  // AudioSpecificConfig, bit by bit: audioObjectType (5 bits, 31 escapes to 6 more),
  // samplingFrequencyIndex (4, 15 escapes to a 24-bit rate), channelConfiguration (4).
  let bit = at * 8;
  const take = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) v = (v << 1) | ((b.u8(bit >> 3) >> (7 - (bit & 7))) & 1);
    return v;
  };
  let aot = take(5);
  if (aot === 31) aot = 32 + take(6);
  if (take(4) === 15) take(24);
  const profile = AAC_OBJECT_TYPES[aot];
  // The decoder configures itself from channelConfiguration, as ffprobe reports it; the sample
  // entry's count can be a muxer's default (2 for a mono track). 0 means "see the program config".
  const channelConfig = take(4);
  const CONFIG_CHANNELS = [0, 1, 2, 3, 4, 5, 6, 8];
  const channels = channelConfig > 0 && channelConfig < 8 ? CONFIG_CHANNELS[channelConfig]! : audio.channels;
  return { codec: 'aac', ...(profile ? { profile } : {}), channels };
}

// AC-3's acmod: channels without the LFE (ETSI TS 102 366 table 4.3).
const ACMOD_CHANNELS = [2, 1, 2, 3, 3, 4, 4, 5];

/**
 * dac3 (fscod 2 bits, bsid 5, bsmod 3, acmod 3, lfeon 1) and dec3's first independent substream
 * (after data_rate 13 bits and num_ind_sub 3: fscod 2, bsid 5, reserved 1, asvc 1, bsmod 3, acmod 3, lfeon 1).
 */
function ac3Channels(b: Bytes, start: number): number {
  const bits = (b.u8(start) << 16) | (b.u8(start + 1) << 8) | b.u8(start + 2);
  const skip = start === 0 ? 10 : 12;
  const acmod = (bits >> (24 - skip - 3)) & 0x07;
  const lfe = (bits >> (24 - skip - 4)) & 0x01;
  return ACMOD_CHANNELS[acmod]! + lfe;
}
