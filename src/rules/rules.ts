// The one table of type rules and limits (docs/api.md, Sizes and type rules).
// The server validates requests from it and the CLI checks files from it: change a limit here
// and both sides move together.

/** Sizes are binary: MB is 2^20 bytes, GB is 2^30 (docs/api.md). */
export const MB = 2 ** 20;
export const GB = 2 ** 30;

export const CONTENT_TYPES = ['shortform', 'carousel', 'longform'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const STATUSES = ['draft', 'scheduled', 'published', 'failed'] as const;
export type Status = (typeof STATUSES)[number];

export type Media = 'video' | 'image';

export interface FormatRule {
  /** The MIME type sent as contentType and as the storage PUT's Content-Type. */
  mime: string;
  /** Other MIME names seen in the wild for the same bytes; accepted and mapped to `mime`. */
  aliases: readonly string[];
  /** File name extensions, lower case, without the dot; the first is the canonical one. */
  extensions: readonly string[];
  media: Media;
}

export const FORMATS = {
  mp4: { mime: 'video/mp4', aliases: [], extensions: ['mp4', 'm4v'], media: 'video' },
  mov: { mime: 'video/quicktime', aliases: [], extensions: ['mov', 'qt'], media: 'video' },
  jpeg: {
    mime: 'image/jpeg',
    aliases: ['image/jpg', 'image/pjpeg'],
    extensions: ['jpg', 'jpeg', 'jpe'],
    media: 'image',
  },
  png: { mime: 'image/png', aliases: [], extensions: ['png'], media: 'image' },
  webp: { mime: 'image/webp', aliases: [], extensions: ['webp'], media: 'image' },
} as const satisfies Record<string, FormatRule>;

export type Format = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.keys(FORMATS) as Format[];

export interface TypeRule {
  media: Media;
  formats: readonly Format[];
  maxBytes: number;
  /** Inclusive duration range in seconds, for video types that have one. */
  duration?: { min: number; max: number };
  minFiles: number;
  maxFiles: number;
}

export const TYPE_RULES = {
  shortform: {
    media: 'video',
    formats: ['mp4', 'mov'],
    maxBytes: 300 * MB,
    duration: { min: 3, max: 90 },
    minFiles: 1,
    maxFiles: 1,
  },
  carousel: { media: 'image', formats: ['jpeg', 'png', 'webp'], maxBytes: 20 * MB, minFiles: 2, maxFiles: 10 },
  longform: { media: 'video', formats: ['mp4', 'mov'], maxBytes: 1 * GB, minFiles: 1, maxFiles: 1 },
} as const satisfies Record<ContentType, TypeRule>;

/** A format the service does not take, as people meet it, and what to turn it into. */
export interface UnsupportedFormat {
  /** What to call it: "a HEIC image". */
  name: string;
  /** What to do: "convert it to JPEG". */
  convert: string;
}

const HEIF: UnsupportedFormat = { name: 'a HEIC image', convert: 'convert it to JPEG' };
const ANIMATED: UnsupportedFormat = {
  name: 'a GIF',
  convert: 'convert it to MP4 (animated, as a video) or PNG (a still image)',
};
const VIDEO_TO_MP4 = (name: string): UnsupportedFormat => ({ name, convert: 'convert it to MP4 (H.264)' });
const IMAGE_TO_JPEG = (name: string): UnsupportedFormat => ({ name, convert: 'convert it to JPEG or PNG' });

/**
 * Formats phones, cameras and editors write that the service refuses, by file name extension:
 * an upload reports them with the hint instead of dropping them silently.
 */
export const UNSUPPORTED_FORMATS: Readonly<Record<string, UnsupportedFormat>> = {
  heic: HEIF,
  heif: { ...HEIF, name: 'a HEIF image' },
  hif: { ...HEIF, name: 'a HEIF image' },
  avif: { name: 'an AVIF image', convert: 'convert it to JPEG' },
  gif: ANIMATED,
  mkv: VIDEO_TO_MP4('a Matroska (MKV) video'),
  webm: VIDEO_TO_MP4('a WebM video'),
  avi: VIDEO_TO_MP4('an AVI video'),
  wmv: VIDEO_TO_MP4('a Windows Media video'),
  flv: VIDEO_TO_MP4('a Flash video'),
  mts: VIDEO_TO_MP4('an AVCHD video'),
  m2ts: VIDEO_TO_MP4('an AVCHD video'),
  tif: IMAGE_TO_JPEG('a TIFF image'),
  tiff: IMAGE_TO_JPEG('a TIFF image'),
  bmp: IMAGE_TO_JPEG('a BMP image'),
  dng: IMAGE_TO_JPEG('a raw (DNG) photo'),
  cr2: IMAGE_TO_JPEG('a raw (CR2) photo'),
  cr3: IMAGE_TO_JPEG('a raw (CR3) photo'),
  nef: IMAGE_TO_JPEG('a raw (NEF) photo'),
  arw: IMAGE_TO_JPEG('a raw (ARW) photo'),
};

/** The unsupported media format a file name claims, if any. */
export function unsupportedFormatOfFileName(fileName: string): UnsupportedFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  return UNSUPPORTED_FORMATS[fileName.slice(dot + 1).toLowerCase()];
}

