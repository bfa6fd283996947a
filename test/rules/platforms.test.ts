// The platform readiness table and its checker (src/rules/platforms.ts): for every row, a file
// made to fit it passes, and each limit the row sets, broken alone, gives exactly that rule with
// a message saying what to do; plus the messages people read for the common cases.
import { describe, expect, it } from 'vitest';
import type { MediaFacts } from '../../src/rules/media-facts.js';
import {
  PLATFORM_IDS,
  PLATFORM_RULES,
  type PlatformRule,
  captionOf,
  checkFor,
  checkForPlatform,
  checkImageCount,
  hashtagsOf,
  targetsOf,
} from '../../src/rules/platforms.js';

/** A file that fits `row`: its preferred shape (or the middle of its range) and every limit met. */
function fitting(row: PlatformRule): { facts: MediaFacts; fileSize: number } {
  const ratio = row.preferredAspect
    ? row.preferredAspect.width / row.preferredAspect.height
    : row.aspect
      ? (row.aspect.min + row.aspect.max) / 2
      : 1;
  // Long side 1080 (or the row's maximum), short side from the ratio, never under the minimum.
  const long = Math.min(1080, row.maxLongSide ?? 1080);
  const [w, h] = ratio >= 1 ? [long, Math.round(long / ratio)] : [Math.round(long * ratio), long];
  const base: MediaFacts = {
    version: 1,
    kind: row.media,
    width: w,
    height: h,
    displayWidth: w,
    displayHeight: h,
    displayAspectRatio: `${w}:${h}`,
    orientation: w > h ? 'landscape' : w < h ? 'portrait' : 'square',
  };
  const facts: MediaFacts =
    row.media === 'video'
      ? {
          ...base,
          rotation: 0,
          durationSeconds: Math.max(row.duration?.min ?? 1, Math.min(30, row.duration?.max ?? 30)),
          frameRate: 30,
          variableFrameRate: false,
          videoCodec: 'h264',
          videoCodecTag: 'avc1',
          videoProfile: 'High',
          bitDepth: 8,
          audio: { codec: 'aac', profile: 'LC', channels: 2, sampleRate: 48000 },
          bitrate: 5_000_000,
          fastStart: true,
        }
      : { ...base, exifOrientation: 1, imageFormat: row.imageFormats?.[0] ?? 'jpeg' };
  return { facts, fileSize: Math.min(1_000_000, row.maxFileSize ?? 1_000_000) };
}

/** Each limit of the row broken alone: [the rule it must give, the input that breaks it]. */
function breakers(row: PlatformRule) {
  const ok = fitting(row);
  const out: Array<[string, Parameters<typeof checkForPlatform>[0]]> = [];
  const withFacts = (f: Partial<MediaFacts>) => ({ ...ok, facts: { ...ok.facts, ...f } });
  if (row.aspect) {
    const tooWide = row.aspect.max * 1.2;
    // Its longer side 1000 px, within every row's resolution limits.
    out.push(['aspect', withFacts({ displayWidth: 1000, displayHeight: Math.round(1000 / tooWide) })]);
  }
  if (row.minShortSide !== undefined) {
    const s = row.minShortSide - 1;
    const [w, h] =
      ok.facts.displayWidth >= ok.facts.displayHeight
        ? [Math.round((s * ok.facts.displayWidth) / ok.facts.displayHeight), s]
        : [s, Math.round((s * ok.facts.displayHeight) / ok.facts.displayWidth)];
    out.push(['resolution', withFacts({ displayWidth: w, displayHeight: h })]);
  }
  if (row.maxLongSide !== undefined)
    out.push([
      'resolution',
      withFacts({
        displayWidth: Math.round(
          (ok.facts.displayWidth * (row.maxLongSide + 100)) / Math.max(ok.facts.displayWidth, ok.facts.displayHeight),
        ),
        displayHeight: Math.round(
          (ok.facts.displayHeight * (row.maxLongSide + 100)) / Math.max(ok.facts.displayWidth, ok.facts.displayHeight),
        ),
      }),
    ]);
  if (row.maxFileSize !== undefined) out.push(['size', { ...ok, fileSize: row.maxFileSize + 1 }]);
  if (row.duration?.min !== undefined) out.push(['duration', withFacts({ durationSeconds: row.duration.min - 0.4 })]);
  if (row.duration?.max !== undefined) out.push(['duration', withFacts({ durationSeconds: row.duration.max + 1 })]);
  if (row.videoCodecs) out.push(['codec', withFacts({ videoCodec: 'prores-raw' })]);
  if (row.maxBitDepth !== undefined) out.push(['bit-depth', withFacts({ bitDepth: row.maxBitDepth + 2 })]);
  if (row.audioCodecs) out.push(['audio', withFacts({ audio: { codec: 'opus', channels: 2, sampleRate: 48000 } })]);
  if (row.frameRate?.min !== undefined) out.push(['frame-rate', withFacts({ frameRate: row.frameRate.min - 3 })]);
  if (row.frameRate?.max !== undefined) out.push(['frame-rate', withFacts({ frameRate: row.frameRate.max + 30 })]);
  if (row.imageFormats) out.push(['format', withFacts({ imageFormat: 'tiff' })]);
  if (row.captionMax !== undefined) out.push(['caption', { ...ok, description: 'x'.repeat(row.captionMax + 1) }]);
  if (row.hashtagsMax !== undefined)
    out.push(['hashtags', { ...ok, hashtags: Array.from({ length: row.hashtagsMax + 1 }, (_, i) => `tag${i}`) }]);
  return out;
}

