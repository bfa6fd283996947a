// Platform readiness (issue 39): what each platform's format takes, as data — one row per
// platform and format, each with the page it was taken from and the date — and one pure checker
// (facts + metadata + row → violations). `contentlib check`, `upload --for` and browse's badges
// all judge with it, so they never disagree.
//
// The limits were compiled from the platforms' published help and API pages (the `source` of
// each row) as known on the row's `checked` date, without fetching them again; platforms change
// them often (Instagram's hashtag limit, YouTube Shorts' length), so re-check a row against its
// source before relying on it, then bump its `checked` date and PLATFORM_RULES_VERSION.
// docs/cli.md ("Platform readiness") shows the table.
import { type MediaFacts, friendlyRatio } from './media-facts.js';
import { MB, GB, formatBytes } from './rules.js';

/** The table's version: the date of its latest change. */
export const PLATFORM_RULES_VERSION = '2026-11-26';

/** The platformSettings key under which an item keeps its targets: `platformSettings.contentlib.targets`. */
export const TARGETS_KEY = 'contentlib';

/** An item's target platforms from its platformSettings (`contentlib.targets`), the unknown names dropped. */
export function targetsOf(platformSettings: Record<string, unknown> | null | undefined): PlatformId[] {
  const own = platformSettings?.[TARGETS_KEY];
  const targets = own && typeof own === 'object' ? (own as { targets?: unknown }).targets : undefined;
  // A list, or the words `edit --platform contentlib.targets=reels,shorts` stores as one string.
  const words = typeof targets === 'string' ? targets.split(',').map((t) => t.trim()) : targets;
  return Array.isArray(words) ? words.filter((t): t is PlatformId => typeof t === 'string' && isPlatformId(t)) : [];
}

/** The names `--for` takes, and `platformSettings.contentlib.targets` holds. */
export const PLATFORM_IDS = ['shorts', 'reels', 'instagram-feed', 'tiktok', 'facebook-reels', 'x', 'linkedin'] as const;
export type PlatformId = (typeof PLATFORM_IDS)[number];

export interface PlatformRule {
  platform: PlatformId;
  /** How people call it: "Instagram Reels". */
  name: string;
  /** The short word in messages: "Reels wants 9:16". */
  short: string;
  media: 'video' | 'image';
  /** Shapes it takes (width ÷ height as shown), inclusive; outside is refused or cropped. */
  aspect?: { min: number; max: number };
  /** The shape it shows full screen: anything else gets bars or a crop (a warning, not a failure). */
  preferredAspect?: { width: number; height: number };
  /** The picture's shorter side at least, and its longer side at most, in pixels. */
  minShortSide?: number;
  maxLongSide?: number;
  duration?: { min?: number; max?: number };
  maxFileSize?: number;
  videoCodecs?: readonly string[];
  maxBitDepth?: number;
  audioCodecs?: readonly string[];
  frameRate?: { min?: number; max?: number };
  imageFormats?: readonly string[];
  /** Characters of the caption (the description, with its hashtags). */
  captionMax?: number;
  hashtagsMax?: number;
  /** Images in one carousel post. */
  maxImages?: number;
  source: string;
  checked: string;
}

const CHECKED = '2026-11-26';

/** Where a row's limits were read (its `source`), and when (its `checked` date). */
const readFrom = (source: string) => ({ source, checked: CHECKED });

/** A vertical video full screen: what Shorts, Reels, TikTok and Facebook Reels show. */
const PORTRAIT = { width: 9, height: 16 };

/** What Instagram takes of any post, video or image (its publishing API's one page). */
const INSTAGRAM = {
  captionMax: 2200,
  hashtagsMax: 5,
  ...readFrom('https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media'),
};

/** What Instagram takes of any video, a Reel or the feed's. */
const INSTAGRAM_VIDEO = {
  ...INSTAGRAM,
  media: 'video',
  maxLongSide: 1920,
  maxFileSize: 300 * MB,
  videoCodecs: ['h264', 'hevc'],
  maxBitDepth: 8,
  audioCodecs: ['aac'],
  frameRate: { min: 23, max: 60 },
} as const;

