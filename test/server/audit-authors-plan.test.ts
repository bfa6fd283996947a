// A page of items gets its authors (item.created and the latest entry) by item id, never by
// reading every audit entry of the brand: SQLite keeps no statistics, and with the brand in the
// same WHERE it chose the brand's index (12 ms for 20 items at 60,000 entries, and growing with
// the log). The plans are read from SQLite itself; the answers are checked by the repository
// tests on both databases (repo.test.ts, audit-details.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemAuthorQueries } from '../../src/server/repo/audit.js';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import type { Database } from '../../src/sqlite/database.js';

const sqliteParam = (n: number) => `?${n}`;

describe("the authors queries' plans on SQLite", () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authors-plan-'));
    db = openDatabase(dir);
  });
  afterAll(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const planOf = (sql: string, count: number) =>
    (
      db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: count + 1 }, () => 'x')) as Array<{
        detail: string;
      }>
    ).map((r) => r.detail);

  it.each([1, 20, 100])('find the entries of %i items by item id', (count) => {
    const q = itemAuthorQueries(sqliteParam, count);
    for (const sql of [q.first, q.last]) {
      const plan = planOf(sql, count);
      expect(plan.some((d) => /USING (COVERING )?INDEX audit_item \(item_id=\?\)/.test(d))).toBe(true);
      // The brand's index only ever with the entry's id: a lookup, not a walk over the brand.
      for (const d of plan.filter((x) => x.includes('audit_brand'))) expect(d).toContain('id=?');
      expect(plan.some((d) => /SCAN audit_log/.test(d))).toBe(false);
    }
  });
});
