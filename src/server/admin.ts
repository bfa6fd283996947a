// Key administration for `contentlib keys` and the CLI's embedded mode. Each call opens the
// metadata store for the one call: the data dir's SQLite database (WAL lets it run beside a server on the
// same data dir) or, with a database URL, the PostgreSQL every instance shares.
import { existsSync, statSync } from 'node:fs';
import { brandNameProblem, nameProblem } from '../api/text-rules.js';
import { databasePath } from './repo/sqlite/db.js';
import { type RepoTarget, openRepo } from './open-repo.js';
import { SCOPES, type Scope } from '../api/scopes.js';
import type { KeyRow, NewKey, Repo } from './repo/interface.js';

/** A key as listed: its prefix only, never the key. */
export type KeyInfo = KeyRow;
/** A key just made: its secret is here once. */
export type CreatedKey = NewKey;

export interface CreateKeyOptions {
  name?: string | null;
  /** Default: every scope (what every key could do before scopes existed). */
  scopes?: readonly Scope[];
  /** ISO time; default: never. */
  expiresAt?: string | null;
}

/** A data dir, or a data dir and a database URL (`--db`). */
export type KeysTarget = string | RepoTarget;

function targetOf(t: KeysTarget): RepoTarget {
  return typeof t === 'string' ? { dataDir: t } : t;
}

async function withRepo<T>(t: KeysTarget, fn: (repo: Repo) => Promise<T>): Promise<T> {
  const repo = await openRepo(targetOf(t));
  try {
    return await fn(repo);
  } finally {
    await repo.close();
  }
}

/** A new API key (shown only now: only its hash is kept) for a new user of `brandName`, recorded in the audit log. */
export async function createApiKey(
  target: KeysTarget,
  brandName: string,
  o: CreateKeyOptions = {},
  now: Date = new Date(),
): Promise<CreatedKey> {
  const brand = brandName.trim();
  const problem = brandNameProblem(brand);
  if (problem) throw new Error(`the brand name ${problem}; pass --brand NAME`);
  const keyName = o.name?.trim() || null;
  const nameIssue = keyName === null ? null : nameProblem(keyName);
  if (nameIssue) throw new Error(`the key name ${nameIssue}; pass --name NAME`);
  const scopes = o.scopes ?? SCOPES;
  if (scopes.length === 0) throw new Error('a key needs at least one scope');
  return withRepo(target, (repo) =>
    repo.createKey(brand, now, { name: keyName, scopes, expiresAt: o.expiresAt ?? null }),
  );
}

/** Reading or revoking makes no library where there is none: a mistyped --data-dir stays a mistake. */
function noLibrary(t: KeysTarget): boolean {
  const { dataDir, databaseUrl } = targetOf(t);
  if (databaseUrl !== undefined) return false;
  // A file where the folder should be is not "no library": opening it says what is wrong.
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) return false;
  return !existsSync(databasePath(dataDir));
}

export async function listApiKeys(target: KeysTarget): Promise<KeyInfo[]> {
  if (noLibrary(target)) return [];
  return withRepo(target, (repo) => repo.listKeys());
}

/** True when an active key with this id was revoked (and recorded in the audit log). */
export async function revokeApiKey(target: KeysTarget, id: string, now: Date = new Date()): Promise<boolean> {
  if (noLibrary(target)) return false;
  return withRepo(target, async (repo) => (await repo.revokeKey(id, now)) === 'revoked');
}
