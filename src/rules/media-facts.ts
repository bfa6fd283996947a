// What a media file's own bytes say about it (issue 39): the shape shared by the parsers that
// measure it (src/media/facts.ts), the wire schema that carries it (src/api/response-schemas.ts,
// `MediaFactsSchema`, checked against this type in test/media/facts.test.ts), and the platform
// readiness checker that judges it (./platforms.ts). Plain types here, so every layer may use them.

/** Bumped when the parsers learn to read more: the sweeper measures items with an older version again. */
export const MEDIA_FACTS_VERSION = 1;

/** The audio track of a video, as its sample entry describes it. */
export interface AudioFacts {
  /** ffprobe's codec names: 'aac', 'opus', 'ac3', 'eac3', 'mp3', 'alac', 'flac', 'pcm', or the sample entry's type. */
  codec: string;
  /** AAC's object type ('LC', 'HE-AAC', 'HE-AACv2', 'Main', …), when the codec has profiles. */
  profile?: string;
  channels: number;
  /** Samples per second (Hz). */
  sampleRate: number;
}

export interface MediaFacts {
  /** The facts parser's version (MEDIA_FACTS_VERSION when measured). */
  version: number;
  kind: 'video' | 'image';
  /** The stored picture's size in pixels, before rotation or orientation is applied. */
  width: number;
  height: number;
  /** The size as shown: pixel aspect (pasp) and rotation (video) or EXIF orientation (image) applied. */
  displayWidth: number;
  displayHeight: number;
  /** displayWidth:displayHeight in lowest terms ("9:16", "16:9", "4:5"). */
  displayAspectRatio: string;
  orientation: 'portrait' | 'landscape' | 'square';
  /** Video: degrees the player turns the picture clockwise (tkhd matrix): 0, 90, 180 or 270. */
  rotation?: number;
  /** Image: the EXIF Orientation tag (1–8; 1 when there is none). */
  exifOrientation?: number;
  /** Image: 'jpeg', 'png', 'webp', 'gif'. */
  imageFormat?: string;
  /** Video: seconds, as the duration check measures them (src/media/probe.ts). */
  durationSeconds?: number;
  /** Video: frames per second on average (samples ÷ their summed durations, fragments included). */
  frameRate?: number;
  /** Video: frame durations differ (a phone's variable frame rate); absent for a fragmented file. */
  variableFrameRate?: boolean;
  /** Video: ffprobe's codec names: 'h264', 'hevc', 'vp9', 'av1', 'vp8', 'mpeg4', 'prores', or the sample entry's type. */
  videoCodec?: string;
  /** Video: the sample entry's four characters ('avc1', 'hvc1', 'hev1', 'vp09', 'av01', …). */
  videoCodecTag?: string;
  /** Video: the profile its configuration box gives ('High', 'Main 10', 'Profile 2', …). */
  videoProfile?: string;
  /** Video: bits per sample of the picture (8, 10, 12), when the configuration box says. */
  bitDepth?: number;
  /** Video: the first audio track, or null when there is none. */
  audio?: AudioFacts | null;
  /** Video: bits per second over the whole file (size × 8 ÷ duration). */
  bitrate?: number;
  /** Video: the index (moov) comes before the media data (mdat), so playback can start before the download ends. */
  fastStart?: boolean;
  /** Video: the file is fragmented (moof boxes). */
  fragmented?: boolean;
}

/** The greatest common divisor, for ratios in lowest terms. */
function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** "W:H" in lowest terms. */
export function ratioOf(width: number, height: number): string {
  const w = Math.round(width);
  const h = Math.round(height);
  const d = gcd(w, h) || 1;
  return `${w / d}:${h / d}`;
}

export function orientationOf(width: number, height: number): MediaFacts['orientation'] {
  return width === height ? 'square' : width > height ? 'landscape' : 'portrait';
}

// The shapes people name; a size within 1% of one is called by its name ("9:16", not "135:242").
const NAMED_RATIOS: ReadonlyArray<[number, number]> = [
  [9, 16],
  [16, 9],
  [1, 1],
  [4, 5],
  [5, 4],
  [4, 3],
  [3, 4],
  [2, 3],
  [3, 2],
  [21, 9],
  [1.91, 1],
  [2, 1],
];

