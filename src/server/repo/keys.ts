// API keys, users and brands. Only a SHA-256 of each key is stored; a key is found by its
// hash and the digests are compared in constant time (docs/api.md, Authentication and keys).
// A key carries its scopes, a name, an optional expiry and when it was last used.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Scope, scopesFromText, scopesToText } from '../../api/scopes.js';
import type { Actor } from './audit.js';

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
export const NEW_KEY_COLUMNS = 'id, user_id, key_hash, prefix, created_at, name, scopes, expires_at';

/** A new api_keys row for `key` (a fresh id; the key's hash and prefix, never the key). */
export function newKeyValues(k: NewKeyRow): unknown[] {
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
export const KEY_ROW_SELECT = `SELECT k.id, k.name, b.name AS brand, b.id AS "brandId", u.id AS "userId", k.prefix,
    k.scopes, k.created_at AS "createdAt", k.expires_at AS "expiresAt", k.last_used_at AS "lastUsedAt",
    k.revoked_at AS "revokedAt"
  FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id`;

/** The row of a presented key, found by its hash (revoked and expired ones too: the caller says why). */
export const KEY_BY_HASH = `SELECT k.id AS "keyId", k.key_hash AS hash, k.name AS "keyName", u.id AS "userId",
    u.brand_id AS "brandId", b.name AS "brandName", k.scopes, k.expires_at AS "expiresAt",
    k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt"
  FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id`;

export type RawKeyRow = Omit<KeyRow, 'scopes'> & { scopes: string };
export type RawKeyRecord = Omit<KeyRecord, 'scopes'> & { scopes: string; hash: Buffer };

export function toKeyRow(row: RawKeyRow): KeyRow {
  return { ...row, scopes: scopesFromText(row.scopes) };
}

/** The stored key whose digest is `digest`, compared in constant time; null when none matches. */
export function toKeyRecord(row: RawKeyRecord | undefined, digest: Buffer): KeyRecord | null {
  if (!row || !timingSafeEqual(row.hash, digest)) return null;
  const { hash: _hash, ...rest } = row;
  return { ...rest, scopes: scopesFromText(row.scopes) };
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
