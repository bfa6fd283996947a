// Making and revoking an API key, decided once for both databases (./steps.ts, like
// ./completion.ts), each with its audit entry in the same transaction. Only a hash of a key is
// stored (./keys.ts); the secret is in the answer once.
import { randomUUID } from 'node:crypto';
import { LOCAL_ADMIN } from './audit.js';
import type { ItemSteps } from './item-changes.js';
import {
  type BrandRef,
  type KeyOptions,
  type KeyRow,
  type NewKey,
  type NewKeyRow,
  type RevokeOptions,
  type RevokeOutcome,
  isLastAdmin,
  keyCreatedDetails,
  keyRevokedDetails,
  newKeySecret,
} from './keys.js';
import { type Decision, stepsOf } from './steps.js';

/** The small operations of a key's changes, each run inside the change's transaction. */
export interface KeySteps extends Pick<ItemSteps, 'audit'> {
  /** The brand's id: by name (made when new; two made at once are one), or checked to exist (null when not). */
  brandOf(brand: BrandRef, at: string): string | null;
  insertUser(id: string, brandId: string, at: string): void;
  insertKey(k: NewKeyRow): void;
  /** A key with its user's brand, or null. */
  keyRow(id: string): KeyRow | null;
  /**
   * Holds the brand's keys until the transaction ends: two admins revoking each other's keys at
   * once cannot both succeed (PostgreSQL locks the brand's row; SQLite's write lock holds it already).
   */
  lockBrand(brandId: string): void;
  /** The brand's keys. */
  brandKeys(brandId: string): KeyRow[];
  markRevoked(id: string, at: string): void;
}

const step = stepsOf<KeySteps>();

/** A new key for a new user of the brand (made by name when new), with its key.created entry. */
export function* createKey(brand: BrandRef, now: Date, o: KeyOptions): Decision<KeySteps, NewKey> {
  const at = now.toISOString();
  const brandId = yield* step('brandOf', brand, at);
  if (!brandId) throw new Error('createKey: unknown brand id');
  const row = { id: randomUUID(), userId: randomUUID(), key: newKeySecret(), at, o };
  yield* step('insertUser', row.userId, brandId, at);
  yield* step('insertKey', row);
  const made = (yield* step('keyRow', row.id))!;
  yield* step('audit', {
    brandId,
    action: 'key.created',
    itemId: null,
    at,
    actor: o.by ?? LOCAL_ADMIN,
    details: keyCreatedDetails(made),
  });
  return { ...made, key: row.key };
}

/** An active key of the brand asked for (any brand when none is), or null. */
function* activeKey(id: string, brandId: string | undefined): Decision<KeySteps, KeyRow | null> {
  const key = yield* step('keyRow', id);
  if (!key || key.revokedAt !== null) return null;
  return brandId === undefined || key.brandId === brandId ? key : null;
}

/** Revokes an active key with its key.revoked entry; with keepLastAdmin, never the brand's last usable admin key. */
export function* revokeKey(id: string, now: Date, o: RevokeOptions): Decision<KeySteps, RevokeOutcome> {
  const at = now.toISOString();
  const target = yield* activeKey(id, o.brandId);
  if (!target) return 'not_found';
  // Under the brand's lock the key is read again: a revoke that waited for it may find it revoked.
  yield* step('lockBrand', target.brandId);
  const fresh = yield* activeKey(id, o.brandId);
  if (!fresh) return 'not_found';
  if (o.keepLastAdmin && isLastAdmin(fresh, yield* step('brandKeys', fresh.brandId), at)) return 'last_admin';
  yield* step('markRevoked', id, at);
  yield* step('audit', {
    brandId: fresh.brandId,
    action: 'key.revoked',
    itemId: null,
    at,
    actor: o.by ?? LOCAL_ADMIN,
    details: keyRevokedDetails(fresh),
  });
  return 'revoked';
}
