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

/** The shells `contentlib completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The settings `contentlib config get|set` know. */
export const CONFIG_KEYS = ['active-profile', 'base-url', 'api-key', 'path', 'embedded'] as const;
