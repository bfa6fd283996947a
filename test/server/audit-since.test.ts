// The audit log since a time (src/server/repo/audit.ts, FEW_ROWS of few-rows.ts): a brand-wide `since` is read
// by time when few entries are newer and by walking the brand's entries newest first when many
// are; either way, and on both databases, the pages hold exactly the brand's entries at or after
// the time, newest first, across cursors, with some entries' times out of order (a clock set back).
// Which plan SQLite takes for each is scale-plan.test.ts's.
import { beforeAll, describe, expect, it } from 'vitest';
import { FEW_ROWS } from '../../src/server/repo/few-rows.js';
import type { Repo } from '../../src/server/repo/interface.js';
import { repoBackends } from '../support/repo-backends.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;

interface Seeded {
  brand: string;
  at: string;
}

/** 2,600 entries of brand b a minute apart (every 100th set 3 hours back), and 300 of brand c among them. */
function seeded(): Seeded[] {
  const out: Seeded[] = [];
  for (let i = 0; i < 2600; i++) {
    const skewed = i % 100 === 50 ? -180 * MINUTE : 0;
    out.push({ brand: 'b', at: new Date(START + i * MINUTE + skewed).toISOString() });
    if (i % 9 === 0 && out.length < 2900) out.push({ brand: 'c', at: new Date(START + i * MINUTE).toISOString() });
  }
  return out;
}

const ROWS = seeded();
const SEED = `INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '2026-01-01T00:00:00.000Z'),
    ('c', 'other', '2026-01-01T00:00:00.000Z');
  INSERT INTO audit_log (at, brand_id, action, item_id, key_id, key_name, request_id, details) VALUES
  ${ROWS.map((r, i) => `('${r.at}', '${r.brand}', 'item.updated', 'item-${i % 40}', 'k', 'CI', 'req-${i}', '{}')`).join(',\n  ')};`;

/** The ids (1-based, in insertion order) the brand's entries at or after `since` have, newest first. */
function expected(since: string): number[] {
  return ROWS.map((r, i) => ({ ...r, id: i + 1 }))
    .filter((r) => r.brand === 'b' && r.at >= since)
    .map((r) => r.id)
    .reverse();
}

/** `since` with `newer` of brand b's entries at or after it (the skewed ones aside). */
const sinceFor = (newer: number) => new Date(START + (2600 - newer) * MINUTE).toISOString();

const { backends } = repoBackends('audit-since', { max: 2, seed: SEED });

describe.each(backends)('the audit log since a time on %s', (_name, open) => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await open();
  }, 60_000);

  const allPages = async (since: string, limit: number) => {
    const ids: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await repo.listAudit('b', { since, limit, ...(before !== undefined ? { before } : {}) });
      ids.push(...page.entries.map((e) => e.id));
      for (const e of page.entries) expect(e.brandId).toBe('b');
      if (!page.hasMore) return ids;
      before = page.entries.at(-1)!.id;
    }
  };

  it.each([
    ['none newer', 0, 10],
    ['a few newer, read by time', 20, 7],
    ['FEW_ROWS newer, read by time', FEW_ROWS - 10, 100],
    ['just over FEW_ROWS, walked newest first', FEW_ROWS + 40, 100],
    ['most of them, walked newest first', 2400, 500],
  ])('%s: every entry at or after it, newest first, page by page', async (_what, newer, limit) => {
    const since = sinceFor(newer);
    const want = expected(since);
    expect(await allPages(since, limit)).toEqual(want);
  });

  it('a cursor deep in a long walk: the pages after it as the whole list has them', async () => {
    const since = sinceFor(2400);
    const want = expected(since);
    const cursor = want[2000]!;
    const page = await repo.listAudit('b', { since, limit: 50, before: cursor });
    expect(page.entries.map((e) => e.id)).toEqual(want.slice(2001, 2051));
  });
});
