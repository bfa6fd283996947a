// The queries that read a whole table, or the brand's every item, however little they found, read
// through the indexes of ./src/server/repo/scale-indexes.ts (issue 41): the previews still wanted
// (asked after every complete), the checksums and media facts still missing (the sweeper, every
// 10 minutes), the audit log of one key and since a time. SQLite's plans are read from SQLite itself (it keeps no
// statistics, so they do not depend on the rows); the previews' answer, whose statement changed
// with them, is checked on both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { type AuditFilter, auditQueries } from '../../src/server/repo/audit.js';
import { FEW_ROWS } from '../../src/server/repo/few-rows.js';
import { checksumQueries } from '../../src/server/repo/checksums.js';
import { mediaQueries } from '../../src/server/repo/media.js';
import { previewQueries } from '../../src/server/repo/previews.js';
import type { Repo } from '../../src/server/repo/interface.js';
import { sqlitePlans, statementAfter, statementOf } from '../support/query-plans.js';
import { repoBackends } from '../support/repo-backends.js';

const sqliteParam = (n: number) => `?${n}`;

describe('the library-scale queries’ plans on SQLite', () => {
  const sqlite = sqlitePlans('scale-plan');
  const planOf = ({ sql, values }: { sql: string; values: unknown[] }) => sqlite.plan(sql, values);
  // A scan is only ever of a partial index, which holds just the rows still wanted.
  const noScan = (plan: string[]) =>
    expect(
      plan.filter(
        (d) => /^SCAN (items|carousel_files|audit_log)\b/.test(d) && !/USING INDEX \w+_(wanted|missing)$/.test(d),
      ),
    ).toEqual([]);

  it.each([true, false])('previews wanted (video frames: %s): each side through its partial index', (videos) => {
    const plan = planOf(statementOf(previewQueries(sqliteParam).missing(20, videos)));
    expect(plan.some((d) => /USING INDEX items_preview_wanted\b/.test(d))).toBe(true);
    expect(plan.some((d) => /USING INDEX carousel_files_preview_wanted\b/.test(d))).toBe(true);
    noScan(plan);
  });

  it('checksums missing: the items’ files and thumbnails through their partial indexes', () => {
    const plan = planOf(statementOf(checksumQueries(sqliteParam).missing(50)));
    expect(plan.some((d) => /items_sha256_missing\b/.test(d))).toBe(true);
    expect(plan.some((d) => /items_thumbnail_sha256_missing\b/.test(d))).toBe(true);
    noScan(plan);
  });

  it('media facts missing: through their partial indexes', () => {
    const plan = planOf(statementOf(mediaQueries(sqliteParam).missing(50)));
    expect(plan.some((d) => /items_media_missing\b/.test(d))).toBe(true);
    expect(plan.some((d) => /carousel_files_media_missing\b/.test(d))).toBe(true);
    noScan(plan);
  });

  it('the audit log of one key: by brand and key, newest first', () => {
    const plan = planOf(statementOf(auditQueries(sqliteParam).page('b', { keyId: 'k', limit: 50 })));
    expect(plan.some((d) => /audit_brand_key \(brand_id=\? AND key_id=\?\)/.test(d))).toBe(true);
    noScan(plan);
  });

  describe('the audit log since a time, brand-wide: a probe, then the plan for what it counted', () => {
    const since = { since: '2026-01-01T00:00:00.000Z', limit: 50 };
    const pageAfter = (count: number, f: AuditFilter = since) => {
      const steps = auditQueries(sqliteParam).page('b', f);
      const probe = statementOf(steps);
      return { probe: planOf(probe), page: planOf(statementAfter(steps, [{ n: count }])) };
    };
    it('the probe counts through the brand’s entries by time, at most FEW_ROWS + 1 of them', () => {
      expect(pageAfter(0).probe.some((d) => /COVERING INDEX audit_brand_at \(brand_id=\? AND at>\?\)/.test(d))).toBe(
        true,
      );
      noScan(pageAfter(0).probe);
    });
    it.each([0, FEW_ROWS])('%s newer: read by time and sorted (a few rows)', (count) => {
      const { page } = pageAfter(count);
      expect(page.some((d) => /audit_brand_at \(brand_id=\? AND at>\?\)/.test(d))).toBe(true);
      noScan(page);
    });
    it.each([FEW_ROWS + 1])('%s newer: the brand’s entries newest first, no sort', (count) => {
      const { page } = pageAfter(count);
      expect(page.some((d) => /USING INDEX audit_brand \(brand_id=\?\)/.test(d))).toBe(true);
      expect(page.filter((d) => /TEMP B-TREE/.test(d))).toEqual([]);
      noScan(page);
    });
    it('with a cursor, the probe counts only entries older than it', () => {
      const steps = auditQueries(sqliteParam).page('b', { ...since, before: 99 });
      expect(statementOf(steps).sql).toMatch(/id < \?3/);
    });
    it.each([
      ['key', { keyId: 'k' }, /audit_brand_key \(brand_id=\? AND key_id=\?\)/],
      ['item', { itemId: 'i' }, /audit_item \(item_id=\?\)/],
      ['batch', { batchId: 'x' }, /audit_batch \(brand_id=\? AND batch_id=\?\)/],
    ])('with a %s named, no probe: its own index, as without the time', (_what, named, index) => {
      const plan = planOf(statementOf(auditQueries(sqliteParam).page('b', { ...since, ...named })));
      expect(plan.some((d) => index.test(d))).toBe(true);
      expect(plan.some((d) => /audit_brand_at/.test(d))).toBe(false);
      noScan(plan);
    });
  });
});

