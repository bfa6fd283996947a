// Objects waiting to be removed from the store, on SQLite. A key is recorded in the same transaction that drops
// its database rows, so an object is never forgotten: the sweeper retries until it is gone.
import type { Db } from './db.js';

export function sqliteDeletions(db: Db) {
  function add(keys: readonly string[], at: string): void {
    const insert = db.prepare('INSERT OR IGNORE INTO pending_deletions (object_key, created_at) VALUES (?, ?)');
    for (const key of keys) insert.run(key, at);
  }

  function done(key: string): void {
    db.prepare('DELETE FROM pending_deletions WHERE object_key = ?').run(key);
  }

  function failed(key: string, error: string): void {
    db.prepare('UPDATE pending_deletions SET attempts = attempts + 1, last_error = ? WHERE object_key = ?').run(
      error,
      key,
    );
  }

  function all(): string[] {
    return (
      db.prepare('SELECT object_key AS key FROM pending_deletions ORDER BY created_at').all() as Array<{ key: string }>
    ).map((r) => r.key);
  }

  return { add, done, failed, all };
}
