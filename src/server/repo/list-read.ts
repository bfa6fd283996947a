// Which index reads a list page when the filter could be served by two (issue 41): who made or
// changed the items (createdBy/updatedBy, sorted by update or title) or a duration range, against
// the list's own order. SQLite keeps no statistics, and no one plan served both ends at 1,000,000
// items: through a duration range it sorted every match (1.4–2.6 s for a minimum most items pass),
// in the list's order it read every item when few matched (0.5 s for a duration nothing has, and
// as much for a key with a few items sorted by update). So the narrow condition's items are
// counted first, up to FEW_MATCHES + 1, through its own index: few, and that index reads them
// and they are sorted; more, and the list's order reads the page. Both databases take the same
// decision (PostgreSQL would choose by its statistics; the count is one more round trip, for
// these lists only). ./list-sql.ts spells the page for the choice.
import type { ListFilter } from './list-filter.js';
import type { ListDialect, ListKeys, ListRead } from './list-sql.js';

/** At most this many matches, and the narrow condition's own index reads them. */
export const FEW_MATCHES = 1000;

/** A count that decides for one narrow condition: the authors' keys or the durations. */
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
    const sql = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM items i WHERE ${where.join(' AND ')} LIMIT ${FEW_MATCHES + 1}) few`;
    probes.push({ read, sql, values });
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
 * order; undefined when there was nothing to count. `count` is asked in order, and no further once
 * one is few.
 */
export function readAfter(probes: readonly ListProbe[], count: (probe: ListProbe) => number): ListRead | undefined {
  if (probes.length === 0) return undefined;
  return probes.find((p) => count(p) <= FEW_MATCHES)?.read ?? 'order';
}
