// A list page never walks the brand's items when what it asks for finds fewer: by ids (the `id`
// extension, docs/api.md) or an id prefix through the primary key, by one key through its index
// in the list's order, free text through the text index, further hashtags as one set. SQLite
// keeps no statistics, and with `i.brand_id = ?` in the same WHERE it preferred the brand's order
// index (it saves sorting a page), reading every item of the brand. The plans are read from each
// database itself: SQLite's, and PostgreSQL's over a brand of 50,000 analysed items; the answers
// are checked on both databases by search.test.ts and id-prefix.test.ts, and over HTTP by
// content.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ListParameters, listFilterOf } from '../../src/server/repo/list-filter.js';
import { type ListKeys, type ListRead, listSql } from '../../src/server/repo/list-sql.js';
import { FEW_ROWS } from '../../src/server/repo/few-rows.js';
import { listProbes } from '../../src/server/repo/list-read.js';
import { SQLITE_LIST } from '../../src/server/repo/sqlite/items.js';
import { PG_LIST } from '../../src/server/repo/pg/items.js';
import { postgresPlans, sqlitePlans } from '../support/query-plans.js';

function filterOf(p: Partial<ListParameters>) {
  const asked = listFilterOf({ limit: 100, offset: 0, ...p });
  if ('problem' in asked) throw new Error(asked.problem.message);
  return asked.filter;
}
const ids = (n: number) => Array.from({ length: n }, () => randomUUID());

