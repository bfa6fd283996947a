// Objects waiting to be removed from the store, on SQLite. A key is recorded in the same
// transaction that drops its database rows, so an object is never forgotten: the sweeper retries
// until it is gone. One server owns a data dir, so a claim's lease only has to keep this
// process's other sweeps off the key: it is kept in memory.
import type { Db } from './db.js';

export function sqliteDeletions(db: Db) {
  const leases = new Map<string, number>();

  function add(keys: readonly string[], at: string): void {
    const insert = db.prepare('INSERT OR IGNORE INTO pending_deletions (object_key, created_at) VALUES (?, ?)');
    for (const key of keys) insert.run(key, at);
  }

  function all(): string[] {
    return (
      db.prepare('SELECT object_key AS key FROM pending_deletions ORDER BY created_at').all() as Array<{ key: string }>
    ).map((r) => r.key);
  }

  /** Up to `limit` keys no other sweep of this process holds, each leased for `leaseSeconds`. */
  function claim(limit: number, leaseSeconds: number): string[] {
    const now = Date.now();
    const claimed = all()
      .filter((key) => (leases.get(key) ?? 0) <= now)
      .slice(0, limit);
    for (const key of claimed) leases.set(key, now + leaseSeconds * 1000);
    return claimed;
  }

  function done(key: string): void {
    db.prepare('DELETE FROM pending_deletions WHERE object_key = ?').run(key);
    leases.delete(key);
  }

  function failed(key: string, error: string): void {
    db.prepare('UPDATE pending_deletions SET attempts = attempts + 1, last_error = ? WHERE object_key = ?').run(
      error,
      key,
    );
    leases.delete(key);
  }

  return { add, claim, done, failed, all };
}