/** The named shape nearest to width:height when within 1%, else the ratio in lowest terms. */
export function friendlyRatio(width: number, height: number): string {
  const r = width / height;
  for (const [w, h] of NAMED_RATIOS) if (Math.abs(r / (w / h) - 1) < 0.01) return `${w}:${h}`;
  return ratioOf(width, height);
}

const CODEC_NAMES: Record<string, string> = {
  h264: 'H.264',
  hevc: 'HEVC',
  vp9: 'VP9',
  vp8: 'VP8',
  av1: 'AV1',
  mpeg4: 'MPEG-4',
  prores: 'ProRes',
  aac: 'AAC',
  opus: 'Opus',
  ac3: 'AC-3',
  eac3: 'E-AC-3',
  mp3: 'MP3',
  alac: 'ALAC',
  flac: 'FLAC',
  pcm: 'PCM',
};

/** A codec as people name it ('H.264', 'HEVC', 'AAC'); an unknown one as its sample entry says. */
export function codecName(codec: string): string {
  return CODEC_NAMES[codec] ?? codec;
}

function channelsName(n: number): string {
  return n === 1 ? 'mono' : n === 2 ? 'stereo' : n === 6 ? '5.1' : n === 8 ? '7.1' : `${n} channels`;
}

const trim = (n: number, digits: number) => String(Number(n.toFixed(digits)));

/**
 * The facts as labelled lines for people (`show`, browse's item page): "Resolution 1080×1920
 * (9:16, portrait)", "Frame rate 29.97 fps", "Video H.264 High 8-bit", "Audio AAC 48 kHz stereo".
 */
export function describeMedia(m: MediaFacts): Array<[label: string, value: string]> {
  const shape = `${friendlyRatio(m.displayWidth, m.displayHeight)}, ${m.orientation}`;
  const turned =
    m.kind === 'video' && m.rotation
      ? `; stored ${m.width}×${m.height}, turned ${m.rotation}°`
      : m.kind === 'image' && m.exifOrientation && m.exifOrientation !== 1
        ? `; stored ${m.width}×${m.height}, EXIF orientation ${m.exifOrientation}`
        : '';
  const lines: Array<[string, string]> = [['Resolution', `${m.displayWidth}×${m.displayHeight} (${shape}${turned})`]];
  if (m.kind === 'image') {
    if (m.imageFormat) lines.push(['Format', m.imageFormat.toUpperCase()]);
    return lines;
  }
  if (m.frameRate !== undefined)
    lines.push(['Frame rate', `${trim(m.frameRate, 2)} fps${m.variableFrameRate ? ' (variable)' : ''}`]);
  if (m.videoCodec) {
    const depth = m.bitDepth ? ` ${m.bitDepth}-bit` : '';
    lines.push(['Video', `${codecName(m.videoCodec)}${m.videoProfile ? ` ${m.videoProfile}` : ''}${depth}`]);
  }
  if (m.audio !== undefined)
    lines.push([
      'Audio',
      m.audio
        ? `${codecName(m.audio.codec)}${m.audio.profile && m.audio.profile !== 'LC' ? ` ${m.audio.profile}` : ''} ${trim(m.audio.sampleRate / 1000, 1)} kHz ${channelsName(m.audio.channels)}`
        : 'none',
    ]);
  if (m.bitrate)
    lines.push([
      'Bitrate',
      m.bitrate >= 1e6 ? `${trim(m.bitrate / 1e6, 1)} Mb/s` : `${Math.round(m.bitrate / 1000)} kb/s`,
    ]);
  if (m.fastStart !== undefined)
    lines.push(['Layout', m.fastStart ? 'fast start (index first)' : 'index at the end (not fast start)']);
  return lines;
}

/** One line: "1080×1920 (9:16), 29.97 fps, H.264 High 8-bit, AAC 48 kHz stereo, fast start". */
export function mediaSummary(m: MediaFacts): string {
  const parts = [`${m.displayWidth}×${m.displayHeight} (${friendlyRatio(m.displayWidth, m.displayHeight)})`];
  for (const [label, value] of describeMedia(m).slice(1)) {
    if (label === 'Layout') parts.push(m.fastStart ? 'fast start' : 'index at the end');
    else if (label === 'Audio' && value === 'none') parts.push('no audio');
    else if (label !== 'Bitrate' && label !== 'Format') parts.push(value);
  }
  return parts.join(', ');
}