/** The Instagram feed's shapes, for a video or an image. */
const INSTAGRAM_FEED = {
  platform: 'instagram-feed',
  short: 'the Instagram feed',
  aspect: { min: 0.8, max: 1.91 },
  preferredAspect: { width: 4, height: 5 },
  minShortSide: 320,
} as const;

/** What X takes of any post: one page for its video and its images. */
const X = {
  platform: 'x',
  short: 'X',
  captionMax: 280,
  ...readFrom('https://developer.x.com/en/docs/x-api/v1/media/upload-media/uploading-media/media-best-practices'),
} as const;

/** What LinkedIn takes of any post (its video and its images each have their own page). */
const LINKEDIN = { platform: 'linkedin', short: 'LinkedIn', captionMax: 3000 } as const;

export const PLATFORM_RULES: readonly PlatformRule[] = [
  {
    platform: 'shorts',
    name: 'YouTube Shorts',
    short: 'Shorts',
    media: 'video',
    // Square or vertical; a wider video is a regular video, not a Short.
    aspect: { min: 0.3, max: 1 },
    preferredAspect: PORTRAIT,
    duration: { max: 180 },
    maxFileSize: 256 * GB,
    videoCodecs: ['h264', 'hevc', 'vp9', 'av1', 'mpeg4', 'prores'],
    frameRate: { min: 24, max: 60 },
    captionMax: 5000,
    // YouTube ignores every hashtag of a video with more than 60.
    hashtagsMax: 60,
    ...readFrom('https://support.google.com/youtube/answer/10059070'),
  },
  {
    ...INSTAGRAM_VIDEO,
    platform: 'reels',
    name: 'Instagram Reels',
    short: 'Reels',
    // Reels play 9:16; Instagram takes 4:5 with bars, and crops anything wider.
    aspect: { min: 0.5, max: 0.8 },
    preferredAspect: PORTRAIT,
    minShortSide: 540,
    duration: { min: 3, max: 15 * 60 },
  },
  { ...INSTAGRAM_VIDEO, ...INSTAGRAM_FEED, name: 'Instagram feed video', duration: { min: 3, max: 60 * 60 } },
  {
    ...INSTAGRAM,
    ...INSTAGRAM_FEED,
    name: 'Instagram feed image',
    media: 'image',
    maxLongSide: 1440,
    maxFileSize: 8 * MB,
    // The publishing API takes JPEG only.
    imageFormats: ['jpeg'],
    maxImages: 20,
  },
  {
    platform: 'tiktok',
    name: 'TikTok',
    short: 'TikTok',
    media: 'video',
    aspect: { min: 0.5, max: 1.91 },
    preferredAspect: PORTRAIT,
    minShortSide: 360,
    maxLongSide: 4096,
    duration: { min: 3, max: 10 * 60 },
    maxFileSize: 4 * GB,
    videoCodecs: ['h264', 'hevc', 'vp8', 'vp9'],
    frameRate: { min: 23, max: 60 },
    captionMax: 2200,
    ...readFrom('https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide'),
  },
  {
    platform: 'facebook-reels',
    name: 'Facebook Reels',
    short: 'Facebook Reels',
    media: 'video',
    aspect: { min: 0.5, max: 0.8 },
    preferredAspect: PORTRAIT,
    minShortSide: 540,
    duration: { min: 3, max: 90 },
    maxFileSize: 1 * GB,
    videoCodecs: ['h264', 'hevc', 'vp9', 'av1'],
    frameRate: { min: 24, max: 60 },
    captionMax: 2200,
    ...readFrom('https://developers.facebook.com/docs/video-api/guides/reels-publishing'),
  },
  {
    ...X,
    name: 'X video',
    media: 'video',
    aspect: { min: 1 / 2.39, max: 2.39 },
    minShortSide: 32,
    maxLongSide: 1920,
    duration: { min: 0.5, max: 140 },
    maxFileSize: 512 * MB,
    videoCodecs: ['h264'],
    audioCodecs: ['aac'],
    frameRate: { max: 60 },
  },
  {
    ...X,
    name: 'X image',
    media: 'image',
    maxFileSize: 5 * MB,
    imageFormats: ['jpeg', 'png', 'webp', 'gif'],
    maxImages: 4,
  },
  {
    ...LINKEDIN,
    name: 'LinkedIn video',
    media: 'video',
    aspect: { min: 1 / 2.4, max: 2.4 },
    minShortSide: 144,
    maxLongSide: 4096,
    duration: { min: 3, max: 30 * 60 },
    maxFileSize: 500 * MB,
    videoCodecs: ['h264'],
    audioCodecs: ['aac'],
    frameRate: { min: 10, max: 60 },
    ...readFrom('https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api'),
  },
  {
    ...LINKEDIN,
    name: 'LinkedIn image',
    media: 'image',
    maxFileSize: 5 * MB,
    imageFormats: ['jpeg', 'png', 'gif'],
    maxImages: 20,
    ...readFrom('https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api'),
  },
];

