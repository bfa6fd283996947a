// API keys, users and brands on PostgreSQL: the queries of ../keys.ts in PostgreSQL's words. Only
// a SHA-256 of each key is stored; a key is found by its hash, compared in constant time. Making
// and revoking a key write their audit entry in the same transaction.
import { randomUUID } from 'node:crypto';
import {
  type BrandRef,
  KEY_BY_HASH,
  KEY_PATTERN,
  KEY_ROW_SELECT,
  type KeyOptions,
  type KeyRecord,
  type KeyRow,
  NEW_KEY_COLUMNS,
  type NewKey,
  type RawKeyRecord,
  type RawKeyRow,
  type RevokeOptions,
  type RevokeOutcome,
  hashKey,
  isLastAdmin,
  keyCreatedDetails,
  keyRevokedDetails,
  newKeySecret,
  newKeyValues,
  toKeyRecord,
  toKeyRow,
} from '../keys.js';
import { LOCAL_ADMIN } from '../audit.js';
import { pgAudit } from './audit.js';
import type { Query, Transaction } from './query.js';

async function keyRow(q: Query, id: string): Promise<KeyRow | null> {
  const { rows } = await q<RawKeyRow>(`${KEY_ROW_SELECT} WHERE k.id = $1`, [id]);
  return rows[0] ? toKeyRow(rows[0]) : null;
}

async function listWith(q: Query, brandId?: string): Promise<KeyRow[]> {
  const where = brandId === undefined ? '' : 'WHERE b.id = $1';
  const { rows } = await q<RawKeyRow>(
    `${KEY_ROW_SELECT} ${where} ORDER BY k.created_at, k.id`,
    brandId === undefined ? [] : [brandId],
  );
  return rows.map(toKeyRow);
}

/** The brand's id: by name (made when new; two instances making it at once make one), or checked to exist. */
async function brandOf(q: Query, brand: BrandRef, at: string): Promise<string | null> {
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

export function pgKeys(query: Query, transaction: Transaction) {
  /** The stored key a presented one is (revoked and expired too), or null for a malformed or unknown key. */
  async function authenticate(key: string): Promise<KeyRecord | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const { rows } = await query<RawKeyRecord>(`${KEY_BY_HASH} WHERE k.key_hash = $1`, [digest]);
    return toKeyRecord(rows[0], digest);
  }

  /** Records a use, unless one was recorded after `notAfter` (a busy key writes once a minute). */
  async function touch(id: string, at: string, notAfter: string): Promise<void> {
    await query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [
      at,
      id,
      notAfter,
    ]);
  }

  /** A new key for a new user of the brand, and its audit entry, in one transaction. */
  async function create(brand: BrandRef, now: Date, o: KeyOptions = {}): Promise<NewKey> {
    const key = newKeySecret();
    const at = now.toISOString();
    return transaction(async (q) => {
      const brandId = await brandOf(q, brand, at);
      if (!brandId) throw new Error('createKey: unknown brand id');
      const userId = randomUUID();
      await q('INSERT INTO users (id, brand_id, created_at) VALUES ($1, $2, $3)', [userId, brandId, at]);
      const id = randomUUID();
      const values = newKeyValues({ id, userId, key, at, o });
      await q(
        `INSERT INTO api_keys (${NEW_KEY_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
        values,
      );
      const made = (await keyRow(q, id))!;
      await pgAudit(q).write({
        brandId,
        action: 'key.created',
        itemId: null,
        at,
        actor: o.by ?? LOCAL_ADMIN,
        details: keyCreatedDetails(made),
      });
      return { ...made, key };
    });
  }

  /** Revokes an active key and records it, under the brand's row lock (see below). */
  async function revoke(id: string, now: Date, o: RevokeOptions = {}): Promise<RevokeOutcome> {
    const at = now.toISOString();
    return transaction(async (q) => {
      const target = await keyRow(q, id);
      if (!target || target.revokedAt !== null) return 'not_found';
      if (o.brandId !== undefined && target.brandId !== o.brandId) return 'not_found';
      // The brand's row lock: two admins revoking each other's keys at once cannot both succeed
      // and leave the brand with no admin key. The key is read again under it.
      await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [target.brandId]);
      const fresh = await keyRow(q, id);
      if (!fresh || fresh.revokedAt !== null) return 'not_found';
      if (o.keepLastAdmin && isLastAdmin(fresh, await listWith(q, fresh.brandId), at)) return 'last_admin';
      await q('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [at, id]);
      await pgAudit(q).write({
        brandId: fresh.brandId,
        action: 'key.revoked',
        itemId: null,
        at,
        actor: o.by ?? LOCAL_ADMIN,
        details: keyRevokedDetails(fresh),
      });
      return 'revoked';
    });
  }

  return { authenticate, touch, create, list: (brandId?: string) => listWith(query, brandId), revoke };
}
