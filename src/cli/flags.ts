// What the command definitions in program.ts need before any command module is loaded: flag
// parsers, and words of the help that come from the rules. Light on purpose: `--help` loads it.
import { THUMBNAIL_RULE, formatBytes } from '../rules/rules.js';
import { UsageError } from './errors.js';

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

export const MAX_CONCURRENCY = 16;

export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(
      `--concurrency ${value} is not a whole number from 1 to ${MAX_CONCURRENCY}.`,
      'For example: --concurrency 4',
    );
  }
  return n;
}

/** What --thumbnail takes, from the rules table: "a jpeg, png or webp image of at most 20 MB". */
export const THUMBNAIL_WHAT = `a ${THUMBNAIL_RULE.formats.join(', ').replace(/, ([^,]*)$/, ' or $1')} image of at most ${formatBytes(THUMBNAIL_RULE.maxBytes)}`;

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
