// Key administration for `contentlib keys` and the CLI's embedded mode. Each call opens the
// metadata store for the one call: the data dir's SQLite database (WAL lets it run beside a server on the
// same data dir) or, with a database URL, the PostgreSQL every instance shares.
import { existsSync, statSync } from 'node:fs';
import { brandNameProblem } from '../api/text-rules.js';
import { databasePath } from './db.js';
import { type RepoTarget, openRepo } from './open-repo.js';
import type { Repo } from './repo/interface.js';
import type { KeyRow } from './repo/keys.js';

/** A key as listed: its prefix only, never the key. */
export type KeyInfo = KeyRow;

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

/** A new API key (shown only now: only its hash is kept) for a new user of `brandName`. */
export async function createApiKey(
  target: KeysTarget,
  brandName: string,
): Promise<{ id: string; key: string; brand: string; userId: string }> {
  const name = brandName.trim();
  const problem = brandNameProblem(name);
  if (problem) throw new Error(`the brand name ${problem}; pass --brand NAME`);
  return withRepo(target, (repo) => repo.createKey(name, new Date()));
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

/** True when an active key with this id was revoked. */
export async function revokeApiKey(target: KeysTarget, id: string): Promise<boolean> {
  if (noLibrary(target)) return false;
  return withRepo(target, (repo) => repo.revokeKey(id, new Date()));
}
