// A list page's SQL, built once for both databases from a ListFilter (./list-filter.ts). The
// filters, the rank, the order and the keyset condition are the same text on SQLite and
// PostgreSQL (numbered parameters: `?3` and `$3`); only the full-text match differs (FTS5 and a
// tsvector), and each Repo names it in its ListDialect.
import { type ListFilter, type ListPage, type ListPosition, foldTitle, likeLiteral } from './list-filter.js';

export interface ListDialect {
  /** The n-th parameter (1-based), usable more than once: `?n` on SQLite, `$n` on PostgreSQL. */
  param(n: number): string;
  /** The item's columns as the row mapper expects them (`i` is the item). */
  columns: string;
  /** The condition that item `i` holds every word (each the start of a word), given the words' parameter. */
  textMatch(words: readonly string[], arg: (v: unknown) => string): string;
}

/**
 * The index that reads a list page when the filter could be served by two (chosen by the counts of
 * ./list-read.ts): who made or changed the items, a duration range, or the list's own order.
 */
export type ListRead = 'author' | 'duration' | 'order';

/** The answer when the filter cannot match anything (keysOf's null). */
export const EMPTY_LIST_PAGE: ListPage<never> = { items: [], hasMore: false, next: null };

/** The key ids a list's `createdBy` and `updatedBy` stand for (keysOf). */
export interface ListKeys {
  createdBy?: readonly string[];
  updatedBy?: readonly string[];
}

/** The brand's keys with this id or this name (names need not be unique): values brand, who. */
export function keyIdsSql(param: (n: number) => string): string {
  return `SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id
           WHERE u.brand_id = ${param(1)} AND (k.id = ${param(2)} OR k.name = ${param(2)})`;
}

/**
 * The key ids of the filter's `createdBy` and `updatedBy`, found by `find` (keyIdsSql). Null when
 * one of them names no key of the brand: then no item can match, and the page is empty without
 * a query. Read inside the list's query, SQLite walked every item of the brand to find none
 * (0.25 s at 111,000 items, 0.65 s at 1,000,000).
 */
export function keysOf(f: ListFilter, find: (who: string) => readonly string[]): ListKeys | null {
  const keys: ListKeys = {};
  if (f.createdBy !== undefined) keys.createdBy = find(f.createdBy);
  if (f.updatedBy !== undefined) keys.updatedBy = find(f.updatedBy);
  return keys.createdBy?.length === 0 || keys.updatedBy?.length === 0 ? null : keys;
}

/** The rank of the text search: a word in the title counts 3, in a hashtag 2, in the description 1. */
function rankOf(words: readonly string[], arg: (v: unknown) => string): string {
  return words
    .map((w) => {
      const p = arg(`%${likeLiteral(w)}%`);
      return `CASE WHEN i.title_fold LIKE ${p} ESCAPE '\\' THEN 3 ELSE 0 END
        + CASE WHEN lower(i.hashtags) LIKE ${p} ESCAPE '\\' THEN 2 ELSE 0 END
        + CASE WHEN lower(i.description) LIKE ${p} ESCAPE '\\' THEN 1 ELSE 0 END`;
    })
    .join(' + ');
}

const KEY_COLUMN = { createdAt: 'i.created_at', updatedAt: 'i.updated_at', title: 'i.title_fold' } as const;

/**
 * The page's statement and its values; one extra row is asked for to know `hasMore`. `read`: the
 * index the counts of ./list-read.ts chose to read the page; the conditions the others would
 * serve are spelled so that SQLite cannot take them (`+ 0`, `|| ''`), and with the authors' index
 * the order is too (the rows are few, and sorted).
 */
