// What the command definitions in program.ts need before any command module is loaded: flag
// parsers, and words of the help that come from the rules. Light on purpose: `--help` loads it.
import { THUMBNAIL_RULE, TYPE_RULES, formatBytes } from '../rules/rules.js';
import { PART_CONCURRENCY } from '../rules/parts.js';
import { PLATFORM_IDS, type PlatformId, isPlatformId } from '../rules/platforms.js';
import { didYouMean } from '../text/suggest.js';
import { UsageError } from './errors.js';

/** --for's words: which platforms a check or an upload is for ("reels,shorts"), each known. */
export function parsePlatforms(raw: string): PlatformId[] {
  const words = raw
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  if (words.length === 0)
    throw new UsageError('--for needs at least one platform.', `Platforms: ${PLATFORM_IDS.join(', ')}`);
  for (const w of words)
    if (!isPlatformId(w))
      throw new UsageError(
        `--for: "${w}" is not a platform this tool knows${didYouMean(w, PLATFORM_IDS)}.`,
        `Platforms: ${PLATFORM_IDS.join(', ')}`,
      );
  return [...new Set(words as PlatformId[])];
}

/** A repeatable flag's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A whole number of at least `min`, for `name`; anything else is a usage error with an example. */
export function parseCount(name: string, min: number) {
  return (raw: string): number => {
    // "-1" is a whole number to a person: say the lower bound, not only "whole number".
    const what = `${name} must be a whole number, ${min} or more`;
    if (!/^\d+$/.test(raw.trim()))
      throw new UsageError(`${what}, got "${raw}".`, `For example: ${name} ${Math.max(min, 20)}`);
    const n = Number(raw);
    if (n < min) throw new UsageError(`${what}, got ${n}.`, `For example: ${name} ${Math.max(min, 20)}`);
    return n;
  };
}

/** A TCP port for `name`: 0 (a free one) to 65535. */
export function parsePort(name: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n > 65535)
      throw new UsageError(
        `${name} must be a port number from 0 to 65535 (0 picks a free one), got "${raw}".`,
        `For example: ${name} 8090`,
      );
    return n;
  };
}

/** `upload --concurrency`: files sent at once, by default and at most. */
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;

export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(
      `--concurrency ${value} is not a whole number from 1 to ${MAX_CONCURRENCY}.`,
      `For example: --concurrency ${DEFAULT_CONCURRENCY}`,
    );
  }
  return n;
}

/**
 * `upload --part-concurrency`: parts of large files sent at once (in all), when the service offers
 * a multipart upload (src/upload/send/multipart.ts). Memory for parts is at most part size × this.
 */
export const DEFAULT_PART_CONCURRENCY = PART_CONCURRENCY.default;
export const MAX_PART_CONCURRENCY = PART_CONCURRENCY.max;

export function parsePartConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > MAX_PART_CONCURRENCY) {
    throw new UsageError(
      `--part-concurrency ${value} is not a whole number from 1 to ${MAX_PART_CONCURRENCY}.`,
      `For example: --part-concurrency ${DEFAULT_PART_CONCURRENCY} (parts of large files sent at once)`,
    );
  }
  return n;
}

/** Longest --retry-for / CONTENTLIB_RETRY_FOR: an hour. */
export const MAX_RETRY_FOR_SECONDS = 3600;

/** --retry-for and CONTENTLIB_RETRY_FOR: whole seconds from 0 (do not ride out) to an hour. */
export function parseRetryFor(value: string, from = '--retry-for'): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > MAX_RETRY_FOR_SECONDS) {
    throw new UsageError(
      `${from} must be a whole number of seconds from 0 to ${MAX_RETRY_FOR_SECONDS}, got "${value}".`,
      'For example: --retry-for 120 (0 fails at once when the service is down)',
    );
  }
  return n;
}

/** What --thumbnail takes, from the rules table: "a jpeg, png or webp image of at most 20 MB". */
export const THUMBNAIL_WHAT = `a ${THUMBNAIL_RULE.formats.join(', ').replace(/, ([^,]*)$/, ' or $1')} image of at most ${formatBytes(THUMBNAIL_RULE.maxBytes)}`;

/** "mp4/mov": a type's formats as its help names them (jpeg, not jpg: the rules table's names). */
const formatsOf = (type: keyof typeof TYPE_RULES) => TYPE_RULES[type].formats.join('/');

/**
 * upload's help on the rules, from the rules table: "shortform is an mp4/mov of 3–90 s and at
 * most 300 MB; longform a video up to 1 GB; a carousel 2–10 jpeg/png/webp images of at most 20 MB".
 */
export const UPLOAD_RULES_HELP = (() => {
  const { shortform, longform, carousel } = TYPE_RULES;
  return (
    `Rules: shortform is an ${formatsOf('shortform')} of ${shortform.duration.min}–${shortform.duration.max} s and at most ${formatBytes(shortform.maxBytes)}; ` +
    `longform a video up to ${formatBytes(longform.maxBytes)};\n` +
    `a carousel ${carousel.minFiles}–${carousel.maxFiles} ${formatsOf('carousel')} images of at most ${formatBytes(carousel.maxBytes)}.`
  );
})();

/** The shells `contentlib completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The settings `contentlib config get|set` know. */
export const CONFIG_KEYS = ['active-profile', 'base-url', 'api-key', 'path', 'embedded'] as const;

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90d`, `12h`, `30m`, `45s` in seconds, for `name`; anything else is a usage error with an example. */
export function parseDuration(name: string) {
  return (raw: string): number => {
    const m = /^(\d{1,9})\s*([smhd])$/i.exec(raw.trim());
    const seconds = m ? Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]! : 0;
    if (seconds <= 0)
      throw new UsageError(
        `${name} must be a positive duration in s, m, h or d, got "${raw}".`,
        `For example: ${name} 90d (or 12h, 30m, 45s)`,
      );
    return seconds;
  };
}

/** `--since`: a duration back from now (`7d`) or an ISO time (`2026-01-01`, `2026-01-01T09:00:00Z`), as an ISO time. */
export function parseSince(now: () => Date) {
  return (raw: string): string => {
    if (/^\d{4}-\d\d-\d\d/.test(raw.trim())) {
      const at = Date.parse(raw.trim());
      if (Number.isNaN(at))
        throw new UsageError(`--since "${raw}" is not a time.`, 'For example: --since 7d or --since 2026-01-01');
      return new Date(at).toISOString();
    }
    const seconds = parseDuration('--since')(raw);
    return new Date(now().getTime() - seconds * 1000).toISOString();
  };
}

/** `upload --settle`, `--poll`: a number of seconds above 0 and at most an hour (0.5 is fine). */
export function parseSeconds(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0) || n > 3600)
      throw new UsageError(`${flag} ${value} is not a number of seconds from 0.1 to 3600.`, `For example: ${flag} 5`);
    return n;
  };
}

/**
 * The query syntax in a few lines, for the help of ls, edit --where and rm --where (the words
 * themselves are read by src/cli/query.ts, which --help does not load).
 */
export const QUERY_HELP = `A query is words that must all match (quote it: # starts a comment in a shell):
  status:draft  type:carousel  #summersale (or hashtag:summersale)  title:summer
  created:>7d  created:<2026-01-01  created:2026-11-01..2026-11-20  updated:>=12h
  by:KEY (uploaded by a key's name or id)  updated-by:KEY  duration:>30  duration:30..90
  sort:title-asc (created, updated or title; -asc or -desc)
  any other word, or a "quoted phrase", is free text over title, description and hashtags.
Durations (30m, 12h, 7d, 2w) count back from now; dates are UTC days.`;
