// API keys, users and brands on PostgreSQL: the queries of ../keys.ts in PostgreSQL's words, over
// a Query that is the pool or one transaction's connection. Only a SHA-256 of each key is stored;
// a key is found by its hash, compared in constant time. Making and revoking a key are decided in
// ../key-changes.ts.
import { randomUUID } from 'node:crypto';
import {
  type BrandRef,
  KEY_BY_HASH,
  KEY_PATTERN,
  KEY_ROW_SELECT,
  type KeyRecord,
  type KeyRow,
  NEW_KEY_COLUMNS,
  type NewKeyRow,
  type RawKeyRecord,
  type RawKeyRow,
  hashKey,
  newKeyValues,
  toKeyRecord,
  toKeyRow,
} from '../keys.js';
import type { Query } from './query.js';

export function pgKeys(q: Query) {
  /** The stored key a presented one is (revoked and expired too), or null for a malformed or unknown key. */
  async function authenticate(key: string): Promise<KeyRecord | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const { rows } = await q<RawKeyRecord>(`${KEY_BY_HASH} WHERE k.key_hash = $1`, [digest]);
    return toKeyRecord(rows[0], digest);
  }

  /** Records a use, unless one was recorded after `notAfter` (a busy key writes once a minute). */
  async function touch(id: string, at: string, notAfter: string): Promise<void> {
    await q('UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [
      at,
      id,
      notAfter,
    ]);
  }

  async function row(id: string): Promise<KeyRow | null> {
    const { rows } = await q<RawKeyRow>(`${KEY_ROW_SELECT} WHERE k.id = $1`, [id]);
    return rows[0] ? toKeyRow(rows[0]) : null;
  }

  /** Every key (of one brand when given), oldest first. */
  async function list(brandId?: string): Promise<KeyRow[]> {
    const where = brandId === undefined ? '' : 'WHERE b.id = $1';
    const { rows } = await q<RawKeyRow>(
      `${KEY_ROW_SELECT} ${where} ORDER BY k.created_at, k.id`,
      brandId === undefined ? [] : [brandId],
    );
    return rows.map(toKeyRow);
  }

  /** The brand's id: by name (made when new; two instances making it at once make one), or checked to exist. */
  async function brandOf(brand: BrandRef, at: string): Promise<string | null> {
    if (typeof brand !== 'string') {
      const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE id = $1', [brand.id]);
      return rows[0]?.id ?? null;
    }
    await q('INSERT INTO brands (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
      randomUUID(),
      brand,
      at,
    ]);
    const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE name = $1', [brand]);
    return rows[0]!.id;
  }

  async function insertUser(id: string, brandId: string, at: string): Promise<void> {
    await q('INSERT INTO users (id, brand_id, created_at) VALUES ($1, $2, $3)', [id, brandId, at]);
  }

  async function insertKey(k: NewKeyRow): Promise<void> {
    const values = newKeyValues(k);
    await q(
      `INSERT INTO api_keys (${NEW_KEY_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
  }

  /**
   * Locks the brand's row until the transaction ends (call inside one): two presigns of one brand
   * cannot both fit the last bytes of its quota, two admins revoking each other's keys at once
   * cannot both succeed.
   */
  async function lockBrand(brandId: string): Promise<void> {
    await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [brandId]);
  }

  async function markRevoked(id: string, at: string): Promise<void> {
    await q('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [at, id]);
  }

  return { authenticate, touch, row, list, brandOf, insertUser, insertKey, lockBrand, markRevoked };
}