describe('the list’s plans on SQLite', () => {
  const sqlite = sqlitePlans('list-plan');
  const planOf = (p: Partial<ListParameters>, keys?: ListKeys) => {
    const { sql, values } = listSql('brand', filterOf(p), SQLITE_LIST, keys);
    return sqlite.plan(sql, values);
  };

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

  it.each<[string, Partial<ListParameters>, RegExp]>([
    ['createdBy', { createdBy: 'ci' }, /items_brand_created_by \(brand_id=\? AND created_by_key_id=\?\)/],
    ['updatedBy', { updatedBy: 'ci' }, /items_brand_updated_by \(brand_id=\? AND updated_by_key_id=\?\)/],
  ])('%s of one key: its index, in the list’s order (no sort, no walk over the brand)', (_what, p, index) => {
    const plan = planOf(p, { createdBy: ['k1'], updatedBy: ['k1'] });
    expect(plan.some((d) => index.test(d))).toBe(true);
    expect(plan.some((d) => /TEMP B-TREE|items_brand_order/.test(d))).toBe(false);
  });

  it.each([['northwind'], ['northwind', 'sneaker']])(
    'free text %j, best match first: from the text index, not the brand’s',
    (...words) => {
      const plan = planOf({ q: words.join(' ') });
      expect(plan.some((d) => /items_fts VIRTUAL TABLE INDEX/.test(d))).toBe(true);
      expect(plan.some((d) => /SEARCH i USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(d))).toBe(true);
      expect(plan.some((d) => /items_brand_/.test(d))).toBe(false);
    },
  );

  it.each(['1232b4', '1232b4cd-', '1232b4cd-5e7f', '9', 'f'])('idPrefix %s: a range of the primary key', (prefix) => {
    const plan = planOf({ idPrefix: prefix });
    expect(plan.some((d) => /SEARCH i USING INDEX sqlite_autoindex_items_1 \(id>\? AND id<\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /items_brand_|SCAN i\b/.test(d))).toBe(false);
  });

  it.each<[string, Partial<ListParameters>]>([
    ['sorted by update', { hashtag: ['sale'], sort: 'updatedAt' }],
    ['sorted by title', { hashtag: ['sale'], sort: 'title' }],
    ['a second tag', { hashtag: ['sale', 'shoes'] }],
  ])('a hashtag %s: its items read once from the tag’s index, not looked up per item', (_what, p) => {
    const plan = planOf(p);
    expect(plan.some((d) => /LIST SUBQUERY/.test(d))).toBe(true);
    expect(plan.some((d) => /item_hashtags_newest \(tag=\? AND brand_id=\?\)/.test(d))).toBe(true);
    // Never a lookup of one item's hashtags (the EXISTS per item did that for every item of the brand).
    expect(plan.some((d) => /SEARCH h USING .*\(item_id=\?/.test(d))).toBe(false);
  });

  describe('who made the items or a duration range: counts first, then the plan for what they counted', () => {
    const KEYS: ListKeys = { createdBy: ['k1'], updatedBy: ['k2', 'k3'] };
    const keysOfFilter = (p: Partial<ListParameters>): ListKeys => ({
      ...(p.createdBy ? { createdBy: KEYS.createdBy } : {}),
      ...(p.updatedBy ? { updatedBy: KEYS.updatedBy } : {}),
    });
    const probesOf = (p: Partial<ListParameters>) => listProbes('brand', filterOf(p), SQLITE_LIST, keysOfFilter(p));
    const readPlan = (p: Partial<ListParameters>, read: ListRead) => {
      const { sql, values } = listSql('brand', filterOf(p), SQLITE_LIST, keysOfFilter(p), read);
      return sqlite.plan(sql, values);
    };
    it.each<[string, Partial<ListParameters>, string[], RegExp[]]>([
      [
        'a minimum',
        { minDuration: 10 },
        ['duration'],
        [/COVERING INDEX items_brand_duration \(brand_id=\? AND duration_seconds>\?\)/],
      ],
      [
        'a maximum',
        { maxDuration: 30 },
        ['duration'],
        [/COVERING INDEX items_brand_duration \(brand_id=\? AND duration_seconds<\?\)/],
      ],
      [
        'a maker, by update',
        { createdBy: 'ci', sort: 'updatedAt' },
        ['author'],
        [/COVERING INDEX items_brand_created_by \(brand_id=\? AND created_by_key_id=\?\)/],
      ],
      [
        'a changer, by title',
        { updatedBy: 'ci', sort: 'title' },
        ['author'],
        [/COVERING INDEX items_brand_updated_by \(brand_id=\? AND updated_by_key_id=\?\)/],
      ],
      [
        'a maker by title and a range',
        { createdBy: 'ci', sort: 'title', minDuration: 10 },
        ['author', 'duration'],
        [/items_brand_created_by/, /items_brand_duration/],
      ],
      [
        'a maker newest first and a range',
        { createdBy: 'ci', minDuration: 10 },
        ['duration'],
        [/items_brand_duration/],
      ],
    ])('%s: counted through its own index, at most FEW_ROWS + 1', (_what, p, reads, indexes) => {
      const probes = probesOf(p);
      expect(probes.map((x) => x.read)).toEqual(reads);
      probes.forEach((probe, i) => {
        expect(probe.sql).toContain(`LIMIT ${FEW_ROWS + 1}`);
        const plan = sqlite.plan(probe.sql, probe.values);
        expect(plan.some((d) => indexes[i]!.test(d))).toBe(true);
        expect(plan.some((d) => /SCAN i\b/.test(d))).toBe(false);
      });
    });
    it.each<[string, Partial<ListParameters>, ListRead, RegExp]>([
      [
        'a few durations',
        { minDuration: 10 },
        'duration',
        /items_brand_duration \(brand_id=\? AND duration_seconds>\?\)/,
      ],
      [
        'a few durations, by a maker of most',
        { createdBy: 'ci', minDuration: 10 },
        'duration',
        /items_brand_duration \(brand_id=\? AND duration_seconds>\?\)/,
      ],
      [
        'a maker of a few, by update',
        { createdBy: 'ci', sort: 'updatedAt' },
        'author',
        /items_brand_created_by \(brand_id=\? AND created_by_key_id=\?\)/,
      ],
      [
        'a changer of a few, by title, with a range',
        { updatedBy: 'ci', sort: 'title', minDuration: 10 },
        'author',
        /items_brand_updated_by \(brand_id=\? AND updated_by_key_id=\?\)/,
      ],
    ])('%s: through that index, then sorted', (_what, p, read, index) => {
      const plan = readPlan(p, read);
      expect(plan.some((d) => index.test(d))).toBe(true);
      expect(plan.some((d) => /SCAN i\b/.test(d))).toBe(false);
    });
    it.each<[string, Partial<ListParameters>, RegExp]>([
      ['durations, newest first', { minDuration: 10 }, /items_brand_order \(brand_id=\?\)/],
      ['durations, by update', { minDuration: 10, sort: 'updatedAt' }, /items_brand_updated \(brand_id=\?\)/],
      ['durations, by title', { minDuration: 10, maxDuration: 30, sort: 'title' }, /items_brand_title \(brand_id=\?\)/],
      ['a maker, by update', { createdBy: 'ci', sort: 'updatedAt' }, /items_brand_updated \(brand_id=\?\)/],
      [
        'a changer and durations, by title',
        { updatedBy: 'ci', sort: 'title', minDuration: 10 },
        /items_brand_title \(brand_id=\?\)/,
      ],
      [
        'a maker and durations, newest first',
        { createdBy: 'ci', minDuration: 10 },
        /items_brand_created_by \(brand_id=\? AND created_by_key_id=\?\)/,
      ],
    ])('many, %s: an index in the list’s order, no sort', (_what, p, index) => {
      const plan = readPlan(p, 'order');
      expect(plan.some((d) => index.test(d))).toBe(true);
      expect(plan.some((d) => /items_brand_duration|TEMP B-TREE|SCAN i\b/.test(d))).toBe(false);
    });
    it.each<[string, Partial<ListParameters>]>([
      ['ids', { id: ids(3), minDuration: 10 }],
      ['an id prefix', { idPrefix: '1232', minDuration: 10 }],
      ['a hashtag', { hashtag: ['sale'], minDuration: 10 }],
      ['ranked text', { q: 'northwind', minDuration: 10 }],
      ['a maker, newest first (its index is in that order)', { createdBy: 'ci' }],
      ['nothing narrow', { status: 'draft' }],
    ])('with %s: nothing to count', (_what, p) => {
      expect(probesOf(p)).toEqual([]);
    });
  });
});

describe('the list’s plans on PostgreSQL', () => {
  const postgres = postgresPlans(
    'list_plan',
    `INSERT INTO brands (id, name, created_at) VALUES ('brand', 'acme', '2026-01-01T00:00:00Z');
     INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type,
       file_size, created_at, updated_at)
     SELECT gen_random_uuid()::text, 'brand', 'shortform', 'clip ' || g, 'clip ' || g, 'draft', 'k/' || g,
       'a.mp4', 'video/mp4', 1, to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       '2026-01-01T00:00:00Z'
     FROM generate_series(1, 50000) g`,
  );
  const planOf = (p: Partial<ListParameters>) => {
    const { sql, values } = listSql('brand', filterOf(p), PG_LIST);
    return postgres.plan(sql, values);
  };

  it.each<[string, Partial<ListParameters>]>([
    ['1 id', { id: ids(1) }],
    ['100 ids', { id: ids(100) }],
    ['100 ids, sorted by title', { id: ids(100), sort: 'title' }],
  ])('%s: by the primary key', async (_what, p) => {
    const plan = await planOf(p);
    expect(plan).toMatch(/Index (Only )?Scan (using|on) items_pkey/);
    expect(plan).not.toMatch(/Seq Scan on items|items_brand_/);
  });

  it('without ids the brand’s order index still serves the page', async () => {
    expect(await planOf({})).toMatch(/items_brand_order/);
  });

  it('idPrefix: a range of the primary key', async () => {
    const plan = await planOf({ idPrefix: ids(1)[0]!.slice(0, 8) });
    expect(plan).toMatch(/Index (Only )?Scan (using|on) items_pkey/);
    expect(plan).not.toMatch(/Seq Scan on items|items_brand_/);
  });
});
