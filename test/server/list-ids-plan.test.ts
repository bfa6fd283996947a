// A list by ids (the `id` extension, docs/api.md) finds its rows by the primary key, never by
// walking the brand's order index: SQLite keeps no statistics, and with `i.brand_id = ?` in the
// same WHERE it preferred that index (it saves sorting a page), reading every item of the brand.
// The plans are read from SQLite itself, over a brand of many items; the answers are checked on
// both databases by search.test.ts and over HTTP by content.test.ts.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListParameters, listFilterOf } from '../../src/server/repo/list-filter.js';
import { listSql } from '../../src/server/repo/list-sql.js';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { SQLITE_LIST } from '../../src/server/repo/sqlite/items.js';
import type { Database } from '../../src/sqlite/database.js';

describe('the list by ids on SQLite', () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'list-ids-plan-'));
    db = openDatabase(dir);
  });
  afterAll(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const planOf = (p: Partial<ListParameters>) => {
    const asked = listFilterOf({ limit: 100, offset: 0, ...p });
    if ('problem' in asked) throw new Error(asked.problem.message);
    const { sql, values } = listSql('brand', asked.filter, SQLITE_LIST);
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as Array<{ detail: string }>).map((r) => r.detail);
  };
  const ids = (n: number) => Array.from({ length: n }, () => randomUUID());

  it.each<[string, Partial<ListParameters>]>([
    ['1 id', { id: ids(1) }],
    ['100 ids', { id: ids(100) }],
    ['100 ids, sorted by title', { id: ids(100), sort: 'title' }],
    ['100 ids and a status', { id: ids(100), status: 'draft' }],
  ])('%s: by the primary key', (_what, p) => {
    const plan = planOf(p);
    expect(plan.some((d) => /SEARCH i USING INDEX sqlite_autoindex_items_1 \(id=\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /items_brand_|SCAN i\b/.test(d))).toBe(false);
  });

  it('without ids the brand’s order index still serves the page', () => {
    expect(planOf({}).some((d) => /items_brand_order \(brand_id=\?\)/.test(d))).toBe(true);
  });
});
