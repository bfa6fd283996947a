// The audit log (docs/api.md, Audit log): who did what, when, through which request. Entries are
// written by `writeAudit`, the one writer, which the decisions call (their `audit` step) inside
// the transaction of the change they record, so a change and its entry commit (or roll back)
// together. The queries are written here once for both databases (`auditQueries`, over
// ./statements.ts).
import type { ItemChanges, ItemRow } from './items.js';
import { fewCountSql, isFew } from './few-rows.js';
import { type Param, type Sql, params, rows, run } from './statements.js';

export type AuditAction =
  | 'item.created'
  | 'item.image_added'
  | 'item.images_reordered'
  | 'item.image_removed'
  | 'item.image_replaced'
  | 'item.updated'
  | 'item.thumbnail_set'
  | 'item.deleted'
  | 'key.created'
  | 'key.revoked';

/** Who makes a change: the API key (its name at the time) and the request, or the server's own admin. */
export interface Actor {
  /** Null for `contentlib keys` run on the server's machine (no key is involved). */
  keyId: string | null;
  keyName: string | null;
  requestId: string | null;
  /** The bulk change the request belongs to (its Content-Library-Batch header), if any. */
  batchId?: string | null;
}

/** `contentlib keys` on the server's machine (a data dir or --db): no key, no request. */
export const LOCAL_ADMIN: Actor = { keyId: null, keyName: null, requestId: null };

export interface AuditEvent {
  brandId: string;
  action: AuditAction;
  itemId: string | null;
  at: string;
  actor: Actor;
  details: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: string;
  brandId: string;
  action: AuditAction;
  itemId: string | null;
  keyId: string | null;
  keyName: string | null;
  requestId: string | null;
  /** The bulk change it belongs to, or null. */
  batchId: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  itemId?: string;
  /** The key that made the change. */
  keyId?: string;
  /** Entries at or after this ISO time. */
  since?: string;
  /** The entries of one bulk change. */
  batchId?: string;
  /** Entries older than this entry id (the cursor of the next page). */
  before?: number;
  limit: number;
}

const INSERT_COLUMNS = 'at, brand_id, action, item_id, key_id, key_name, request_id, batch_id, details';

/**
 * Records one entry, and the item's authors with it (`itemAuthorWrite`): run it inside the
 * transaction of the change it records (every decision's `audit` step does, and so must any new
 * change: a carousel reorder is one more entry with its own action).
 */
function* writeAudit(param: Param, e: AuditEvent): Sql<void> {
  const values = [
    e.at,
    e.brandId,
    e.action,
    e.itemId,
    e.actor.keyId,
    e.actor.keyName,
    e.actor.requestId,
    e.actor.batchId ?? null,
    JSON.stringify(e.details),
  ];
  yield* run(`INSERT INTO audit_log (${INSERT_COLUMNS}) VALUES (${params(param, 1, values.length)})`, values);
  const authors = itemAuthorWrite(param, e);
  if (authors) yield* run(authors.sql, authors.values);
}

/**
 * The item's own record of who made it and who changed it last (items.created_by_key_id and
 * updated_by_key_id, the list's createdBy and updatedBy filters), kept with each entry that
 * presents them (`itemAuthorQueries`): item.created sets both, every later entry of the item the
 * second. Null for entries that are not an existing item's. `writeAudit` runs it right after the
 * entry, in the same transaction.
 */
function itemAuthorWrite(param: Param, e: AuditEvent): { sql: string; values: unknown[] } | null {
  if (e.itemId === null || !e.action.startsWith('item.') || e.action === 'item.deleted') return null;
  if (e.action === 'item.created')
    return {
      sql: `UPDATE items SET created_by_key_id = ${param(1)}, updated_by_key_id = ${param(2)} WHERE id = ${param(3)}`,
      values: [e.actor.keyId, e.actor.keyId, e.itemId],
    };
  return {
    sql: `UPDATE items SET updated_by_key_id = ${param(1)} WHERE id = ${param(2)}`,
    values: [e.actor.keyId, e.itemId],
  };
}