export function listSql(
  brandId: string,
  f: ListFilter,
  d: ListDialect,
  by: ListKeys = {},
  read?: ListRead,
): { sql: string; values: unknown[] } {
  const values: unknown[] = [brandId];
  const arg = (v: unknown) => {
    values.push(v);
    return d.param(values.length);
  };
  const brand = d.param(1);
  const range = f.idPrefix === undefined ? null : idRange(f.idPrefix);
  const byRank = f.sort === 'rank' && f.words !== undefined && f.words.length > 0;
  // With ids, or a range of them, the rows are found by the primary key; ranked by the text
  // search, by the text index (no index holds the rank's order). Written `i.brand_id = …` SQLite
  // (which keeps no statistics) would rather walk the brand's whole order index; `|| ''` leaves
  // the brand's check as it is but takes that index out of the choice.
  const where = [f.ids || range || byRank ? `i.brand_id || '' = ${brand}` : `i.brand_id = ${brand}`];
  if (f.ids) where.push(`i.id IN (${f.ids.length === 0 ? 'NULL' : f.ids.map(arg).join(', ')})`);
  if (range) where.push(`i.id >= ${arg(range.from)} AND i.id < ${arg(range.to)}`);
  if (f.status) where.push(`i.status = ${arg(f.status)}`);
  if (f.type) where.push(`i.type = ${arg(f.type)}`);
  if (f.search) where.push(`i.title_fold LIKE ${arg(`%${likeLiteral(foldTitle(f.search))}%`)} ESCAPE '\\'`);
  if (f.idPrefix) where.push(`substr(i.id, 1, ${arg(f.idPrefix.length)}) = ${arg(f.idPrefix)}`);
  const key = f.sort ?? 'createdAt';
  // Newest first (or oldest) with a hashtag: the page is read in order from the first hashtag's
  // rows (their index holds brand and createdAt), not found by probing every item of the brand.
  const [first, ...more] = f.hashtags ?? [];
  const driven = first !== undefined && key === 'createdAt';
  const created = driven ? 'h0.created_at' : 'i.created_at';
  if (driven) where.push(`h0.tag = ${arg(first)} AND h0.brand_id = ${brand}`);
  // Each further tag as the set of its items (its index holds tag and brand): SQLite runs that
  // once, where an EXISTS per row looked up every item of the brand (3 s at 1,000,000 items for
  // a tag on a few of them with sort=updatedAt; 0.2 s so).
  for (const tag of driven ? more : (f.hashtags ?? []))
    where.push(`i.id IN (SELECT h.item_id FROM item_hashtags h WHERE h.tag = ${arg(tag)} AND h.brand_id = ${brand})`);
  if (f.createdAfter) where.push(`${created} >= ${arg(f.createdAfter)}`);
  if (f.createdBefore) where.push(`${created} < ${arg(f.createdBefore)}`);
  if (f.updatedAfter) where.push(`i.updated_at >= ${arg(f.updatedAfter)}`);
  if (f.updatedBefore) where.push(`i.updated_at < ${arg(f.updatedBefore)}`);
  // Who made or changed it: the key ids the name or id stands for, found first (keysOf), so that
  // one key is an equality its index serves in the list's order.
  const byKey = (name: string, ids: readonly string[] | undefined) => {
    if (!ids || ids.length === 0) throw new Error('listSql: resolve createdBy/updatedBy first (keysOf)');
    const column = read === 'duration' ? `(${name} || '')` : name;
    where.push(ids.length === 1 ? `${column} = ${arg(ids[0])}` : `${column} IN (${ids.map(arg).join(', ')})`);
  };
  if (f.createdBy) byKey('i.created_by_key_id', by.createdBy);
  if (f.updatedBy) byKey('i.updated_by_key_id', by.updatedBy);
  const duration = read === 'author' || read === 'order' ? '(i.duration_seconds + 0)' : 'i.duration_seconds';
  if (f.minDuration !== undefined) where.push(`${duration} >= ${arg(f.minDuration)}`);
  if (f.maxDuration !== undefined) where.push(`${duration} <= ${arg(f.maxDuration)}`);
  if (f.words && f.words.length > 0) where.push(d.textMatch(f.words, arg));

  const ranked = key === 'rank' && f.words !== undefined && f.words.length > 0;
  const rank = ranked ? `(${rankOf(f.words!, arg)})` : null;
  // The keys in order, the id last: every row has one place, so a page ends at one position.
  const keys = rank
    ? [rank, 'i.created_at', 'i.id']
    : driven
      ? ['h0.created_at', 'h0.item_id']
      : [KEY_COLUMN[key === 'rank' ? 'createdAt' : key], 'i.id'];
  const dir = f.order === 'asc' ? 'ASC' : 'DESC';
  if (f.after) where.push(`(${keys.join(', ')}) ${dir === 'ASC' ? '>' : '<'} (${positionArgs(f.after, !!rank, arg)})`);
  const select = rank ? `${d.columns}, ${rank} AS "listRank"` : d.columns;
  const from = driven ? 'item_hashtags h0 JOIN items i ON i.id = h0.item_id' : 'items i';
  // The authors' index reads the page: its few rows are sorted, not read in an order index's order.
  const sortBy = read === 'author' ? [`(${keys[0]} || '')`, ...keys.slice(1)] : keys;
  const sql = `SELECT ${select} FROM ${from} WHERE ${where.join(' AND ')}
    ORDER BY ${sortBy.map((k) => `${k} ${dir}`).join(', ')} LIMIT ${arg(f.limit + 1)} OFFSET ${arg(f.offset)}`;
  return { sql, values };
}

/** The next character of a lower-case hexadecimal digit, in the order of ids: 9 → a, f → g. */
const NEXT_DIGIT: Record<string, string> = { '9': 'a', f: 'g' };

/**
 * The ids that start with `prefix` (lower-case hexadecimal digits and dashes) lie in [from, to):
 * `from` is the prefix without its trailing dashes, `to` the same with its last digit one up.
 * That holds byte by byte (SQLite) and under PostgreSQL's linguistic collations, which may
 * ignore the dashes: from the last digit on, an id with the prefix is below `to` either way.
 * The prefix itself is still compared (substr), so the range only has to hold them all. Null
 * for a prefix of dashes only.
 */
export function idRange(prefix: string): { from: string; to: string } | null {
  const from = prefix.replace(/-+$/, '');
  if (from === '') return null;
  const last = from.at(-1)!;
  return { from, to: from.slice(0, -1) + (NEXT_DIGIT[last] ?? String.fromCharCode(last.charCodeAt(0) + 1)) };
}

function positionArgs(p: ListPosition, ranked: boolean, arg: (v: unknown) => string): string {
  return ranked ? [arg(p.key), arg(p.createdAt ?? ''), arg(p.id)].join(', ') : [arg(p.key), arg(p.id)].join(', ');
}

/** A row as the page statement returns it: the item's own columns, and its rank when ranked. */
export interface ListedRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  title: string;
  listRank?: number;
}

/** Where a page whose last row is `last` ends, in the filter's order (the next cursor's position). */
export function positionOf(f: ListFilter, last: ListedRow): ListPosition {
  const key = f.sort ?? 'createdAt';
  if (key === 'rank' && last.listRank !== undefined)
    return { key: Number(last.listRank), createdAt: last.createdAt, id: last.id };
  if (key === 'updatedAt') return { key: last.updatedAt, id: last.id };
  if (key === 'title') return { key: foldTitle(last.title), id: last.id };
  return { key: last.createdAt, id: last.id };
}
