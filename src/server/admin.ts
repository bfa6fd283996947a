// Key administration for `contentlib keys` and the CLI's embedded mode. Each call opens the data
// dir's database briefly; WAL lets it run beside a server on the same data dir.
import { existsSync, statSync } from 'node:fs';
import { databasePath, openDatabase } from './db.js';
import { type KeyRow, keysRepository } from './repo/keys.js';

/** A key as listed: its prefix only, never the key. */
export type KeyInfo = KeyRow;

function withKeys<T>(dataDir: string, fn: (keys: ReturnType<typeof keysRepository>) => T): T {
  const db = openDatabase(dataDir);
  try {
    return fn(keysRepository(db));
  } finally {
    db.close();
  }
}

/** A new API key (shown only now: only its hash is kept) for a new user of `brandName`. */
export async function createApiKey(
  dataDir: string,
  brandName: string,
): Promise<{ id: string; key: string; brand: string; userId: string }> {
  const name = brandName.trim();
  if (!name) throw new Error('the brand name is empty; pass --brand NAME');
  return withKeys(dataDir, (keys) => keys.create(name, new Date()));
}

/** Reading or revoking makes no library where there is none: a mistyped --data-dir stays a mistake. */
function noLibrary(dataDir: string): boolean {
  // A file where the folder should be is not "no library": opening it says what is wrong.
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) return false;
  return !existsSync(databasePath(dataDir));
}

export async function listApiKeys(dataDir: string): Promise<KeyInfo[]> {
  if (noLibrary(dataDir)) return [];
  return withKeys(dataDir, (keys) => keys.list());
}

/** True when an active key with this id was revoked. */
export async function revokeApiKey(dataDir: string, id: string): Promise<boolean> {
  if (noLibrary(dataDir)) return false;
  return withKeys(dataDir, (keys) => keys.revoke(id, new Date()));
}
