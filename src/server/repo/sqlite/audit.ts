// The audit log on SQLite: the shared SQL of ../audit.ts with `?` for its parameters.
import type { Db } from './db.js';
import {
  type AuditEntry,
  type AuditEvent,
  type AuditFilter,
  type ItemAuthors,
  type Param,
  type RawAuditEntry,
  auditPageQuery,
  authorsByItem,
  itemAuthorQueries,
  itemAuthorWrite,
  pruneAuditSql,
  toAuditEntry,
  writeAudit,
} from '../audit.js';

const sqliteParam: Param = () => '?';

/** The audit log on SQLite; `write` runs in whatever transaction is open (the change's own). */
export function sqliteAudit(db: Db) {
  return {
    write: (e: AuditEvent): void => {
      writeAudit((sql, values) => db.prepare(sql).run(...values), sqliteParam, e);
      const authors = itemAuthorWrite(sqliteParam, e);
      if (authors) db.prepare(authors.sql).run(...authors.values);
    },
    page(brandId: string, f: AuditFilter): { entries: AuditEntry[]; hasMore: boolean } {
      const q = auditPageQuery(brandId, f, sqliteParam);
      const rows = db.prepare(q.sql).all(...q.values) as RawAuditEntry[];
      return { entries: rows.slice(0, f.limit).map(toAuditEntry), hasMore: rows.length > f.limit };
    },
    authors(brandId: string, itemIds: readonly string[]): Map<string, ItemAuthors> {
      if (itemIds.length === 0) return new Map();
      const q = itemAuthorQueries(sqliteParam, itemIds.length);
      const rows = (sql: string) => db.prepare(sql).all(brandId, ...itemIds) as RawAuditEntry[];
      return authorsByItem(itemIds, rows(q.first), rows(q.last));
    },
    prune: (before: string): number => db.prepare(pruneAuditSql(sqliteParam)).run(before).changes,
  };
}
