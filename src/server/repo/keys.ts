// API keys, users and brands. Only a SHA-256 of each key is stored; a key is found by its
// hash and the digests are compared in constant time (docs/api.md, Authentication and keys).
// A key carries its scopes, a name, an optional expiry and when it was last used. The queries
// are written once for both databases (`keyQueries`, over ./statements.ts); making and revoking a
// key are decided in ./key-changes.ts.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { type Scope, scopesFromText, scopesToText } from '../../api/scopes.js';
import type { Actor } from './audit.js';
import { type Param, type Sql, params, rows, run } from './statements.js';

export const KEY_PATTERN = /^cl_[A-Za-z0-9_-]{43}$/;

/** Who a request comes from: its key (name and scopes) and that key's user and brand. */
export interface Caller {
  keyId: string;
  keyName: string | null;
  userId: string;
  brandId: string;
  /** The brand's name, which our server tells the client (the Content-Library-Brand header, an extension). */
  brandName: string;
  scopes: Scope[];
}

/** A presented key as stored: the caller, and what decides whether it may still be used. */
export interface KeyRecord extends Caller {
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface KeyRow {
  id: string;
  name: string | null;
  brand: string;
  brandId: string;
  userId: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What a new key is: every field but the brand is optional (name none, every scope, no expiry). */
export interface KeyOptions {
  name?: string | null;
  scopes?: readonly Scope[];
  expiresAt?: string | null;
  /** Who creates it (its audit entry); default: the server's own admin (`contentlib keys`). */
  by?: Actor;
}

/** A key just made: the secret is here once, never stored. */
export interface NewKey extends KeyRow {
  key: string;
}

/** Which brand a key is made for: by name (created when new) or an existing brand's id. */
export type BrandRef = string | { id: string };

export type RevokeOutcome = 'revoked' | 'not_found' | 'last_admin';

export interface RevokeOptions {
  /** Only a key of this brand (the API); otherwise any (`contentlib keys` on the server's machine). */
  brandId?: string;
  /** Refuse to revoke the brand's last usable keys:admin key (the API: a brand must keep one). */
  keepLastAdmin?: boolean;
  by?: Actor;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function newKeySecret(): string {
  return `cl_${randomBytes(32).toString('base64url')}`;
}

/** A new key's row: its ids, the secret (its hash and prefix are stored, never itself), when, what it may do. */
export interface NewKeyRow {
  id: string;
  userId: string;
  key: string;
  at: string;
  o: KeyOptions;
}

/** The api_keys columns a new key sets, in the order of newKeyValues. */
const NEW_KEY_COLUMNS = 'id, user_id, key_hash, prefix, created_at, name, scopes, expires_at';

/** A new api_keys row for `key` (a fresh id; the key's hash and prefix, never the key). */
function newKeyValues(k: NewKeyRow): unknown[] {
  return [
    k.id,
    k.userId,
    hashKey(k.key),
    k.key.slice(0, 7),
    k.at,
    k.o.name ?? null,
    scopesToText(k.o.scopes ?? []),
    k.o.expiresAt ?? null,
  ];
}

/** Columns of a listed key, joined with its user and brand (quoted: PostgreSQL folds case). */
const KEY_ROW_SELECT = `SELECT k.id, k.name, b.name AS brand, b.id AS "brandId", u.id AS "userId", k.prefix,
    k.scopes, k.created_at AS "createdAt", k.expires_at AS "expiresAt", k.last_used_at AS "lastUsedAt",
    k.revoked_at AS "revokedAt"
  FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id`;

/** The row of a presented key, found by its hash (revoked and expired ones too: the caller says why). */
const KEY_BY_HASH = `SELECT k.id AS "keyId", k.key_hash AS hash, k.name AS "keyName", u.id AS "userId",
    u.brand_id AS "brandId", b.name AS "brandName", k.scopes, k.expires_at AS "expiresAt",
    k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt"
  FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id`;

type RawKeyRow = Omit<KeyRow, 'scopes'> & { scopes: string };
type RawKeyRecord = Omit<KeyRecord, 'scopes'> & { scopes: string; hash: Buffer };

function toKeyRow(row: RawKeyRow): KeyRow {
  return { ...row, scopes: scopesFromText(row.scopes) };
}

/** The stored key whose digest is `digest`, compared in constant time; null when none matches. */
function toKeyRecord(row: RawKeyRecord | undefined, digest: Buffer): KeyRecord | null {
  if (!row || !timingSafeEqual(row.hash, digest)) return null;
  const { hash: _hash, ...rest } = row;
  return { ...rest, scopes: scopesFromText(row.scopes) };
}

/** The keys table's queries in a dialect's parameters (./statements.ts runs them on either database). */
export function keyQueries(p: Param) {
  /** The stored key a presented one is (revoked and expired too), or null for a malformed or unknown key. */
  function* authenticate(key: string): Sql<KeyRecord | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const [found] = yield* rows<RawKeyRecord>(`${KEY_BY_HASH} WHERE k.key_hash = ${p(1)}`, [digest]);
    return toKeyRecord(found, digest);
  }

  /** Records a use, unless one was recorded after `notAfter` (a busy key writes once a minute). */
  function* touch(id: string, at: string, notAfter: string): Sql<void> {
    yield* run(
      `UPDATE api_keys SET last_used_at = ${p(1)} WHERE id = ${p(2)} AND (last_used_at IS NULL OR last_used_at < ${p(3)})`,
      [at, id, notAfter],
    );
  }

  function* row(id: string): Sql<KeyRow | null> {
    const [found] = yield* rows<RawKeyRow>(`${KEY_ROW_SELECT} WHERE k.id = ${p(1)}`, [id]);
    return found ? toKeyRow(found) : null;
  }

  /** Every key (of one brand when given), oldest first. */
  function* list(brandId?: string): Sql<KeyRow[]> {
    const where = brandId === undefined ? '' : `WHERE b.id = ${p(1)}`;
    const found = yield* rows<RawKeyRow>(
      `${KEY_ROW_SELECT} ${where} ORDER BY k.created_at, k.id`,
      brandId === undefined ? [] : [brandId],
    );
    return found.map(toKeyRow);
  }

  /** The brand's id: by name (made when new; two instances making it at once make one), or checked to exist. */
  function* brandOf(brand: BrandRef, at: string): Sql<string | null> {
    if (typeof brand !== 'string') {
      const [found] = yield* rows<{ id: string }>(`SELECT id FROM brands WHERE id = ${p(1)}`, [brand.id]);
      return found?.id ?? null;
    }
    yield* run(
      `INSERT INTO brands (id, name, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}) ON CONFLICT (name) DO NOTHING`,
      [randomUUID(), brand, at],
    );
    const [found] = yield* rows<{ id: string }>(`SELECT id FROM brands WHERE name = ${p(1)}`, [brand]);
    return found!.id;
  }

  function* insertUser(id: string, brandId: string, at: string): Sql<void> {
    yield* run(`INSERT INTO users (id, brand_id, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, [id, brandId, at]);
  }

  function* insertKey(k: NewKeyRow): Sql<void> {
    const values = newKeyValues(k);
    yield* run(`INSERT INTO api_keys (${NEW_KEY_COLUMNS}) VALUES (${params(p, 1, values.length)})`, values);
  }

  function* markRevoked(id: string, at: string): Sql<void> {
    yield* run(`UPDATE api_keys SET revoked_at = ${p(1)} WHERE id = ${p(2)}`, [at, id]);
  }

  return { authenticate, touch, row, list, brandOf, insertUser, insertKey, markRevoked };
}

/** A key that may act now: not revoked and not expired. */
export function isUsable(k: { revokedAt: string | null; expiresAt: string | null }, at: string): boolean {
  return k.revokedAt === null && (k.expiresAt === null || k.expiresAt > at);
}

/** Whether revoking `target` would leave its brand without a usable keys:admin key. */
export function isLastAdmin(target: KeyRow, brandKeys: readonly KeyRow[], at: string): boolean {
  if (!target.scopes.includes('keys:admin')) return false;
  return !brandKeys.some((k) => k.id !== target.id && k.scopes.includes('keys:admin') && isUsable(k, at));
}

/** The key.created entry's details: what the key may do, never its secret. */
export function keyCreatedDetails(k: KeyRow): Record<string, unknown> {
  return { keyId: k.id, name: k.name, prefix: k.prefix, scopes: k.scopes, expiresAt: k.expiresAt };
}

export function keyRevokedDetails(k: KeyRow): Record<string, unknown> {
  return { keyId: k.id, name: k.name, prefix: k.prefix };
}
