// API keys, users and brands on PostgreSQL: the queries of ../keys.ts in PostgreSQL's words. Only
// a SHA-256 of each key is stored; a key is found by its hash, compared in constant time.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { type Caller, KEY_PATTERN, type KeyRow, hashKey, newKeyRow, newKeySecret } from '../keys.js';
import type { Query, Transaction } from './query.js';

export function pgKeys(query: Query, transaction: Transaction) {
  /** The caller a presented key belongs to, or null for a malformed, unknown or revoked key. */
  async function authenticate(key: string): Promise<Caller | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const { rows } = await query<{ keyId: string; hash: Buffer; userId: string; brandId: string }>(
      `SELECT k.id AS "keyId", k.key_hash AS hash, u.id AS "userId", u.brand_id AS "brandId"
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [digest],
    );
    const row = rows[0];
    if (!row || !timingSafeEqual(row.hash, digest)) return null;
    return { keyId: row.keyId, userId: row.userId, brandId: row.brandId };
  }

  /** A new key for a new user of `brandName`, creating the brand when it does not exist yet. */
  async function create(brandName: string, now: Date) {
    const key = newKeySecret();
    const at = now.toISOString();
    return transaction(async (q) => {
      // Two instances creating the first key of a brand together make one brand.
      await q('INSERT INTO brands (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
        randomUUID(),
        brandName,
        at,
      ]);
      const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE name = $1', [brandName]);
      const brandId = rows[0]!.id;
      const userId = randomUUID();
      await q('INSERT INTO users (id, brand_id, created_at) VALUES ($1, $2, $3)', [userId, brandId, at]);
      const row = newKeyRow(userId, key, at);
      await q('INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5)', row);
      const id = row[0];
      return { id, key, brand: brandName, userId };
    });
  }

  async function list(): Promise<KeyRow[]> {
    const { rows } = await query<KeyRow>(
      `SELECT k.id, b.name AS brand, u.id AS "userId", k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.prefix
         FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id
        ORDER BY k.created_at, k.id`,
    );
    return rows;
  }

  /** True when the key existed and was active; revoking twice or an unknown id gives false. */
  async function revoke(id: string, now: Date): Promise<boolean> {
    const res = await query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
      now.toISOString(),
      id,
    ]);
    return res.rowCount === 1;
  }

  return { authenticate, create, list, revoke };
}
