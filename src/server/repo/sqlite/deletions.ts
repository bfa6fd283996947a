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

  function all(among?: readonly string[]): string[] {
    const only = among === undefined ? '' : `WHERE object_key IN (${among.map(() => '?').join(', ') || 'NULL'})`;
    return (
      db
        .prepare(`SELECT object_key AS key FROM pending_deletions ${only} ORDER BY created_at`)
        .all(...(among ?? [])) as Array<{
        key: string;
      }>
    ).map((r) => r.key);
  }

  /**
   * Up to `limit` keys no other sweep of this process holds, each leased for `leaseSeconds`. Only
   * the oldest `limit` plus those leased are read (pending_deletions_created): after a store's
   * outage the queue may hold many thousands, and reading it whole for every batch of a drain
   * held the server 134 ms twice a batch at 100,000.
   */
  function claim(limit: number, leaseSeconds: number): string[] {
    const now = Date.now();
    const oldest = (
      db
        .prepare('SELECT object_key AS key FROM pending_deletions ORDER BY created_at LIMIT ?')
        .all(limit + leases.size) as Array<{ key: string }>
    ).map((r) => r.key);
    const claimed = oldest.filter((key) => (leases.get(key) ?? 0) <= now).slice(0, limit);
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
