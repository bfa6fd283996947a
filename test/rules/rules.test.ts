import { describe, expect, it } from 'vitest';
import {
  GB,
  MB,
  TYPE_RULES,
  checkDuration,
  checkFile,
  checkThumbnail,
  detectType,
  formatBytes,
  formatOfFileName,
  formatOfMime,
  normalizeHashtags,
} from '../../src/rules/rules.js';

describe('rules table', () => {
  it('states the spec limits in binary units', () => {
    expect(TYPE_RULES.shortform.maxBytes).toBe(314_572_800);
    expect(TYPE_RULES.longform.maxBytes).toBe(1_073_741_824);
    expect(TYPE_RULES.carousel.maxBytes).toBe(20 * MB);
    expect(TYPE_RULES.shortform.duration).toEqual({ min: 3, max: 90 });
    expect([TYPE_RULES.carousel.minFiles, TYPE_RULES.carousel.maxFiles]).toEqual([2, 10]);
  });

  it.each([
    ['video/mp4', 'mp4'],
    ['VIDEO/QuickTime', 'mov'],
    ['image/jpeg; charset=binary', 'jpeg'],
    ['image/jpg', 'jpeg'],
    ['image/gif', undefined],
  ])('formatOfMime(%s) = %s', (mime, format) => expect(formatOfMime(mime)).toBe(format));

  it.each([
    ['clip.MP4', 'mp4'],
    ['a.b.mov', 'mov'],
    ['photo.jpeg', 'jpeg'],
    ['noext', undefined],
    ['x.gif', undefined],
  ])('formatOfFileName(%s) = %s', (name, format) => expect(formatOfFileName(name)).toBe(format));

  it('detects the type from the format and size', () => {
    expect(detectType('png', 10)).toBe('carousel');
    expect(detectType('mp4', 300 * MB)).toBe('shortform');
    expect(detectType('mp4', 300 * MB + 1)).toBe('longform');
  });

  it('checks format and size with the exact limit inclusive', () => {
    expect(checkFile('shortform', 'video/mp4', 300 * MB)).toEqual([]);
    expect(checkFile('shortform', 'video/mp4', 300 * MB + 1).map((v) => v.code)).toEqual(['file_too_large']);
    expect(checkFile('longform', 'video/mp4', GB + 1).map((v) => v.code)).toEqual(['file_too_large']);
    expect(checkFile('carousel', 'video/mp4', 10).map((v) => v.code)).toEqual(['unsupported_media_type']);
    expect(checkFile('carousel', 'image/png', 0).map((v) => v.rule)).toEqual(['empty']);
    expect(checkThumbnail('image/webp', 20 * MB)).toEqual([]);
    expect(checkThumbnail('video/mp4', 20 * MB + 1).map((v) => v.code)).toEqual([
      'unsupported_media_type',
      'file_too_large',
    ]);
  });

  it.each([
    ['carousel', 20 * MB + 1, '20 MiB + 1 byte; carousel images take at most 20 MiB'],
    ['carousel', 20 * MB + 1000, '20 MiB + 1,000 bytes; carousel images take at most 20 MiB'],
    ['carousel', 20 * MB + 3 * 1024, '20 MiB + 3 KiB; carousel images take at most 20 MiB'],
    ['carousel', 25.5 * MB, '25.5 MiB (5.5 MiB over); carousel images take at most 20 MiB'],
    ['shortform', 300 * MB + 1.5 * MB, '300 MiB + 1.5 MiB; shortform videos take at most 300 MiB'],
    ['longform', 2 * GB, '2 GiB (1 GiB over); longform videos take at most 1 GiB'],
  ] as const)('says by how much a %s file of %d bytes is over the limit', (type, size, message) => {
    const format = type === 'carousel' ? 'image/png' : 'video/mp4';
    expect(checkFile(type, format, size).map((v) => v.message)).toEqual([message]);
  });

  it('names thumbnails in their size message', () => {
    expect(checkThumbnail('image/png', 20 * MB + 2).map((v) => v.message)).toEqual([
      '20 MiB + 2 bytes; thumbnails take at most 20 MiB',
    ]);
  });

  it('checks shortform duration 3–90 s inclusive and any positive longform duration', () => {
    expect(checkDuration('shortform', 3)).toEqual([]);
    expect(checkDuration('shortform', 90)).toEqual([]);
    expect(checkDuration('shortform', 2.99)[0]?.message).toBe("2.99 s is shorter than shortform's 3 s");
    expect(checkDuration('shortform', 94.2)[0]?.message).toBe("94.2 s is longer than shortform's 90 s");
    expect(checkDuration('longform', 7200)).toEqual([]);
    expect(checkDuration('longform', 0).map((v) => v.code)).toEqual(['invalid_duration']);
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(300 * MB)).toBe('300 MB');
    expect(formatBytes(1.5 * MB)).toBe('1.5 MB');
    expect(formatBytes(GB)).toBe('1 GB');
  });

  it('normalises hashtags', () => {
    expect(normalizeHashtags([' #a', 'b ', '#A', '', '##c', 'b'])).toEqual(['a', 'b', 'c']);
  });
});
