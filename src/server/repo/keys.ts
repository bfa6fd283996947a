// API keys, users and brands. Only a SHA-256 of each key is stored; a key is found by its
// hash and the digests are compared in constant time (docs/api.md, Authentication and keys).
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db.js';

export const KEY_PATTERN = /^cl_[A-Za-z0-9_-]{43}$/;

export interface Caller {
  keyId: string;
  userId: string;
  brandId: string;
}

export interface KeyRow {
  id: string;
  brand: string;
  userId: string;
  createdAt: string;
  revokedAt: string | null;
  prefix: string;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** A new api_keys row for `key` (a fresh id; the key's hash and prefix, never the key): id, user_id, key_hash, prefix, created_at. */
export function newKeyRow(userId: string, key: string, at: string): [id: string, string, Buffer, string, string] {
  return [randomUUID(), userId, hashKey(key), key.slice(0, 7), at];
}

export function newKeySecret(): string {
  return `cl_${randomBytes(32).toString('base64url')}`;
}

export function keysRepository(db: Db) {
  const byHash = db.prepare(
    `SELECT k.id AS keyId, k.key_hash AS hash, u.id AS userId, u.brand_id AS brandId
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
  );

  /** The caller a presented key belongs to, or null for a malformed, unknown or revoked key. */
  function authenticate(key: string): Caller | null {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const row = byHash.get(digest) as { keyId: string; hash: Buffer; userId: string; brandId: string } | undefined;
    if (!row || !timingSafeEqual(row.hash, digest)) return null;
    return { keyId: row.keyId, userId: row.userId, brandId: row.brandId };
  }

  /** A new key for a new user of `brandName`, creating the brand when it does not exist yet. */
  function create(brandName: string, now: Date): { id: string; key: string; brand: string; userId: string } {
    const key = newKeySecret();
    const at = now.toISOString();
    const tx = db.transaction(() => {
      let brand = db.prepare('SELECT id FROM brands WHERE name = ?').get(brandName) as { id: string } | undefined;
      if (!brand) {
        brand = { id: randomUUID() };
        db.prepare('INSERT INTO brands (id, name, created_at) VALUES (?, ?, ?)').run(brand.id, brandName, at);
      }
      const userId = randomUUID();
      db.prepare('INSERT INTO users (id, brand_id, created_at) VALUES (?, ?, ?)').run(userId, brand.id, at);
      const row = newKeyRow(userId, key, at);
      db.prepare('INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)').run(...row);
      const id = row[0];
      return { id, key, brand: brandName, userId };
    });
    return tx.immediate();
  }

  function list(): KeyRow[] {
    return db
      .prepare(
        `SELECT k.id, b.name AS brand, u.id AS userId, k.created_at AS createdAt, k.revoked_at AS revokedAt, k.prefix
           FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id
          ORDER BY k.created_at, k.id`,
      )
      .all() as KeyRow[];
  }

  /** True when the key existed and was active; revoking twice or an unknown id gives false. */
  function revoke(id: string, now: Date): boolean {
    return (
      db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now.toISOString(), id)
        .changes === 1
    );
  }

  return { authenticate, create, list, revoke };
}
export type KeysRepository = ReturnType<typeof keysRepository>;
