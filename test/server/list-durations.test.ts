// A list with a duration range (src/server/repo/list-sql.ts, FEW_BY_DURATION): read through the
// brand's durations when few items fall in it, in the list's order when many do; either way, and on
// both databases, the pages hold exactly the brand's items in the range, in the asked order, by
// cursor and by offset. Which plan SQLite takes for each is list-plan.test.ts's.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/server/repo/interface.js';
import type { ListFilter } from '../../src/server/repo/list-filter.js';
import { FEW_BY_DURATION } from '../../src/server/repo/list-sql.js';
import { repoBackends } from '../support/repo-backends.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');

interface Seeded {
  id: string;
  brand: string;
  title: string;
  createdAt: string;
  duration: number | null;
}

/**
 * 1,500 items of brand b: carousels (no duration), clips of 5-64 s, and talks of 600-1,800 s, made a
 * minute apart, with titles in another order; and 100 of brand c with the same durations.
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
      duration,
    });
  }
  return out;
}

const ROWS = seeded();
const SEED = `INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '2026-01-01T00:00:00.000Z'),
    ('c', 'other', '2026-01-01T00:00:00.000Z');
  INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type, file_size,
      created_at, updated_at, description, hashtags, duration_seconds) VALUES
  ${ROWS.map(
    (r) =>
      `('${r.id}', '${r.brand}', '${r.duration === null ? 'carousel' : 'shortform'}', '${r.title}', '${r.title}', 'draft',
      'k/${r.id}', 'f.mp4', 'video/mp4', 1, '${r.createdAt}', '${r.createdAt}', '', '[]', ${r.duration ?? 'NULL'})`,
  ).join(',\n  ')};`;

const { backends } = repoBackends('list-durations', { max: 2, seed: SEED });

describe.each(backends)('a list with a duration range on %s', (_name, open) => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await open();
  }, 60_000);

  type Range = Pick<ListFilter, 'minDuration' | 'maxDuration'>;
  const expected = (range: Range, byTitle: boolean) =>
    ROWS.filter(
      (r) =>
        r.brand === 'b' &&
        r.duration !== null &&
        (range.minDuration === undefined || r.duration >= range.minDuration) &&
        (range.maxDuration === undefined || r.duration <= range.maxDuration),
    )
      .sort((a, b) => (byTitle ? a.title.localeCompare(b.title) : b.createdAt.localeCompare(a.createdAt)))
      .map((r) => r.id);
  const filter = (range: Range, byTitle: boolean, limit: number): ListFilter => ({
    ...range,
    sort: byTitle ? 'title' : 'createdAt',
    order: byTitle ? 'asc' : 'desc',
    limit,
    offset: 0,
  });

  const RANGES: Array<[string, Range]> = [
    ['none in it', { minDuration: 5000 }],
    // Each bound the duration of some item, so that >= and <= are told from > and <.
    ['a few (talks from the first one on)', { minDuration: 605.25 }],
    ['a few at one duration', { minDuration: 21, maxDuration: 21 }],
    ['most (clips from 6 s, and the talks)', { minDuration: 6 }],
    ['most, under a maximum', { maxDuration: 64 }],
  ];

  it('the ranges fall on both sides of FEW_BY_DURATION', () => {
    expect(expected(RANGES[1]![1], false).length).toBeLessThanOrEqual(FEW_BY_DURATION);
    expect(expected(RANGES[3]![1], false).length).toBeGreaterThan(FEW_BY_DURATION);
  });

  it.each(RANGES.flatMap(([what, range]) => [true, false].map((byTitle) => [what, range, byTitle] as const)))(
    '%s (by title: %s): every item in it, in order, page by page by cursor',
    async (_what, range, byTitle) => {
      const ids: string[] = [];
      let f = filter(range, byTitle, 97);
      for (;;) {
        const page = await repo.listItems('b', f);
        ids.push(...page.items.map((i) => i.id));
        if (!page.hasMore) break;
        f = { ...f, after: page.next! };
      }
      expect(ids).toEqual(expected(range, byTitle));
    },
  );

  it.each([true, false])('most, by offset deep into them (by title: %s)', async (byTitle) => {
    const range = { minDuration: 6 };
    const page = await repo.listItems('b', { ...filter(range, byTitle, 50), offset: 1100 });
    expect(page.items.map((i) => i.id)).toEqual(expected(range, byTitle).slice(1100, 1150));
  });
});
