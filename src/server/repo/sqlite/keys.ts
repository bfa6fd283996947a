// API keys, users and brands on SQLite: the shared statements and rules of ../keys.ts.
import { randomUUID } from 'node:crypto';
import type { Db } from './db.js';
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

export function sqliteKeys(db: Db) {
  const byHash = db.prepare(`${KEY_BY_HASH} WHERE k.key_hash = ?`);

  /** The stored key a presented one is, or null for a malformed or unknown key. */
  function authenticate(key: string): KeyRecord | null {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    return toKeyRecord(byHash.get(digest) as RawKeyRecord | undefined, digest);
  }

  /** Records a use, unless one was recorded after `notAfter` (a busy key writes once a minute). */
  function touch(id: string, at: string, notAfter: string): void {
    db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(
      at,
      id,
      notAfter,
    );
  }

  function row(id: string): KeyRow | null {
    const r = db.prepare(`${KEY_ROW_SELECT} WHERE k.id = ?`).get(id) as RawKeyRow | undefined;
    return r ? toKeyRow(r) : null;
  }

  /** The brand's id: by name (created when new) or checked to exist; null for an unknown id. */
  function brandOf(brand: BrandRef, at: string): string | null {
    if (typeof brand !== 'string')
      return (db.prepare('SELECT id FROM brands WHERE id = ?').get(brand.id) as { id: string } | undefined)?.id ?? null;
    const found = db.prepare('SELECT id FROM brands WHERE name = ?').get(brand) as { id: string } | undefined;
    if (found) return found.id;
    const id = randomUUID();
    db.prepare('INSERT INTO brands (id, name, created_at) VALUES (?, ?, ?)').run(id, brand, at);
    return id;
  }

  function insertUser(id: string, brandId: string, at: string): void {
    db.prepare('INSERT INTO users (id, brand_id, created_at) VALUES (?, ?, ?)').run(id, brandId, at);
  }

  function insertKey(k: NewKeyRow): void {
    const values = newKeyValues(k);
    db.prepare(`INSERT INTO api_keys (${NEW_KEY_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`).run(...values);
  }

  function markRevoked(id: string, at: string): void {
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(at, id);
  }

  /** Every key (of one brand when given), oldest first. */
  function list(brandId?: string): KeyRow[] {
    const where = brandId === undefined ? '' : 'WHERE b.id = ?';
    const rows = db
      .prepare(`${KEY_ROW_SELECT} ${where} ORDER BY k.created_at, k.id`)
      .all(...(brandId === undefined ? [] : [brandId])) as RawKeyRow[];
    return rows.map(toKeyRow);
  }

  return { authenticate, touch, row, brandOf, insertUser, insertKey, markRevoked, list };
}
