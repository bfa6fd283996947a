// Presign's holdings never read the brand's every upload (issue 41): what stays held is the
// brand's count (src/server/repo/held-bytes.ts), and the rest is read through the indexes of the
// rows not yet stored. The plans are read from SQLite itself, on a database holding many stored
// uploads of the brand (the plan must not change with them); the answers are checked by
// held-bytes.test.ts and the repository tests on both databases.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingsParams, holdingsSql } from '../../src/server/repo/reservations.js';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { reservationLimits } from '../../src/server/limits.js';
import type { Database } from '../../src/sqlite/database.js';

const AT = '2026-01-01T00:00:00.000Z';
const NOW_MS = Date.parse(AT);

describe("presign's holdings query on SQLite", () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'holdings-plan-'));
    db = openDatabase(dir);
    db.prepare('INSERT INTO brands (id, name, created_at) VALUES (?, ?, ?)').run('b', 'acme', AT);
    db.prepare('INSERT INTO users (id, brand_id, created_at) VALUES (?, ?, ?)').run('u', 'b', AT);
    const insert = db.prepare(
      `INSERT INTO uploads (key, file_id, brand_id, user_id, file_name, content_type, file_size, type,
         expires_at, created_at, stored_at, key_id) VALUES (?, ?, 'b', 'u', 'a.jpg', 'image/jpeg', 10, 'carousel', ?, ?, ?, 'k')`,
    );
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(randomUUID(), randomUUID(), NOW_MS + 3600_000, AT, AT);
    }).immediate();
  });
  afterAll(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the reservations through the indexes of the rows not yet stored, never the brand’s uploads', () => {
    const plan = (
      db
        .prepare(`EXPLAIN QUERY PLAN ${holdingsSql('sqlite')}`)
        .all(holdingsParams('b', 'k', NOW_MS, reservationLimits(1e9))) as Array<{ detail: string }>
    ).map((r) => r.detail);
    expect(plan.some((d) => /USING INDEX uploads_reserved_brand \(brand_id=\? AND created_at>\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /USING INDEX uploads_reserved_key \(key_id=\? AND expires_at>\?\)/.test(d))).toBe(true);
    expect(plan.some((d) => /SCAN uploads|uploads_brand\b/.test(d))).toBe(false);
  });

  it('counts the 2,000 stored uploads from the brand’s row', () => {
    expect(db.prepare(holdingsSql('sqlite')).get(holdingsParams('b', 'k', NOW_MS, reservationLimits(1e9)))).toEqual({
      brandBytes: 20_000,
      thumbnailBytes: 0,
      keyBytes: 0,
      keyUploads: 0,
      keyFirstExpiry: null,
    });
  });
});
