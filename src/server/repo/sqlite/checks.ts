// What /readyz and /metrics read from the embedded database, SQLite (the data folder's own check
// is the disk store's: src/server/storage/disk-check.ts). Plain functions handed to ops/health.ts
// and ops/metrics.ts, which do not know what they check, so other back ends bring their own.
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Db } from './db.js';
import { SQLITE_COUNTS_SQL } from '../item-counts.js';
import type { Check } from '../../ops/health.js';
import type { PoolUse } from '../../ops/metrics.js';

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}

/**
 * SQLite answers from its open file even after that file was deleted or replaced (a lost
 * volume, a restore under a running server): the file at the path must still be the one opened,
 * and a read must work.
 */
export function sqliteCheck(db: Db, file: string): Check {
  const opened = statSync(file);
  return async () => {
    const now = await stat(file).catch((err: unknown) => {
      throw new Error(`the database file is gone (${codeOf(err)})`, { cause: err });
    });
    if (now.ino !== opened.ino || now.dev !== opened.dev)
      throw new Error('the database file was replaced since the server opened it; restart the server');
    if (!db.open) throw new Error('the database is closed');
    db.prepare('SELECT COUNT(*) FROM migrations').get();
  };
}

/** Items by type, for the contentlib_items gauge: the counts the triggers keep (../item-counts.ts). */
export function sqliteItemsByType(db: Db): () => Promise<Record<string, number>> {
  const query = db.prepare(SQLITE_COUNTS_SQL);
  return async () => Object.fromEntries((query.all() as Array<{ type: string; n: number }>).map((r) => [r.type, r.n]));
}

/**
 * node:sqlite is one connection, used synchronously on the main thread: nothing can hold it
 * while metrics are read, and nobody ever waits for it. The figures say exactly that.
 */
export function sqlitePool(): PoolUse {
  return { total: 1, idle: 1, waiting: 0 };
}
