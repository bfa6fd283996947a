// "Do you already have these?" (POST /api/v1/upload/check) finds a carousel's images by their
// checksum, never by walking the brand's items: joined the plain way, SQLite (which keeps no
// statistics) read every item of the brand and then each one's images, 394 ms for 500 checksums
// against a library of 111,000 items, 4 ms now. The plans are read from each database itself:
// SQLite's, and PostgreSQL's over 20,000 analysed carousels of one brand (which plans by its
// statistics); the answers are checked on both databases by the repository and check route tests.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checksumQueries } from '../../src/server/repo/checksums.js';
import { postgresPlans, sqlitePlans, statementOf } from '../support/query-plans.js';

const hashes = (n: number) => Array.from({ length: n }, () => randomUUID().replace(/-/g, '').repeat(2));

/** The held-files statement and its values, as the repository runs it. */
const heldStatement = (param: (n: number) => string, sha256s: string[]) =>
  statementOf(checksumQueries(param).held('brand', sha256s));

describe('the held-files query on SQLite', () => {
  const sqlite = sqlitePlans('held-files-plan');

  it.each([1, 500])('%i checksums: every part through a checksum index', (n) => {
    const { sql, values } = heldStatement((i) => `?${i}`, hashes(n));
    const plan = sqlite.plan(sql, values);
    expect(plan).toContain('SEARCH f USING INDEX carousel_files_sha256 (sha256=?)');
    expect(plan).toContain('SEARCH i USING INDEX sqlite_autoindex_items_1 (id=?)');
    expect(plan.some((d) => /items_sha256 \(brand_id=\? AND sha256=\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /items_thumbnail_sha256 \(brand_id=\? AND thumbnail_sha256=\?\)/.test(d))).toBe(true);
    // No part reads the brand's items by the brand alone.
    expect(plan.some((d) => /SEARCH i USING (COVERING )?INDEX \w+ \(brand_id=\?\)|SCAN (i|f)\b/.test(d))).toBe(false);
  });
});

describe('the held-files query on PostgreSQL', () => {
  const postgres = postgresPlans(
    'held_files_plan',
    `INSERT INTO brands (id, name, created_at) VALUES ('brand', 'acme', '2026-01-01T00:00:00Z');
     INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type,
       file_size, created_at, updated_at)
     SELECT 'item-' || g, 'brand', 'carousel', 'album ' || g, 'album ' || g, 'draft', 'k/' || g || '/0.jpg',
       '0.jpg', 'image/jpeg', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
     FROM generate_series(1, 20000) g;
     INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, created_at, sha256)
     SELECT 'file-' || g || '-' || n, 'item-' || g, 'k/' || g || '/' || n || '.jpg', n || '.jpg', 'image/jpeg', 1, n,
       '2026-01-01T00:00:00Z', md5(g || '-' || n) || md5(n || '-' || g)
     FROM generate_series(1, 20000) g, generate_series(0, 1) n`,
  );

  // PostgreSQL plans by its statistics: at this size 500 checksums are cheaper as one pass over
  // the images than as 500 lookups, which it takes at a library's real size; what is checked here
  // is that the statement leaves it the index to choose.
  it.each([1, 20])('%i checksums: the images found by their checksum', async (n) => {
    const { sql, values } = heldStatement((i) => `$${i}`, hashes(n));
    const plan = await postgres.plan(sql, values);
    expect(plan).toMatch(/Index (Only )?Scan (using|on) carousel_files_sha256/);
    expect(plan).not.toMatch(/Seq Scan on (items|carousel_files) (i|f)\b/);
  });
});
