// Opens the metadata store a server or `contentlib keys` was pointed at: PostgreSQL when a
// database URL is given (its client is imported only then), else the data dir's SQLite file.
import { openDatabase } from './repo/sqlite/db.js';
import type { Repo } from './repo/interface.js';
import { createSqliteRepo } from './repo/sqlite/repo.js';
import type { Timeouts } from './limits.js';

export interface RepoTarget {
  dataDir: string;
  databaseUrl?: string;
  timeouts?: Partial<Timeouts>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openRepo(t: RepoTarget): Promise<Repo> {
  if (t.databaseUrl !== undefined) {
    if (!isPostgresUrl(t.databaseUrl))
      throw new Error(`the database URL must start with postgres:// or postgresql://, not "${t.databaseUrl}"`);
    const { createPostgresRepo } = await import('./repo/pg/repo.js');
    return createPostgresRepo({
      connectionString: t.databaseUrl,
      ...(t.timeouts?.databaseMs === undefined ? {} : { timeouts: { databaseMs: t.timeouts.databaseMs } }),
    });
  }
  return createSqliteRepo(openDatabase(t.dataDir), { dataDir: t.dataDir });
}