/** Thumbnails: images only, exempt from the type's content-type rule and from the quota. */
export const THUMBNAIL_RULE = { formats: ['jpeg', 'png', 'webp'], maxBytes: 20 * MB } as const satisfies {
  formats: readonly Format[];
  maxBytes: number;
};

export const LIST_LIMITS = { defaultLimit: 50, maxLimit: 100, defaultOffset: 0 } as const;

/** Presigned PUT URLs and the signed GET URLs of fileUrl/thumbnailUrl live this long. */
export const URL_LIFETIME_SECONDS = 60 * 60;

/** Lengths the server accepts for editable metadata; the CLI checks them before sending. */
export const METADATA_LIMITS = {
  titleMaxChars: 300,
  descriptionMaxChars: 5000,
  hashtagsMax: 100,
  hashtagMaxChars: 100,
  platformSettingsMaxBytes: 64 * 1024,
  fileNameMaxBytes: 255,
} as const;

/** Default storage quota of a brand on the embedded server (the API does not fix one). */
export const DEFAULT_QUOTA_BYTES = 50 * GB;

/** The format whose MIME type (or alias) is `mime`, case-insensitive, parameters ignored. */
export function formatOfMime(mime: string): Format | undefined {
  const bare = mime.split(';')[0]!.trim().toLowerCase();
  return FORMAT_NAMES.find((f) => FORMATS[f].mime === bare || (FORMATS[f].aliases as readonly string[]).includes(bare));
}

/** The format a file name's extension names, case-insensitive. */
export function formatOfFileName(fileName: string): Format | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = fileName.slice(dot + 1).toLowerCase();
  return FORMAT_NAMES.find((f) => (FORMATS[f].extensions as readonly string[]).includes(ext));
}

/** Type detection when presign omits `type` (docs/api.md, presign): image → carousel; video → shortform up to 300 MB, else longform. */
export function detectType(format: Format, fileSize: number): ContentType {
  if (FORMATS[format].media === 'image') return 'carousel';
  return fileSize <= TYPE_RULES.shortform.maxBytes ? 'shortform' : 'longform';
}

/** A rule broken by a file or a request: enough to build a 4xx error or a CLI line with a hint. */
export interface Violation {
  /** The API error code this violation answers with (docs/api.md, Errors). */
  code: 'unsupported_media_type' | 'file_too_large' | 'invalid_duration' | 'invalid_request';
  rule: 'format' | 'size' | 'empty' | 'duration';
  message: string;
  actual: string | number;
  limit?: string | number;
}

/** "314,572,800 bytes" is exact but unreadable; "300 MB" is what people compare against. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}

function allowedMimes(formats: readonly Format[]): string {
  return formats.map((f) => FORMATS[f].mime).join(', ');
}

/** Checks a file's MIME type and size against a type's rule (what presign enforces). */
export function checkFile(type: ContentType, contentType: string, fileSize: number): Violation[] {
  const rule: TypeRule = TYPE_RULES[type];
  const problems: Violation[] = [];
  const format = formatOfMime(contentType);
  if (!format || !rule.formats.includes(format)) {
    problems.push({
      code: 'unsupported_media_type',
      rule: 'format',
      message: `${contentType} is not allowed for ${type}; allowed: ${allowedMimes(rule.formats)}`,
      actual: contentType,
      limit: allowedMimes(rule.formats),
    });
  }
  problems.push(...checkSize(type, fileSize, rule.maxBytes));
  return problems;
}

/** Formats by their exact MIME type, as inspection sets it: found without making a string. */
const FORMAT_OF_EXACT_MIME = new Map<string, Format>(FORMAT_NAMES.map((f) => [FORMATS[f].mime, f]));

/**
 * True when checkFile finds nothing wrong, found without allocating: a bulk upload's plan asks
 * it of 100,000 files and builds checkFile's messages only for those that break a rule.
 */