/** The row for a platform and a kind of media, or undefined when the platform takes none of it. */
export function ruleFor(platform: PlatformId, media: 'video' | 'image'): PlatformRule | undefined {
  return PLATFORM_RULES.find((r) => r.platform === platform && r.media === media);
}

export function isPlatformId(name: string): name is PlatformId {
  return (PLATFORM_IDS as readonly string[]).includes(name);
}

/** What is judged besides the bytes: the file's size and the post's text. */
export interface CheckInput {
  facts: MediaFacts;
  fileSize: number;
  description?: string;
  hashtags?: readonly string[];
}

export interface Violation {
  /** Which rule: 'aspect', 'resolution', 'duration', 'size', 'codec', 'bit-depth', 'audio', 'frame-rate', 'format', 'caption', 'hashtags', 'media'. */
  rule: string;
  /** What the file or post has ("16:9", "12.5 MB", "H.264 High 10-bit"). */
  value: string;
  /** The row's limit in words ("9:16", "at most 300 MB"). */
  limit: string;
  /** One sentence: the value, what the platform wants, what to do. */
  message: string;
  /** 'error': the platform refuses or mangles it; 'warning': it takes it, shown with bars or cropped. */
  severity: 'error' | 'warning';
}

const num = (n: number) => String(Number(n.toFixed(2)));
const ratioText = (r: number) => {
  for (const [w, h] of [
    [9, 16],
    [4, 5],
    [1, 1],
    [16, 9],
    [1.91, 1],
    [2.39, 1],
    [1, 2.39],
    [2.4, 1],
    [1, 2.4],
  ] as const)
    if (Math.abs(r / (w / h) - 1) < 0.01) return `${w}:${h}`;
  return `${num(r)}:1`;
};

