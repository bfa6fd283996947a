// The one query syntax of `ls QUERY`, `edit --where QUERY` and `rm --where QUERY` (docs/cli.md,
// Finding items): `status:draft #summersale created:>7d by:ci-bot northwind "exact phrase"`
// → the list's parameters (ListParams, the wire's names). Pure: the clock is a parameter, and a
// mistake is a QuerySyntaxError naming the word, which the CLI prints as a usage error (exit 2).
// `ls`'s flags (--hashtag, --since, …) are turned into the same parameters here too, so a flag
// and its word can never mean two different things.
import type { ListParams } from '../api/client.js';
import { CONTENT_TYPES, STATUSES, type ContentType, type Status } from '../rules/rules.js';
import { QuerySyntaxError } from './errors.js';

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };
const DURATION_UNITS_S: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** The words a query knows, for messages and completion. */
export const QUERY_KEYS = [
  'status',
  'type',
  'hashtag',
  'created',
  'updated',
  'by',
  'updated-by',
  'duration',
  'title',
  'sort',
] as const;

/** `--sort` / `sort:` values: the field, then -asc or -desc (default: newest/last first, A→Z for title). */
export const SORT_WORDS = ['created', 'updated', 'title'] as const;
const SORT_FIELD = { created: 'createdAt', updated: 'updatedAt', title: 'title' } as const;

/**
 * One moment as the query writes it, as the span it covers: a date is its whole day (UTC), a
 * time or a duration back from now is one instant ([t, t+1 ms)).
 */
interface Span {
  start: number;
  end: number;
}

