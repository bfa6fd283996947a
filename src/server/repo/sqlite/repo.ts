// The embedded default's Repo: the synchronous SQLite (node:sqlite) repositories of this folder,
// assembled into the Repo as every database's is (../assemble.ts). Every change is a decision of
// ../decisions.ts run over this database's steps in one IMMEDIATE transaction (the write lock).
// One process owns a data dir's server, so no row locks are needed.
import { type Db, databasePath } from './db.js';
import { sqliteCheck, sqliteItemsByType, sqlitePool } from './checks.js';
import { loadSecret } from '../../signing.js';
import { assembleRepo, stepsOver } from '../assemble.js';
import type { RepoSteps } from '../decisions.js';
import type { Repo } from '../interface.js';
import { auditQueries } from '../audit.js';
import { checksumQueries } from '../checksums.js';
import { keyQueries } from '../keys.js';
import { mediaQueries } from '../media.js';
import { previewQueries } from '../previews.js';
import { type Param, type SqlSteps, syncTable } from '../statements.js';
import { runSteps } from '../steps.js';
import { sqliteDeletions } from './deletions.js';
import { sqliteItems } from './items.js';
import { sqliteUploads } from './uploads.js';

/** SQLite's numbered parameters (`?1`), for the queries written once (../statements.ts). */
const SQLITE_PARAM: Param = (n) => `?${n}`;

/** One statement at a time on the connection, in whatever transaction is open. */
function statements(db: Db): SqlSteps {
  return {
    rows: (sql, values) => db.prepare(sql).all(...values),
    run: (sql, values) => Number(db.prepare(sql).run(...values).changes),
  };
}

/** The keys table (../keys.ts) on SQLite. */
export const sqliteKeys = (db: Db) => syncTable(keyQueries(SQLITE_PARAM), statements(db));

function sqliteTables(db: Db) {
  return {
    items: sqliteItems(db),
    uploads: sqliteUploads(db),
    keys: sqliteKeys(db),
    deletions: sqliteDeletions(db),
    audit: syncTable(auditQueries(SQLITE_PARAM), statements(db)),
  };
}

/**
 * The steps of every decision (../decisions.ts) on this database. Run them inside an IMMEDIATE
 * transaction: its write lock is the lock of every row, and of a brand's quota and keys.
 */
export function sqliteSteps(db: Db): RepoSteps {
  const t = sqliteTables(db);
  return stepsOver<RepoSteps>(t, {
    lockItem: t.items.get,
    lockUpload: t.uploads.get,
    lockQuota: () => undefined,
    lockBrand: () => undefined,
  });
}

export function createSqliteRepo(db: Db, o: { dataDir: string }): Repo {
  const steps = sqliteSteps(db);
  return assembleRepo(
    {
      ...sqliteTables(db),
      checksums: syncTable(checksumQueries(SQLITE_PARAM), statements(db)),
      media: syncTable(mediaQueries(SQLITE_PARAM), statements(db)),
      previews: syncTable(previewQueries(SQLITE_PARAM), statements(db)),
    },
    // One IMMEDIATE transaction per decision.
    async (decision) => db.transaction(() => runSteps(steps, decision)).immediate(),
    {
      kind: 'sqlite',
      // The embedded library keeps its signing secret in the data dir, as it always has.
      sharedSecret: async () => loadSecret(o.dataDir),
      ping: async () => {
        db.prepare('SELECT 1').get();
      },
      check: sqliteCheck(db, databasePath(o.dataDir)),
      itemsByType: sqliteItemsByType(db),
      poolUse: sqlitePool,
      close: async () => {
        db.close();
      },
    },
  );
}