export function fitsFile(type: ContentType, contentType: string, fileSize: number): boolean {
  const rule: TypeRule = TYPE_RULES[type];
  if (fileSize === 0 || fileSize > rule.maxBytes) return false;
  const format = FORMAT_OF_EXACT_MIME.get(contentType) ?? formatOfMime(contentType);
  return format !== undefined && rule.formats.includes(format);
}

/** Checks a thumbnail upload's MIME type and size. */
export function checkThumbnail(contentType: string, fileSize: number): Violation[] {
  const problems: Violation[] = [];
  const format = formatOfMime(contentType);
  if (!format || !(THUMBNAIL_RULE.formats as readonly Format[]).includes(format)) {
    problems.push({
      code: 'unsupported_media_type',
      rule: 'format',
      message: `${contentType} is not allowed for a thumbnail; allowed: ${allowedMimes(THUMBNAIL_RULE.formats)}`,
      actual: contentType,
      limit: allowedMimes(THUMBNAIL_RULE.formats),
    });
  }
  problems.push(...checkSize('thumbnail', fileSize, THUMBNAIL_RULE.maxBytes));
  return problems;
}

/** What a limit applies to, as a size message names it: "carousel images take at most 20 MiB". */
const SIZE_SUBJECTS: Record<ContentType | 'thumbnail', string> = {
  shortform: 'shortform videos',
  longform: 'longform videos',
  carousel: 'carousel images',
  thumbnail: 'thumbnails',
};

function checkSize(what: ContentType | 'thumbnail', fileSize: number, maxBytes: number): Violation[] {
  if (fileSize === 0) {
    return [{ code: 'invalid_request', rule: 'empty', message: 'the file is empty (0 bytes)', actual: 0 }];
  }
  if (fileSize > maxBytes) {
    return [
      {
        code: 'file_too_large',
        rule: 'size',
        message: `${formatOverLimit(fileSize, maxBytes)}; ${SIZE_SUBJECTS[what]} take at most ${formatBytesExact(maxBytes)}`,
        actual: fileSize,
        limit: maxBytes,
      },
    ];
  }
  return [];
}

const IEC_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/**
 * A size in exact binary units when it is a whole number of them ("20 MiB", "1 GiB", "1 byte",
 * "1,000 bytes"), else to one decimal ("20.5 MiB"). For limits and what a file exceeds them by.
 */
export function formatBytesExact(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString('en-US')} byte${bytes === 1 ? '' : 's'}`;
  let unit = -1;
  let value = bytes;
  while (value >= 1024 && unit < IEC_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${text} ${IEC_UNITS[unit]!}`;
}

/**
 * How far a size is over a limit, in words that never read as equal to it: "20 MiB + 1 byte"
 * for a file just over, "25.3 MiB (5.3 MiB over)" when the difference shows by itself.
 */
export function formatOverLimit(size: number, limit: number): string {
  const over = size - limit;
  // Within 1 % (or 1 MiB) of the limit the size alone would round to the limit itself.
  if (over < MB || over * 100 < limit) return `${formatBytesExact(limit)} + ${formatBytesExact(over)}`;
  return `${formatBytesExact(size)} (${formatBytesExact(over)} over)`;
}

/** Checks a video's duration against its type's range; types without a range accept any positive duration. */
export function checkDuration(type: ContentType, durationSeconds: number): Violation[] {
  const rule: TypeRule = TYPE_RULES[type];
  if (!(durationSeconds > 0) || !Number.isFinite(durationSeconds)) {
    return [
      {
        code: 'invalid_duration',
        rule: 'duration',
        message: `duration ${durationSeconds} s is not a positive number`,
        actual: durationSeconds,
      },
    ];
  }
  if (!rule.duration) return [];
  const { min, max } = rule.duration;
  if (durationSeconds < min || durationSeconds > max) {
    const shown = Number(durationSeconds.toFixed(2));
    const side = durationSeconds < min ? `shorter than ${type}'s ${min} s` : `longer than ${type}'s ${max} s`;
    return [
      {
        code: 'invalid_duration',
        rule: 'duration',
        message: `${shown} s is ${side}`,
        actual: durationSeconds,
        limit: `${min}–${max} s`,
      },
    ];
  }
  return [];
}

/**
 * Hashtags as people type them ("#a, b ,#a") become a clean list: trimmed, leading # removed,
 * empty ones dropped, duplicates (case-insensitive) removed, first spelling kept.
 */
export function normalizeHashtags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().replace(/^#+/, '').trim();
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
  }
  return out;
}
