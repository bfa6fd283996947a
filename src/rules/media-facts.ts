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
  /** Video: frames per second on average (samples ÷ track length); absent for a fragmented file. */
  frameRate?: number;
  /** Video: frame durations differ (a phone's variable frame rate). */
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
