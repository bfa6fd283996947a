// Which index reads a list page when the filter could be served by two (issue 41): who made or
// changed the items (createdBy/updatedBy, sorted by update or title) or a duration range, against
// the list's own order. Each narrow condition's items are counted first (./few-rows.ts): through a
// duration range SQLite sorted every match (1.4–2.6 s at 1,000,000 items for a minimum most items
// pass), in the list's order it read every item when few matched (0.5 s for a duration nothing
// has, and as much for a key with a few items sorted by update). ./list-sql.ts spells the page
// for the choice.
import { fewCountSql, isFew } from './few-rows.js';
import type { ListFilter } from './list-filter.js';
import type { ListDialect, ListKeys, ListRead } from './list-sql.js';

/** A count (./few-rows.ts) that decides for one narrow condition: the authors' keys or the durations. */
export interface ListProbe {
  read: Exclude<ListRead, 'order'>;
  sql: string;
  values: unknown[];
}

/**
 * The counts to take, in order, for the filter (none when it has no narrow condition, or another
 * index reads the page: ids, an id prefix, the ranked text search, a hashtag). The authors come
 * first, and only sorted by update or title: newest first, their index holds the list's order.
 */
export function listProbes(brandId: string, f: ListFilter, d: ListDialect, by: ListKeys): ListProbe[] {
  const ranked = f.sort === 'rank' && f.words !== undefined && f.words.length > 0;
  if (f.ids || f.idPrefix !== undefined || ranked || f.hashtags?.length) return [];
  const probes: ListProbe[] = [];
  const probe = (read: ListProbe['read'], conditions: (arg: (v: unknown) => string) => string[]) => {
    const values: unknown[] = [brandId];
    const arg = (v: unknown) => {
      values.push(v);
      return d.param(values.length);
    };
    const where = [`i.brand_id = ${d.param(1)}`, ...conditions(arg)];
    probes.push({ read, sql: fewCountSql('items i', where), values });
  };
  const author = by.createdBy
    ? { column: 'i.created_by_key_id', ids: by.createdBy }
    : by.updatedBy
      ? { column: 'i.updated_by_key_id', ids: by.updatedBy }
      : null;
  if (author && (f.sort === 'updatedAt' || f.sort === 'title'))
    probe('author', (arg) => [`${author.column} IN (${author.ids.map(arg).join(', ')})`]);
  if (f.minDuration !== undefined || f.maxDuration !== undefined)
    probe('duration', (arg) => [
      ...(f.minDuration !== undefined ? [`i.duration_seconds >= ${arg(f.minDuration)}`] : []),
      ...(f.maxDuration !== undefined ? [`i.duration_seconds <= ${arg(f.maxDuration)}`] : []),
    ]);
  return probes;
}

/**
 * What the counts say: the first condition that counted few reads the page; none, the list's
 * order; undefined when there was nothing to count. `count` is asked in order (at once, or later
 * on PostgreSQL), and no further once one is few.
 */
export async function readAfter(
  probes: readonly ListProbe[],
  count: (probe: ListProbe) => number | string | undefined | Promise<number | string | undefined>,
): Promise<ListRead | undefined> {
  if (probes.length === 0) return undefined;
  for (const p of probes) if (isFew(await count(p))) return p.read;
  return 'order';
}
