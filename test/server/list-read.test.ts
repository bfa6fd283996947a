// A list with a narrow condition (src/server/repo/list-read.ts, FEW_ROWS of few-rows.ts): who made or changed
// the items, or a duration range, read through its own index when few items meet it and in the
// list's order when many do; either way, and on both databases, the pages hold exactly the brand's
// items that meet the filter, in the asked order, by cursor and by offset. Which plan SQLite takes
// for each is list-plan.test.ts's.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/server/repo/interface.js';
import type { ListFilter } from '../../src/server/repo/list-filter.js';
import { FEW_ROWS } from '../../src/server/repo/few-rows.js';
import { repoBackends } from '../support/repo-backends.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');

interface Seeded {
  id: string;
  brand: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  duration: number | null;
  /** The keys that made it and changed it last. */
  createdBy: string;
  updatedBy: string;
}

/**
 * 1,500 items of brand b: carousels (no duration), clips of 5-64 s, and talks of 600-1,800 s, made a
 * minute apart, changed in another order, with titles in a third; made by CI but 1 in 50 by a
 * person, changed last by CI but 1 in 75 by an editor; and 100 of brand c with the same.
 */
function seeded(): Seeded[] {
  const out: Seeded[] = [];
  for (let i = 0; i < 1600; i++) {
    const duration = i % 10 === 0 ? null : i % 50 === 7 ? 600 + i * 0.75 : 5 + (i % 60);
    out.push({
      id: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
      brand: i < 1500 ? 'b' : 'c',
      title: `item ${((i * 7919) % 1600).toString().padStart(4, '0')}`,
      createdAt: new Date(START + i * 60_000).toISOString(),
      updatedAt: new Date(START + ((i * 37) % 1600) * 60_000 + 30_000).toISOString(),
      duration,
      createdBy: i % 50 === 3 ? 'k-person' : 'k-ci',
      updatedBy: i % 75 === 4 ? 'k-editor' : 'k-ci',
    });
  }
  return out;
}

const ROWS = seeded();
const AT = '2026-01-01T00:00:00.000Z';
const key = (id: string, name: string, n: number) =>
  `INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at, name, scopes) VALUES ('${id}', 'u', '${n}', 'cl_${n}', '${AT}', '${name}', '');`;
const SEED = `INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '${AT}'), ('c', 'other', '${AT}');
  INSERT INTO users (id, brand_id, created_at) VALUES ('u', 'b', '${AT}');
  ${key('k-ci', 'ci', 1)} ${key('k-person', 'person', 2)} ${key('k-editor', 'editor', 3)}
  INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type, file_size,
      created_at, updated_at, description, hashtags, duration_seconds, created_by_key_id, updated_by_key_id) VALUES
  ${ROWS.map(
    (r) =>
      `('${r.id}', '${r.brand}', '${r.duration === null ? 'carousel' : 'shortform'}', '${r.title}', '${r.title}', 'draft',
      'k/${r.id}', 'f.mp4', 'video/mp4', 1, '${r.createdAt}', '${r.updatedAt}', '', '[]', ${r.duration ?? 'NULL'},
      '${r.createdBy}', '${r.updatedBy}')`,
  ).join(',\n  ')};`;

const { backends } = repoBackends('list-read', { max: 2, seed: SEED });

describe.each(backends)('a list by who made or changed its items, or by a duration range, on %s', (_name, open) => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await open();
  }, 60_000);

  type Narrow = Pick<ListFilter, 'minDuration' | 'maxDuration' | 'createdBy' | 'updatedBy'>;
  type Order = 'createdAt' | 'updatedAt' | 'title';
  const expected = (n: Narrow, order: Order) =>
    ROWS.filter(
      (r) =>
        r.brand === 'b' &&
        (n.createdBy === undefined || r.createdBy === `k-${n.createdBy}`) &&
        (n.updatedBy === undefined || r.updatedBy === `k-${n.updatedBy}`) &&
        (n.minDuration === undefined || (r.duration !== null && r.duration >= n.minDuration)) &&
        (n.maxDuration === undefined || (r.duration !== null && r.duration <= n.maxDuration)),
    )
      .sort((a, b) =>
        order === 'title'
          ? a.title.localeCompare(b.title)
          : order === 'updatedAt'
            ? b.updatedAt.localeCompare(a.updatedAt)
            : b.createdAt.localeCompare(a.createdAt),
      )
      .map((r) => r.id);
  const filter = (n: Narrow, order: Order, limit: number): ListFilter => ({
    ...n,
    sort: order,
    order: order === 'title' ? 'asc' : 'desc',
    limit,
    offset: 0,
  });

  const CASES: Array<[string, Narrow]> = [
    ['no duration in it', { minDuration: 5000 }],
    // Each bound the duration of some item, so that >= and <= are told from > and <.
    ['a few durations (talks from the first one on)', { minDuration: 605.25 }],
    ['a few at one duration', { minDuration: 21, maxDuration: 21 }],
    ['most durations (clips from 6 s, and the talks)', { minDuration: 6 }],
    ['most durations, under a maximum', { maxDuration: 64 }],
    ['a key that made a few', { createdBy: 'person' }],
    ['a key that changed a few last', { updatedBy: 'editor' }],
    ['a key that made most', { createdBy: 'ci' }],
    ['a key of a few, with most durations', { createdBy: 'person', minDuration: 6 }],
    ['a key of most, with a few durations', { createdBy: 'ci', minDuration: 605.25 }],
    ['a key of most, with most durations', { createdBy: 'ci', minDuration: 6 }],
  ];

  it('the cases fall on both sides of FEW_ROWS', () => {
    const sizes = Object.fromEntries(CASES.map(([what, n]) => [what, expected(n, 'createdAt').length]));
    for (const few of [
      'a few durations (talks from the first one on)',
      'a key that made a few',
      'a key that changed a few last',
    ]) {
      expect(sizes[few]).toBeGreaterThan(10);
      expect(sizes[few]).toBeLessThanOrEqual(FEW_ROWS);
    }
    for (const many of [
      'most durations (clips from 6 s, and the talks)',
      'a key that made most',
      'a key of most, with most durations',
    ])
      expect(sizes[many]).toBeGreaterThan(FEW_ROWS);
  });

  it.each(
    CASES.flatMap(([what, n]) =>
      (['createdAt', 'updatedAt', 'title'] as const).map((order) => [what, order, n] as const),
    ),
  )('%s, by %s: every item that meets it, in order, page by page by cursor', async (_what, order, n) => {
    const ids: string[] = [];
    let f = filter(n, order, 97);
    for (;;) {
      const page = await repo.listItems('b', f);
      ids.push(...page.items.map((i) => i.id));
      if (!page.hasMore) break;
      f = { ...f, after: page.next! };
    }
    expect(ids).toEqual(expected(n, order));
  });

  it.each(['createdAt', 'updatedAt', 'title'] as const)('most, by offset deep into them (by %s)', async (order) => {
    const n = { createdBy: 'ci', minDuration: 6 };
    const page = await repo.listItems('b', { ...filter(n, order, 50), offset: 1050 });
    expect(page.items.map((i) => i.id)).toEqual(expected(n, order).slice(1050, 1100));
  });
});
