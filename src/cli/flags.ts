// What the command definitions in program.ts need before any command module is loaded: flag
// parsers, and words of the help that come from the rules. Light on purpose: `--help` loads it.
import { THUMBNAIL_RULE, TYPE_RULES, formatBytes } from '../rules/rules.js';
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
