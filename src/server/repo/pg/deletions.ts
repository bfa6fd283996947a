// Objects waiting to be removed from storage, on PostgreSQL. A key is recorded in the same
// transaction that drops its rows; instances claim them with FOR UPDATE SKIP LOCKED and a lease
// on the database's clock, so each object is deleted by one instance at a time.
import type { Query } from './query.js';

export function pgDeletions(q: Query) {
  async function add(keys: readonly string[], at: string): Promise<void> {
    if (keys.length === 0) return;
    await q(
      `INSERT INTO pending_deletions (object_key, created_at) SELECT k, $2 FROM unnest($1::text[]) AS k
       ON CONFLICT (object_key) DO NOTHING`,
      [keys, at],
    );
  }

  async function claim(limit: number, leaseSeconds: number): Promise<string[]> {
    const { rows } = await q<{ key: string }>(
      `UPDATE pending_deletions SET leased_until = now() + make_interval(secs => $2)
        WHERE object_key IN (
          SELECT object_key FROM pending_deletions
           WHERE leased_until IS NULL OR leased_until < now()
           ORDER BY created_at LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING object_key AS key`,
      [limit, leaseSeconds],
    );
    return rows.map((r) => r.key);
  }

  async function done(key: string): Promise<void> {
    await q('DELETE FROM pending_deletions WHERE object_key = $1', [key]);
  }

  /** Releases the claim and records the error; the next sweep retries. */
  async function failed(key: string, error: string): Promise<void> {
    await q(
      'UPDATE pending_deletions SET attempts = attempts + 1, last_error = $1, leased_until = NULL WHERE object_key = $2',
      [error, key],
    );
  }

  async function all(among?: readonly string[]): Promise<string[]> {
    const { rows } =
      among === undefined
        ? await q<{ key: string }>('SELECT object_key AS key FROM pending_deletions ORDER BY created_at')
        : await q<{ key: string }>(
            'SELECT object_key AS key FROM pending_deletions WHERE object_key = ANY($1::text[]) ORDER BY created_at',
            [among],
          );
    return rows.map((r) => r.key);
  }

  return { add, claim, done, failed, all };
}