/** The columns of an entry as the row mappers below expect them (quoted: PostgreSQL folds case). */
const AUDIT_SELECT = `SELECT id, at, brand_id AS "brandId", action, item_id AS "itemId", key_id AS "keyId",
  key_name AS "keyName", request_id AS "requestId", batch_id AS "batchId", details FROM audit_log`;

type RawAuditEntry = Omit<AuditEntry, 'details'> & { details: string };

function toAuditEntry(row: RawAuditEntry): AuditEntry {
  return { ...row, id: Number(row.id), details: JSON.parse(row.details) as Record<string, unknown> };
}

/**
 * Whether `f` is a brand-wide `since` (no item, key or batch named), which `sinceProbe` decides
 * for (./few-rows.ts): with few entries at or after it (older than the cursor), they are read by
 * time (`audit_brand_at`) and sorted; with more, the brand's entries newest first. The walk read
 * every older entry when few were newer (410–450 ms at 1,330,000 entries), and SQLite given the
 * index by time took it whatever the count, sorting a year of entries (430–670 ms).
 */
const brandWideSince = (f: AuditFilter): f is AuditFilter & { since: string } =>
  f.since !== undefined && f.itemId === undefined && f.keyId === undefined && f.batchId === undefined;

/** How many entries (few or more, ./few-rows.ts) are at or after `since`, older than the cursor if any. */
function sinceProbe(brandId: string, f: AuditFilter & { since: string }, param: Param) {
  const where = [`brand_id = ${param(1)}`, `at >= ${param(2)}`];
  if (f.before !== undefined) where.push(`id < ${param(3)}`);
  return {
    sql: fewCountSql('audit_log', where),
    values: f.before !== undefined ? [brandId, f.since, f.before] : [brandId, f.since],
  };
}

/**
 * A page of a brand's entries, newest first, with one extra row asked for to know `hasMore`.
 * `walk`: `since` is spelled so that no index by time can serve it (`at || ''`), and the brand's
 * (or the item's, key's or batch's) entries are read newest first; otherwise a brand-wide `since`
 * is read through `audit_brand_at`.
 */
function auditPageQuery(
  brandId: string,
  f: AuditFilter,
  param: Param,
  walk = false,
): { sql: string; values: unknown[] } {
  const values: unknown[] = [brandId];
  const arg = (v: unknown) => {
    values.push(v);
    return param(values.length);
  };
  const where = [`brand_id = ${param(1)}`];
  if (f.itemId !== undefined) where.push(`item_id = ${arg(f.itemId)}`);
  if (f.keyId !== undefined) where.push(`key_id = ${arg(f.keyId)}`);
  if (f.since !== undefined) where.push(`${walk ? "at || ''" : 'at'} >= ${arg(f.since)}`);
  if (f.batchId !== undefined) where.push(`batch_id = ${arg(f.batchId)}`);
  if (f.before !== undefined) where.push(`id < ${arg(f.before)}`);
  return { sql: `${AUDIT_SELECT} WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${arg(f.limit + 1)}`, values };
}

/** The page's statement, after the probe a brand-wide `since` needs. */
function* auditPageSql(brandId: string, f: AuditFilter, param: Param): Sql<{ sql: string; values: unknown[] }> {
  // An item, key or batch named: its own index, which the index by time would otherwise outbid.
  if (!brandWideSince(f)) return auditPageQuery(brandId, f, param, true);
  const probe = sinceProbe(brandId, f, param);
  const [counted] = yield* rows<{ n: number | string }>(probe.sql, probe.values);
  return auditPageQuery(brandId, f, param, !isFew(counted?.n));
}

/** Who made each item and who changed it last: its item.created entry and its latest one. */
export interface ItemAuthors {
  created: AuditEntry | null;
  last: AuditEntry | null;
}

/**
 * For a page of items at once: the item.created entries, and the latest entry of each item (two
 * queries whatever the page's size). Values: the item ids, then the brand. The entries are found
 * by item id alone (audit_item) and the brand is checked on what was found: with the brand beside
 * the item ids in one WHERE, SQLite (which keeps no statistics) chose audit_brand and read every
 * entry of the brand for each page: 12 ms for 20 items at 60,000 entries, against 0.06 ms so.
 */