describe.each(PLATFORM_RULES.map((r) => [r.name, r] as const))('%s', (_name, row) => {
  it('names its source and the date it was checked', () => {
    expect(row.source).toMatch(/^https:\/\//);
    expect(row.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('passes a file made to fit it', () => {
    expect(checkForPlatform(fitting(row), row)).toEqual([]);
  });

  it.each(breakers(row))('each limit broken alone gives its rule: %s', (rule, input) => {
    const found = checkForPlatform(input, row);
    expect(found.map((v) => v.rule)).toEqual([rule]);
    expect(found[0]!.message).toMatch(/: \S/);
  });

  it('refuses the other kind of media', () => {
    const other = {
      ...fitting(row),
      facts: { ...fitting(row).facts, kind: row.media === 'video' ? 'image' : 'video' } as MediaFacts,
    };
    expect(checkForPlatform(other, row).map((v) => v.rule)).toEqual(['media']);
  });
});

describe('messages people read', () => {
  const reels = PLATFORM_RULES.find((r) => r.platform === 'reels')!;
  const clip = (w: number, h: number, extra: Partial<MediaFacts> = {}) => ({
    ...fitting(reels),
    facts: { ...fitting(reels).facts, displayWidth: w, displayHeight: h, ...extra },
  });

  it('a 16:9 clip for Reels: crop or add bars', () => {
    expect(checkForPlatform(clip(1920, 1080), reels)).toEqual([
      expect.objectContaining({
        rule: 'aspect',
        value: '16:9',
        severity: 'error',
        message: '16:9, Reels wants 9:16: crop the sides or add bars above and below',
      }),
    ]);
  });

  it('a 4:5 clip is taken by Reels with bars: a warning, not a failure', () => {
    expect(checkForPlatform(clip(1080, 1350), reels)).toEqual([
      expect.objectContaining({ rule: 'aspect', severity: 'warning', value: '4:5' }),
    ]);
  });

  it('10-bit HEVC (an iPhone HDR clip) is refused by Reels, said as what to export', () => {
    const hdr = clip(1080, 1920, { videoCodec: 'hevc', bitDepth: 10 });
    expect(checkForPlatform(hdr, reels)[0]).toMatchObject({
      rule: 'bit-depth',
      message: '10-bit hevc (HDR), Reels takes 8-bit: export as 8-bit SDR H.264',
    });
  });

  it('a video for an image-only row, and an image for Shorts', () => {
    const image = { ...fitting(reels), facts: { ...fitting(reels).facts, kind: 'image' as const } };
    expect(checkFor(image, 'shorts')[0]).toMatchObject({
      rule: 'media',
      message: expect.stringContaining('takes videos only'),
    });
  });

  it('carousels: more images than the platform takes in a post', () => {
    expect(checkImageCount(5, 'x')).toMatchObject({ rule: 'images', value: '5 images', limit: 'at most 4' });
    expect(checkImageCount(4, 'x')).toBeUndefined();
    expect(checkImageCount(50, 'tiktok')).toBeUndefined();
  });

  it('hashtags are counted once, from the list and the description', () => {
    expect(hashtagsOf('Launch day #Summer #sale', ['summer', '#new'])).toEqual(['summer', 'new', 'sale']);
    expect(captionOf('Launch day #summer', ['summer', 'new'])).toBe('Launch day #summer\n\n#new');
    expect(captionOf('', ['a'])).toBe('#a');
  });

  it("an item's targets: a list, or the words edit --platform stores as one string; unknown names dropped", () => {
    expect(targetsOf({ contentlib: { targets: ['reels', 'nope', 'x'] } })).toEqual(['reels', 'x']);
    expect(targetsOf({ contentlib: { targets: 'reels, shorts' } })).toEqual(['reels', 'shorts']);
    expect(targetsOf({ youtube: {} })).toEqual([]);
    expect(targetsOf(null)).toEqual([]);
  });

  it('every platform id has at least one row', () => {
    for (const id of PLATFORM_IDS) expect(PLATFORM_RULES.some((r) => r.platform === id)).toBe(true);
  });
});