/** Hashtags of a post: the item's list and any `#word` in the description, each counted once. */
export function hashtagsOf(description: string | undefined, hashtags: readonly string[] = []): string[] {
  const found = [...(description ?? '').matchAll(/#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]!);
  return [...new Set([...hashtags.map((t) => t.replace(/^#/, '')), ...found].map((t) => t.toLowerCase()))];
}

/** The caption as posted: the description, then the item's hashtags not already in it. */
export function captionOf(description: string | undefined, hashtags: readonly string[] = []): string {
  const text = description ?? '';
  const inText = new Set(hashtagsOf(text));
  const extra = hashtags.map((t) => t.replace(/^#/, '')).filter((t) => !inText.has(t.toLowerCase()));
  return [text, extra.map((t) => `#${t}`).join(' ')].filter(Boolean).join(text && extra.length ? '\n\n' : '');
}

/**
 * Everything that keeps `input` from `row`, errors first; empty when it is ready. Pure: the
 * same facts, metadata and row always give the same answer.
 */
export function checkForPlatform(input: CheckInput, row: PlatformRule): Violation[] {
  const out: Violation[] = [];
  const { facts } = input;
  const add = (
    rule: string,
    value: string,
    limit: string,
    message: string,
    severity: Violation['severity'] = 'error',
  ) => out.push({ rule, value, limit, message, severity });
  if (facts.kind !== row.media) {
    add(
      'media',
      facts.kind,
      row.media,
      `a ${facts.kind}, but ${row.name} takes ${row.media}s: choose another platform`,
    );
    return out;
  }
  const w = facts.displayWidth;
  const h = facts.displayHeight;
  const ratio = h > 0 ? w / h : 0;
  const shape = friendlyRatio(w, h);
  if (row.aspect && (ratio < row.aspect.min * 0.99 || ratio > row.aspect.max * 1.01)) {
    const wanted = row.preferredAspect
      ? `${row.preferredAspect.width}:${row.preferredAspect.height}`
      : `${ratioText(row.aspect.min)} to ${ratioText(row.aspect.max)}`;
    add(
      'aspect',
      shape,
      `${ratioText(row.aspect.min)} to ${ratioText(row.aspect.max)}`,
      `${shape}, ${row.short} wants ${wanted}: ${ratio > row.aspect.max ? 'crop the sides or add bars above and below' : 'crop the top and bottom or add bars at the sides'}`,
    );
  } else if (row.preferredAspect) {
    const preferred = row.preferredAspect.width / row.preferredAspect.height;
    if (Math.abs(ratio / preferred - 1) > 0.02) {
      const wanted = `${row.preferredAspect.width}:${row.preferredAspect.height}`;
      add(
        'aspect',
        shape,
        wanted,
        `${shape}, ${row.short} shows ${wanted} full screen: it gets bars or a crop — crop to ${wanted} to fill it`,
        'warning',
      );
    }
  }
  const short = Math.min(w, h);
  const long = Math.max(w, h);
  if (row.minShortSide !== undefined && short < row.minShortSide)
    add(
      'resolution',
      `${w}×${h}`,
      `shorter side at least ${row.minShortSide} px`,
      `${w}×${h}, ${row.short} wants the shorter side at least ${row.minShortSide} px: export at a higher resolution`,
    );
  if (row.maxLongSide !== undefined && long > row.maxLongSide)
    add(
      'resolution',
      `${w}×${h}`,
      `longer side at most ${row.maxLongSide} px`,
      `${w}×${h}, ${row.short} takes at most ${row.maxLongSide} px on the longer side: it will be scaled down — export at ${row.maxLongSide} px to choose how`,
      'warning',
    );
  if (row.maxFileSize !== undefined && input.fileSize > row.maxFileSize)
    add(
      'size',
      formatBytes(input.fileSize),
      `at most ${formatBytes(row.maxFileSize)}`,
      `${formatBytes(input.fileSize)}, ${row.short} takes at most ${formatBytes(row.maxFileSize)}: export at a lower bitrate${row.media === 'video' ? ' or trim it' : ' or quality'}`,
    );
  if (row.media === 'video') checkVideo(facts, row, add);
  else if (row.imageFormats && facts.imageFormat && !row.imageFormats.includes(facts.imageFormat))
    add(
      'format',
      facts.imageFormat.toUpperCase(),
      row.imageFormats.map((f) => f.toUpperCase()).join(', '),
      `${facts.imageFormat.toUpperCase()}, ${row.short} takes ${row.imageFormats.map((f) => f.toUpperCase()).join(' or ')}: convert it`,
    );
  const caption = captionOf(input.description, input.hashtags);
  if (row.captionMax !== undefined && [...caption].length > row.captionMax)
    add(
      'caption',
      `${[...caption].length} characters`,
      `at most ${row.captionMax}`,
      `the caption has ${[...caption].length} characters, ${row.short} takes at most ${row.captionMax}: shorten the description or drop hashtags`,
    );
  const tags = hashtagsOf(input.description, input.hashtags).length;
  if (row.hashtagsMax !== undefined && tags > row.hashtagsMax)
    add(
      'hashtags',
      `${tags} hashtags`,
      `at most ${row.hashtagsMax}`,
      `${tags} hashtags, ${row.short} takes at most ${row.hashtagsMax}: keep the ${row.hashtagsMax} that matter most`,
    );
  return out.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

function checkVideo(
  facts: MediaFacts,
  row: PlatformRule,
  add: (...v: [string, string, string, string, Violation['severity']?]) => void,
) {
  const seconds = facts.durationSeconds;
  if (seconds !== undefined && row.duration?.min !== undefined && seconds < row.duration.min)
    add(
      'duration',
      `${num(seconds)} s`,
      `at least ${row.duration.min} s`,
      `${num(seconds)} s, ${row.short} wants at least ${row.duration.min} s: use a longer clip`,
    );
  if (seconds !== undefined && row.duration?.max !== undefined && seconds > row.duration.max)
    add(
      'duration',
      `${num(seconds)} s`,
      `at most ${row.duration.max} s`,
      `${num(seconds)} s, ${row.short} takes at most ${row.duration.max} s: trim it`,
    );
  const codec = facts.videoCodec ?? 'unknown';
  if (row.videoCodecs && !row.videoCodecs.includes(codec))
    add(
      'codec',
      codec,
      row.videoCodecs.join(', '),
      `${codec} video, ${row.short} takes ${row.videoCodecs.join(' or ')}: re-encode it as H.264`,
    );
  else if (row.maxBitDepth !== undefined && facts.bitDepth !== undefined && facts.bitDepth > row.maxBitDepth)
    add(
      'bit-depth',
      `${facts.bitDepth}-bit`,
      `${row.maxBitDepth}-bit`,
      `${facts.bitDepth}-bit ${codec} (HDR), ${row.short} takes ${row.maxBitDepth}-bit: export as 8-bit SDR H.264`,
    );
  if (row.audioCodecs && facts.audio && !row.audioCodecs.includes(facts.audio.codec))
    add(
      'audio',
      facts.audio.codec,
      row.audioCodecs.join(', '),
      `${facts.audio.codec} audio, ${row.short} takes ${row.audioCodecs.join(' or ').toUpperCase()}: re-encode the audio as AAC`,
    );
  const fps = facts.frameRate;
  if (fps !== undefined && row.frameRate?.min !== undefined && fps < row.frameRate.min * 0.99)
    add(
      'frame-rate',
      `${num(fps)} fps`,
      `at least ${row.frameRate.min} fps`,
      `${num(fps)} fps, ${row.short} wants at least ${row.frameRate.min} fps: export at 30 fps`,
    );
  if (fps !== undefined && row.frameRate?.max !== undefined && fps > row.frameRate.max * 1.01)
    add(
      'frame-rate',
      `${num(fps)} fps`,
      `at most ${row.frameRate.max} fps`,
      `${num(fps)} fps, ${row.short} takes at most ${row.frameRate.max} fps: export at ${row.frameRate.max} fps or lower`,
    );
}

/** `input` against the platform's row for its kind of media; a platform without one refuses it. */
export function checkFor(input: CheckInput, platform: PlatformId): Violation[] {
  const row = ruleFor(platform, input.facts.kind);
  if (row) return checkForPlatform(input, row);
  const other = PLATFORM_RULES.find((r) => r.platform === platform)!;
  return [
    {
      rule: 'media',
      value: input.facts.kind,
      limit: `${other.media}s only`,
      message: `a ${input.facts.kind}, but ${other.name.replace(/ (video|image)$/, '')} takes ${other.media}s only: choose another platform`,
      severity: 'error',
    },
  ];
}

/** A carousel of `count` images against the platform's limit, when it has one. */
export function checkImageCount(count: number, platform: PlatformId): Violation | undefined {
  const row = ruleFor(platform, 'image');
  if (!row?.maxImages || count <= row.maxImages) return undefined;
  return {
    rule: 'images',
    value: `${count} images`,
    limit: `at most ${row.maxImages}`,
    message: `${count} images, ${row.short} takes at most ${row.maxImages} in one post: split the carousel`,
    severity: 'error',
  };
}