export function itemAuthorQueries(param: Param, count: number): { first: string; last: string } {
  const items = `item_id IN (${params(param, 1, count)})`;
  const brand = `brand_id = ${param(count + 1)}`;
  return {
    first: `${AUDIT_SELECT} WHERE id IN (SELECT id FROM audit_log WHERE ${items} AND action = 'item.created') AND ${brand}`,
    last: `${AUDIT_SELECT} WHERE id IN (SELECT MAX(id) FROM audit_log WHERE ${items} GROUP BY item_id) AND ${brand}`,
  };
}

/** The two queries' rows, by item id (an item with no entries kept has nulls). */
function authorsByItem(
  itemIds: readonly string[],
  first: readonly RawAuditEntry[],
  last: readonly RawAuditEntry[],
): Map<string, ItemAuthors> {
  const out = new Map<string, ItemAuthors>(itemIds.map((id) => [id, { created: null, last: null }]));
  for (const row of first) {
    const a = out.get(row.itemId ?? '');
    // The first one, should an item ever have two.
    if (a && (a.created === null || Number(row.id) < a.created.id)) a.created = toAuditEntry(row);
  }
  for (const row of last) {
    const a = out.get(row.itemId ?? '');
    if (a) a.last = toAuditEntry(row);
  }
  return out;
}

/** The audit_log table's queries in a dialect's parameters (./statements.ts runs them on either database). */
export function auditQueries(p: Param) {
  return {
    /** One entry, in the transaction of the change it records. */
    write: (e: AuditEvent): Sql<void> => writeAudit(p, e),
    *page(brandId: string, f: AuditFilter): Sql<{ entries: AuditEntry[]; hasMore: boolean }> {
      const q = yield* auditPageSql(brandId, f, p);
      const found = yield* rows<RawAuditEntry>(q.sql, q.values);
      return { entries: found.slice(0, f.limit).map(toAuditEntry), hasMore: found.length > f.limit };
    },
    *authors(brandId: string, itemIds: readonly string[]): Sql<Map<string, ItemAuthors>> {
      if (itemIds.length === 0) return new Map();
      const q = itemAuthorQueries(p, itemIds.length);
      const first = yield* rows<RawAuditEntry>(q.first, [...itemIds, brandId]);
      const last = yield* rows<RawAuditEntry>(q.last, [...itemIds, brandId]);
      return authorsByItem(itemIds, first, last);
    },
    /** Entries older than the retention go; nothing else ever deletes them (not an item's deletion). */
    prune: (before: string): Sql<number> => run(`DELETE FROM audit_log WHERE at < ${p(1)}`, [before]),
  };
}

/** At most this many changed platformSettings paths are listed in one entry. */
const MAX_SETTING_PATHS = 100;

/**
 * What a PATCH changed, for its `item.updated` entry: each field sent with its old and new value
 * (hashtags too: short and bounded), and platformSettings also as the paths whose value changed.
 * The whole previous platformSettings object is kept (`changes.platformSettings.from`) so that an
 * undo of a bulk change (`contentlib log --undo`) can put back exactly what was there.
 * Null when only a thumbnail was sent (that is its own entry).
 */
export function patchDetails(old: ItemRow, c: ItemChanges): Record<string, unknown> | null {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  if (c.title !== undefined) changes.title = { from: old.title, to: c.title };
  if (c.description !== undefined) changes.description = { from: old.description, to: c.description };
  if (c.status !== undefined) changes.status = { from: old.status, to: c.status };
  if (c.hashtags !== undefined) changes.hashtags = { from: old.hashtags, to: c.hashtags };
  if (c.platformSettings !== undefined)
    changes.platformSettings = { from: old.platformSettings, to: c.platformSettings };
  const fields = Object.keys(changes);
  if (fields.length === 0) return null;
  const details: Record<string, unknown> = { fields, changes };
  if (c.platformSettings !== undefined)
    details.platformSettings = changedPaths(old.platformSettings, c.platformSettings).slice(0, MAX_SETTING_PATHS);
  return details;
}

/** Dotted paths of the leaves that differ between two JSON objects (added, removed or changed). */
export function changedPaths(a: unknown, b: unknown, prefix = ''): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => changedPaths(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}
