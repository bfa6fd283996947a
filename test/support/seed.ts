// Many items in a test server's library at once, for tests of paging: rows written straight
// into the server's SQLite database in one transaction (the columns `completion` writes for a
// shortform; listing reads no object). Ten thousand take well under a second, where the API's
// presign → PUT → complete, or one transaction per item, would take a minute.
import { createHash, randomUUID } from 'node:crypto';
import { openDatabase } from '../../src/server/repo/sqlite/db.js';
import { sqliteItems } from '../../src/server/repo/sqlite/items.js';
import { sqliteKeys } from '../../src/server/repo/sqlite/repo.js';

/** `n` draft shortforms of the key's brand titled T0…T(n-1), T0 oldest; returns their ids newest first. */
export function seedItems(dataDir: string, apiKey: string, n: number): string[] {
  const db = openDatabase(dataDir);
  try {
    const caller = sqliteKeys(db).authenticate(apiKey);
    if (!caller) throw new Error('seedItems: the key is not one of this library');
    const items = sqliteItems(db);
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const ids = Array.from({ length: n }, () => randomUUID());
    db.transaction(() => {
      ids.forEach((id, i) =>
        items.create({
          id,
          brandId: caller.brandId,
          type: 'shortform',
          title: `T${i}`,
          fileKey: `${caller.userId}/${randomUUID()}/t${i}.mp4`,
          fileName: `t${i}.mp4`,
          contentType: 'video/mp4',
          fileSize: 1000,
          durationSeconds: 10,
          // Not the hash of any bytes (there are none): rows the sweeper's backfill leaves alone.
          sha256: createHash('sha256').update(id).digest('hex'),
          media: null,
          createdAt: new Date(start + i * 1000).toISOString(),
        }),
      );
    })();
    return ids.reverse();
  } finally {
    db.close();
  }
}
