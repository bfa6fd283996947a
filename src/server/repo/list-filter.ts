// What a list request asks for, decided once for both databases: the query's parameters (the
// spec's and the search extension's, docs/api.md "Search, sort and cursor paging") become one
// ListFilter in stored terms (hashtags folded, times as stored ISO text, the text search as
// words), and a page's `nextCursor` is made and read here. ./list-sql.ts turns a ListFilter into
// each database's SQL; no database code reads the query itself.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { ListQuerySchema, ListSort } from '../../api/schemas.js';

/** The order a page is in: a sort key (rank: how well the text search matched) and its direction. */
export type ListKey = ListSort | 'rank';
export type ListOrder = 'asc' | 'desc';

/** Where the previous page ended: its last row's sort key value and id (keyset paging). */
export interface ListPosition {
  /** The key's stored value: createdAt/updatedAt (ISO text), the folded title, or the rank. */
  key: string | number;
  /** For rank only: the row's createdAt, the tie-break before the id. */
  createdAt?: string;
  id: string;
}

/** The parameters a ListFilter keeps as asked: the times as stored ISO text (After inclusive, Before exclusive). */
type KeptAsAsked =
  | 'status'
  | 'type'
  | 'search'
  | 'createdAfter'
  | 'createdBefore'
  | 'updatedAfter'
  | 'updatedBefore'
  | 'createdBy'
  | 'updatedBy'
  | 'minDuration'
  | 'maxDuration';

export interface ListFilter extends Pick<ListParameters, KeptAsAsked> {
  /** Extension: ids starting with this (lower case, the start of a UUID; checked by the route). */
  idPrefix?: string;
  /** Extension: only these ids (lower case, distinct, at most a page's worth). */
  ids?: readonly string[];
  /** Folded (foldHashtag): items carrying every one. */
  hashtags?: readonly string[];
  /** Free-text words (textWords): every one must start a word of the title, description or hashtags. */
  words?: readonly string[];
  /** Default: createdAt descending (the spec's order), or rank when `words` are given. */
  sort?: ListKey;
  order?: ListOrder;
  /** Rows after this position (a cursor's), instead of an offset. */
  after?: ListPosition;
  limit: number;
  offset: number;
}

export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
  /** The position of the page's last row when more follow (the next cursor's), else null. */
  next: ListPosition | null;
}

/** The parameters as ListQuerySchema hands them over (after its checks and transforms), the page's defaults filled in. */
export type ListParameters = Omit<z.output<typeof ListQuerySchema>, 'limit' | 'offset'> & {
  limit: number;
  offset: number;
};

/** A parameter the list cannot use, as the route's 400 names it. */
export interface ListProblem {
  path: string;
  message: string;
}

/** `%`, `_` and the escape character itself are taken literally in a LIKE pattern. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Case folding done in JS (unicode-aware), because SQLite's lower() only folds ASCII. */
export function foldTitle(title: string): string {
  return title.toLowerCase();
}

/** Hashtags compare case-insensitively, without their leading `#` (stored `#Sale` is `sale`). */
export function foldHashtag(tag: string): string {
  return tag.trim().replace(/^#+/, '').toLowerCase();
}

/** The distinct folded tags of an item's hashtags, as the item_hashtags rows hold them. */
export function foldedHashtags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(foldHashtag).filter((t) => t !== ''))];
}

/** Free text as the words both databases' full-text indexes make of it: letters and digits, lower case. */
export function textWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 20);
}

const iso = (t: string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

/**
 * The filter a list request asks for, or the problem with it: a cursor together with a non-zero
 * offset, a cursor that is not one of ours, or one made for another filter or order.
 */
export function listFilterOf(p: ListParameters): { filter: ListFilter } | { problem: ListProblem } {
  const words = p.q === undefined ? undefined : textWords(p.q);
  if (words !== undefined && words.length === 0)
    return { problem: { path: 'q', message: 'q must contain at least one letter or digit' } };
  const hashtags = p.hashtag === undefined ? undefined : foldedHashtags(p.hashtag);
  if (hashtags !== undefined && hashtags.length === 0)
    return { problem: { path: 'hashtag', message: 'hashtag must name a hashtag, e.g. summersale' } };
  if (p.minDuration !== undefined && p.maxDuration !== undefined && p.minDuration > p.maxDuration)
    return { problem: { path: 'minDuration', message: 'minDuration must not be greater than maxDuration' } };
  const filter: ListFilter = {
    status: p.status,
    type: p.type,
    search: p.search,
    idPrefix: p.idPrefix?.toLowerCase(),
    ids: p.id === undefined ? undefined : [...new Set(p.id.map((id) => id.toLowerCase()))],
    hashtags,
    createdAfter: iso(p.createdAfter),
    createdBefore: iso(p.createdBefore),
    updatedAfter: iso(p.updatedAfter),
    updatedBefore: iso(p.updatedBefore),
    createdBy: p.createdBy,
    updatedBy: p.updatedBy,
    minDuration: p.minDuration,
    maxDuration: p.maxDuration,
    words,
    sort: p.sort ?? (words ? 'rank' : 'createdAt'),
    order: p.order ?? (p.sort === 'title' ? 'asc' : 'desc'),
    limit: p.limit,
    offset: p.offset,
  };
  if (p.cursor === undefined) return { filter };
  if (p.offset !== 0)
    return {
      problem: {
        path: 'cursor',
        message: 'cursor and offset page in two different ways; send offset 0 (or none) with a cursor',
      },
    };
  const after = readCursor(p.cursor, fingerprint(filter));
  if ('problem' in after) return after;
  return { filter: { ...filter, after: after.position } };
}

/** The cursor of the page after `next`, valid only for the same filter and order. */
export function cursorOf(filter: ListFilter, next: ListPosition | null): string | null {
  if (!next) return null;
  const body = [fingerprint(filter), next.key, next.id, ...(next.createdAt === undefined ? [] : [next.createdAt])];
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** What a cursor depends on: every filter parameter, the sort key and the order (not limit nor offset). */
function fingerprint(f: ListFilter): string {
  const { limit: _limit, offset: _offset, after: _after, ...rest } = f;
  const stable = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 12);
}

function readCursor(cursor: string, expected: string): { position: ListPosition } | { problem: ListProblem } {
  const bad = (message: string) => ({ problem: { path: 'cursor', message } });
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return bad('cursor is not a nextCursor of this list; start again without it');
  }
  if (!Array.isArray(body) || body.length < 3 || body.length > 4)
    return bad('cursor is not a nextCursor of this list; start again without it');
  const [print, key, id, createdAt] = body as unknown[];
  const keyOk = typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key));
  if (
    typeof print !== 'string' ||
    !keyOk ||
    typeof id !== 'string' ||
    !(createdAt === undefined || typeof createdAt === 'string')
  )
    return bad('cursor is not a nextCursor of this list; start again without it');
  if (print !== expected)
    return bad(
      'cursor was made for other filters or another sort; send the same parameters as the first page, or start again without it',
    );
  return { position: { key: key as string | number, id, ...(createdAt === undefined ? {} : { createdAt }) } };
}