/** `2026-11-01`, `2026-11-01T09:30`, `2026-11-01T09:30:00Z`, or a duration back from now: `7d`, `12h`, `2w`, `30m`. */
export function parseMoment(raw: string, now: () => Date, word: string): Span {
  const text = raw.trim();
  const duration = /^(\d{1,6})([mhdw])$/i.exec(text);
  if (duration) {
    const at = now().getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!;
    return { start: at, end: at + 1 };
  }
  if (/^\d{4}-\d\d-\d\d$/.test(text)) {
    const at = Date.parse(`${text}T00:00:00Z`);
    if (!Number.isNaN(at)) return { start: at, end: at + DAY_MS };
  } else if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)?$/i.test(text)) {
    // A time without an offset is UTC, as every time the library shows is.
    const at = Date.parse(/(Z|[+-]\d\d:\d\d)$/i.test(text) ? text : `${text}Z`);
    if (!Number.isNaN(at)) return { start: at, end: at + 1 };
  }
  throw new QuerySyntaxError(
    `"${raw}" in ${word} is not a date, a time or a duration.`,
    'Write a date (2026-11-01), a time (2026-11-01T09:30:00Z) or a duration back from now (30m, 12h, 7d, 2w).',
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `>7d`, `>=2026-01-01`, `<2026-01-01`, `2026-11-01..2026-11-20`, `2026-11-01` (that day), `7d`
 * (within the last 7 days) → the After (inclusive) and Before (exclusive) bounds.
 */
export function parseTimeRange(value: string, now: () => Date, word: string): { after?: string; before?: string } {
  const op = /^(>=|<=|>|<)/.exec(value)?.[1];
  const rest = op ? value.slice(op.length) : value;
  if (rest === '') throw new QuerySyntaxError(`${word} needs a date or a duration.`, `For example: ${word}>7d`);
  if (op === '>') return { after: iso(parseMoment(rest, now, word).end) };
  if (op === '>=') return { after: iso(parseMoment(rest, now, word).start) };
  if (op === '<') return { before: iso(parseMoment(rest, now, word).start) };
  if (op === '<=') return { before: iso(parseMoment(rest, now, word).end) };
  const range = rest.split('..');
  if (range.length === 2) {
    const [from, to] = range as [string, string];
    if (from === '' && to === '')
      throw new QuerySyntaxError(`${word}.. needs at least one end.`, `For example: ${word}2026-11-01..2026-11-20`);
    const out: { after?: string; before?: string } = {};
    if (from !== '' && from !== '*') out.after = iso(parseMoment(from, now, word).start);
    if (to !== '' && to !== '*') out.before = iso(parseMoment(to, now, word).end);
    if (out.after !== undefined && out.before !== undefined && out.after >= out.before)
      throw new QuerySyntaxError(`${word}${rest} ends before it starts.`, 'Write the earlier end first.');
    return out;
  }
  if (range.length > 2) throw new QuerySyntaxError(`${word}${rest} has more than one "..".`);
  // A duration alone means "within the last …"; a date alone, that day.
  const span = parseMoment(rest, now, word);
  if (/^\d+[mhdw]$/i.test(rest.trim())) return { after: iso(span.start) };
  return { after: iso(span.start), before: iso(span.end) };
}

/** `30`, `7.5`, `90s`, `2m`, `1h` → seconds. */
function parseSeconds(raw: string, word: string): number {
  const m = /^(\d{1,9}(?:\.\d{1,6})?)([smh]?)$/i.exec(raw.trim());
  if (!m)
    throw new QuerySyntaxError(
      `"${raw}" in ${word} is not a number of seconds.`,
      'For example: duration:>30, duration:<2m, duration:30..90',
    );
  return Number(m[1]) * (m[2] ? DURATION_UNITS_S[m[2].toLowerCase()]! : 1);
}

/** `>30`, `>=30`, `<2m`, `30..90`, `..90`, `45` (exactly) → the inclusive bounds the API takes. */
export function parseDurationRange(value: string, word = 'duration:'): { min?: number; max?: number } {
  const op = /^(>=|<=|>|<)/.exec(value)?.[1];
  const rest = op ? value.slice(op.length) : value;
  // The API's duration bounds are inclusive; durations are measured in fractions of a second,
  // so "more than 30" and "at least 30" select the same items in practice (docs/cli.md).
  if (op === '>' || op === '>=') return { min: parseSeconds(rest, word) };
  if (op === '<' || op === '<=') return { max: parseSeconds(rest, word) };
  const range = rest.split('..');
  if (range.length === 2) {
    const [from, to] = range as [string, string];
    const out: { min?: number; max?: number } = {};
    if (from !== '' && from !== '*') out.min = parseSeconds(from, word);
    if (to !== '' && to !== '*') out.max = parseSeconds(to, word);
    if (out.min === undefined && out.max === undefined)
      throw new QuerySyntaxError(`${word}.. needs at least one end.`, 'For example: duration:30..90');
    if (out.min !== undefined && out.max !== undefined && out.min > out.max)
      throw new QuerySyntaxError(`${word}${rest} ends before it starts.`, 'Write the smaller number first.');
    return out;
  }
  const exact = parseSeconds(rest, word);
  return { min: exact, max: exact };
}

/** `title`, `title-asc`, `created-desc`, `updated` → the API's sort and order. */
export function parseSort(value: string, word = 'sort:'): Pick<ListParams, 'sort' | 'order'> {
  const m = /^(created|updated|title)(?:-(asc|desc))?$/i.exec(value.trim());
  if (!m)
    throw new QuerySyntaxError(
      `"${value}" in ${word} is not a sort.`,
      `Choose ${SORT_WORDS.join(', ')}, each with -asc or -desc: e.g. sort:title-asc, sort:created-desc.`,
    );
  const field = m[1]!.toLowerCase() as (typeof SORT_WORDS)[number];
  const order = m[2]?.toLowerCase() as 'asc' | 'desc' | undefined;
  return { sort: SORT_FIELD[field], ...(order ? { order } : {}) };
}

function hashtagOf(raw: string, word: string): string {
  const tag = raw.replace(/^#/, '').trim();
  if (tag === '' || /[\s#,]/.test(tag))
    throw new QuerySyntaxError(`"${raw}" is not a hashtag.`, `Write one hashtag per word: ${word}summersale`);
  return tag;
}

/** One word of the query: `key:value` (the value may be quoted), `#tag`, or text. */
interface Token {
  text: string;
  /** The word was quoted as a whole: it is text, whatever it holds. */
  phrase: boolean;
}

/** Splits on white space, keeping "quoted phrases" and key:"quoted values" whole. */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i++;
      continue;
    }
    let text = '';
    let phrase = false;
    let quotedPart = false;
    while (i < query.length && !/\s/.test(query[i]!)) {
      if (query[i] === '"') {
        const close = query.indexOf('"', i + 1);
        if (close < 0) throw new QuerySyntaxError('A quote (") is not closed.', 'Close the phrase: "exact phrase".');
        if (text === '') phrase = true;
        else quotedPart = true;
        text += query.slice(i + 1, close);
        i = close + 1;
        continue;
      }
      text += query[i];
      i++;
    }
    tokens.push({ text, phrase: phrase && !quotedPart });
  }
  return tokens;
}

/** A single-valued word given twice (`status:draft status:failed`) is a mistake, not an OR. */
function setOnce<K extends keyof ListParams>(out: ListParams, key: K, value: ListParams[K], word: string): void {
  if (out[key] !== undefined && JSON.stringify(out[key]) !== JSON.stringify(value))
    throw new QuerySyntaxError(
      `${word} is given twice with different values.`,
      'A query matches items that satisfy every word; give each of status, type, created, … once.',
    );
  out[key] = value;
}

function choice<T extends string>(value: string, allowed: readonly T[], word: string): T {
  const v = value.toLowerCase();
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new QuerySyntaxError(`"${value}" is not a ${word.replace(/:$/, '')}.`, `Choose one of ${allowed.join(', ')}.`);
}

/**
 * The query → the list's parameters. Free words and "phrases" are the text search (`q`, phrases
 * kept in their quotes); every other word narrows the list further (all must match).
 */
export function parseQuery(query: string, now: () => Date): ListParams {
  const out: ListParams = {};
  const text: string[] = [];
  const hashtags: string[] = [];
  for (const token of tokenize(query)) {
    if (token.phrase) {
      if (token.text.trim() !== '') text.push(`"${token.text.trim()}"`);
      continue;
    }
    const word = token.text;
    if (word.startsWith('#')) {
      hashtags.push(hashtagOf(word, '#'));
      continue;
    }
    if (word.startsWith('-') && word.length > 1)
      throw new QuerySyntaxError(
        `"${word}": excluding (-word) is not supported.`,
        'Search for what items have; to find a word that starts with -, quote it: "-word".',
      );
    const key = /^([a-z][a-z-]*):(.*)$/i.exec(word);
    if (!key) {
      text.push(word);
      continue;
    }
    const name = key[1]!.toLowerCase();
    const value = key[2]!;
    const label = `${name}:`;
    if (value === '') throw new QuerySyntaxError(`${label} needs a value.`, `For example: ${exampleOf(name)}`);
    switch (name) {
      case 'status':
        setOnce(out, 'status', choice<Status>(value, STATUSES, label), label);
        break;
      case 'type':
        setOnce(out, 'type', choice<ContentType>(value, CONTENT_TYPES, label), label);
        break;
      case 'hashtag':
      case 'tag':
        hashtags.push(hashtagOf(value, label));
        break;
      case 'created':
      case 'updated': {
        const range = parseTimeRange(value, now, label);
        if (range.after !== undefined) setOnce(out, `${name}After`, range.after, label);
        if (range.before !== undefined) setOnce(out, `${name}Before`, range.before, label);
        break;
      }
      case 'by':
      case 'author':
        setOnce(out, 'createdBy', value, label);
        break;
      case 'updated-by':
        setOnce(out, 'updatedBy', value, label);
        break;
      case 'duration': {
        const range = parseDurationRange(value, label);
        if (range.min !== undefined) setOnce(out, 'minDuration', range.min, label);
        if (range.max !== undefined) setOnce(out, 'maxDuration', range.max, label);
        break;
      }
      case 'title':
        setOnce(out, 'search', value, label);
        break;
      case 'sort': {
        const s = parseSort(value, label);
        setOnce(out, 'sort', s.sort, label);
        if (s.order) setOnce(out, 'order', s.order, label);
        break;
      }
      default:
        throw new QuerySyntaxError(
          `Unknown word "${name}:" in the query.`,
          `Known: ${QUERY_KEYS.map((k) => `${k}:`).join(' ')} #hashtag and free text; quote text that holds a colon ("10:30").`,
        );
    }
  }
  if (hashtags.length > 0) out.hashtag = dedupe(hashtags);
  if (text.length > 0) out.q = text.join(' ');
  return out;
}

function exampleOf(name: string): string {
  const examples: Record<string, string> = {
    status: 'status:draft',
    type: 'type:carousel',
    hashtag: 'hashtag:summersale (or #summersale)',
    tag: 'tag:summersale',
    created: 'created:>7d, created:2026-11-01..2026-11-20',
    updated: 'updated:<2026-01-01',
    by: 'by:ci-bot',
    author: 'author:ci-bot',
    'updated-by': 'updated-by:ci-bot',
    duration: 'duration:>30',
    title: 'title:"summer sale"',
    sort: 'sort:title-asc',
  };
  return examples[name] ?? 'status:draft #summersale created:>7d';
}

/** Hashtags once each, whatever their case (the API matches them case-insensitively). */
function dedupe(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((t) => {
    const k = t.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `ls`'s search flags, as commander gives them. */
export interface SearchFlags {
  hashtag?: string[];
  since?: string;
  until?: string;
  updatedSince?: string;
  updatedUntil?: string;
  by?: string;
  text?: string;
  sort?: string;
  minDuration?: string;
  maxDuration?: string;
}

/** The flags → the same parameters. `--since X` is `created:>=X`, `--until X` is `created:<=X` (a date: through that day). */
export function paramsFromFlags(f: SearchFlags, now: () => Date): ListParams {
  const out: ListParams = {};
  if (f.hashtag?.length) out.hashtag = dedupe(f.hashtag.map((t) => hashtagOf(t, '--hashtag ')));
  const bound = (flag: string, value: string | undefined, op: '>=' | '<='): string | undefined => {
    if (value === undefined) return undefined;
    const r = parseTimeRange(`${op}${value}`, now, flag);
    return op === '>=' ? r.after : r.before;
  };
  const set = <K extends keyof ListParams>(key: K, value: ListParams[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('createdAfter', bound('--since', f.since, '>='));
  set('createdBefore', bound('--until', f.until, '<='));
  set('updatedAfter', bound('--updated-since', f.updatedSince, '>='));
  set('updatedBefore', bound('--updated-until', f.updatedUntil, '<='));
  if (out.createdAfter && out.createdBefore && out.createdAfter >= out.createdBefore)
    throw new QuerySyntaxError('--until is before --since: no item can match.', 'Give the earlier time to --since.');
  if (out.updatedAfter && out.updatedBefore && out.updatedAfter >= out.updatedBefore)
    throw new QuerySyntaxError(
      '--updated-until is before --updated-since: no item can match.',
      'Give the earlier time to --updated-since.',
    );
  set('createdBy', f.by);
  if (f.text !== undefined && f.text.trim() !== '') out.q = f.text.trim();
  if (f.sort !== undefined) Object.assign(out, parseSort(f.sort, '--sort'));
  if (f.minDuration !== undefined) out.minDuration = parseSeconds(f.minDuration, '--min-duration');
  if (f.maxDuration !== undefined) out.maxDuration = parseSeconds(f.maxDuration, '--max-duration');
  if (out.minDuration !== undefined && out.maxDuration !== undefined && out.minDuration > out.maxDuration)
    throw new QuerySyntaxError('--max-duration is below --min-duration: no item can match.');
  return out;
}

/**
 * Two sets of parameters (the query's and the flags') as one: hashtags and text add up, any
 * other parameter given by both must agree.
 */
export function combineParams(a: ListParams, b: ListParams): ListParams {
  const out: ListParams = { ...a };
  for (const [key, value] of Object.entries(b) as [keyof ListParams, unknown][]) {
    if (value === undefined) continue;
    const mine = out[key];
    if (key === 'hashtag') out.hashtag = dedupe([...(a.hashtag ?? []), ...(value as string[])]);
    else if (key === 'q') out.q = mine === undefined ? (value as string) : `${mine as string} ${value as string}`;
    else if (mine !== undefined && mine !== value)
      throw new QuerySyntaxError(
        `The query and a flag both set ${key}, to different values.`,
        'Say it once: in the query or with the flag.',
      );
    else (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Whether the parameters narrow the list at all (an empty `--where` would match the whole library). */
export function narrows(p: ListParams): boolean {
  const filters: (keyof ListParams)[] = [
    'status',
    'type',
    'search',
    'idPrefix',
    'id',
    'hashtag',
    'createdAfter',
    'createdBefore',
    'updatedAfter',
    'updatedBefore',
    'createdBy',
    'updatedBy',
    'minDuration',
    'maxDuration',
    'q',
  ];
  return filters.some((k) => p[k] !== undefined && !(Array.isArray(p[k]) && p[k].length === 0));
}