const AT = (day: number) => `2026-01-0${day}T00:00:00.000Z`;
/** Videos and a carousel's images, some wanting a preview: one text for both databases. */
const ROWS = `
  INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '${AT(1)}');
  INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type, file_size,
      created_at, updated_at, thumbnail_key, preview_key, preview_tries) VALUES
    ('v1', 'b', 'shortform', 'v1', 'v1', 'draft', 'k/v1.mp4', 'v1.mp4', 'video/mp4', 1, '${AT(1)}', '${AT(1)}', NULL, NULL, 0),
    ('v5', 'b', 'shortform', 'v5', 'v5', 'draft', 'k/v5.mp4', 'v5.mp4', 'video/mp4', 1, '${AT(2)}', '${AT(2)}', 'k/v5.jpg', NULL, 2),
    ('v4', 'b', 'longform', 'v4', 'v4', 'draft', 'k/v4.mp4', 'v4.mp4', 'video/mp4', 1, '${AT(4)}', '${AT(4)}', NULL, NULL, 0),
    ('v2', 'b', 'shortform', 'v2', 'v2', 'draft', 'k/v2.mp4', 'v2.mp4', 'video/mp4', 1, '${AT(5)}', '${AT(5)}', NULL, 'p/v2.jpg', 0),
    ('v3', 'b', 'shortform', 'v3', 'v3', 'draft', 'k/v3.mp4', 'v3.mp4', 'video/mp4', 1, '${AT(7)}', '${AT(7)}', NULL, NULL, 3),
    ('c', 'b', 'carousel', 'c', 'c', 'draft', 'k/f1.jpg', 'f1.jpg', 'image/jpeg', 1, '${AT(8)}', '${AT(8)}', NULL, NULL, 0);
  INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, created_at,
      preview_key, preview_tries) VALUES
    ('f1', 'c', 'k/f1.jpg', 'f1.jpg', 'image/jpeg', 1, 0, '${AT(6)}', NULL, 0),
    ('f2', 'c', 'k/f2.jpg', 'f2.jpg', 'image/jpeg', 1, 1, '${AT(3)}', NULL, 2),
    ('f3', 'c', 'k/f3.jpg', 'f3.jpg', 'image/jpeg', 1, 2, '${AT(9)}', 'p/f3.jpg', 0),
    ('f4', 'c', 'k/f4.jpg', 'f4.jpg', 'image/jpeg', 1, 3, '${AT(9)}', NULL, 3);`;

const { backends } = repoBackends('scale-plan', { max: 2, seed: ROWS });

describe.each(backends)('the previews wanted on %s', (_name, open) => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await open();
  }, 60_000);

  it('newest first across videos and images; none made, none failed for good; the limit holds', async () => {
    const ids = async (limit: number, videos: boolean) => (await repo.missingPreviews(limit, videos)).map((m) => m.id);
    expect(await ids(20, true)).toEqual(['f1', 'v4', 'f2', 'v5', 'v1']);
    expect(await ids(3, true)).toEqual(['f1', 'v4', 'f2']);
    expect(await ids(1, true)).toEqual(['f1']);
    // Without video frames, only the videos with a thumbnail.
    expect(await ids(20, false)).toEqual(['f1', 'f2', 'v5']);
  });

  it('says what each is made from', async () => {
    const found = await repo.missingPreviews(20, true);
    expect(found.find((m) => m.id === 'v5')).toEqual({
      role: 'video',
      id: 'v5',
      key: 'k/v5.mp4',
      contentType: 'video/mp4',
      durationSeconds: null,
      thumbnailKey: 'k/v5.jpg',
    });
    expect(found.find((m) => m.id === 'f2')).toEqual({
      role: 'image',
      id: 'f2',
      key: 'k/f2.jpg',
      contentType: 'image/jpeg',
      durationSeconds: null,
      thumbnailKey: null,
    });
  });
});
