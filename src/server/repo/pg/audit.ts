// The audit log on PostgreSQL: the statements of ../audit.ts with PostgreSQL's parameters, over a
// Query that is the pool or, for writes, the transaction of the change being recorded.
import {
  type AuditEvent,
  type AuditFilter,
  type ItemAuthors,
  type RawAuditEntry,
  auditPageQuery,
  authorsByItem,
  itemAuthorQueries,
  itemAuthorWrite,
  pruneAuditSql,
  toAuditEntry,
  writeAudit,
} from '../audit.js';
import type { Query } from './query.js';

const param = (n: number) => `$${n}`;

export function pgAudit(q: Query) {
  return {
    /** One entry, in the transaction `q` belongs to. */
    write: async (e: AuditEvent): Promise<void> => {
      await writeAudit(q, param, e);
      const authors = itemAuthorWrite(param, e);
      if (authors) await q(authors.sql, authors.values);
    },
    async page(brandId: string, f: AuditFilter) {
      const { sql, values } = auditPageQuery(brandId, f, param);
      const { rows } = await q<RawAuditEntry>(sql, values);
      return { entries: rows.slice(0, f.limit).map(toAuditEntry), hasMore: rows.length > f.limit };
    },
    async authors(brandId: string, itemIds: readonly string[]): Promise<Map<string, ItemAuthors>> {
      if (itemIds.length === 0) return new Map();
      const sql = itemAuthorQueries(param, itemIds.length);
      const [first, last] = await Promise.all([
        q<RawAuditEntry>(sql.first, [brandId, ...itemIds]),
        q<RawAuditEntry>(sql.last, [brandId, ...itemIds]),
      ]);
      return authorsByItem(itemIds, first.rows, last.rows);
    },
    async prune(before: string): Promise<number> {
      return (await q(pruneAuditSql(param), [before])).rowCount ?? 0;
    },
  };
}
