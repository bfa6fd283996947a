// The Repo on PostgreSQL, for N `serve` instances sharing one database: the table repositories
// (./items.ts, ./uploads.ts, ./deletions.ts, and those written once over ../statements.ts)
// answer the steps of every change's decision (../decisions.ts), each change run in one
// transaction; the Repo is assembled from them as every database's is (../assemble.ts). What
// must hold across instances is taken from row locks: the upload row (complete is idempotent per
// key), the carousel's item row (never more than the maximum of images), the brand row (quota
// checked and reserved together); the unique keys on items.file_key and carousel_files.file_key
// back them up. The deletion outbox is claimed with a lease (./deletions.ts), so each object is
// deleted by one instance.
import { randomBytes } from 'node:crypto';
import { assembleRepo, stepsOver } from '../assemble.js';
import type { AsyncRepoSteps } from '../decisions.js';
import type { Repo } from '../interface.js';
import { auditQueries } from '../audit.js';
import { checksumQueries } from '../checksums.js';
import { keyQueries } from '../keys.js';
import { mediaQueries } from '../media.js';
import { previewQueries } from '../previews.js';
import { type Param, type SqlSteps, asyncTable } from '../statements.js';
import type { AsyncSteps } from '../steps.js';
import { pgDeletions } from './deletions.js';
import { pgItems } from './items.js';
import { migratePostgres } from './migrations.js';
import { type Query, createPool, transactions } from './query.js';
import { runStepsAsync } from '../steps.js';
import { pgUploads } from './uploads.js';
import type { Timeouts } from '../../limits.js';

export interface PostgresRepoOptions {
  connectionString?: string;
  /** Connections per instance. */
  max?: number;
  /** Time limits on connecting and on each statement (default: DEFAULT_TIMEOUTS). */
  timeouts?: Pick<Timeouts, 'databaseMs'>;
}

/** PostgreSQL's parameters (`$1`), for the queries written once (../statements.ts). */
const PG_PARAM: Param = (n) => `$${n}`;

/** One statement at a time over `q`: the pool, or one transaction's connection. */
function statements(q: Query): AsyncSteps<SqlSteps> {
  return {
    rows: async (sql, values) => (await q(sql, [...values])).rows,
    run: async (sql, values) => (await q(sql, [...values])).rowCount ?? 0,
  };
}

function pgTables(q: Query) {
  return {
    items: pgItems(q),
    uploads: pgUploads(q),
    keys: asyncTable(keyQueries(PG_PARAM), statements(q)),
    deletions: pgDeletions(q),
    audit: asyncTable(auditQueries(PG_PARAM), statements(q)),
  };
}

/**
 * Locks the brand's row until the transaction ends (call inside one): two presigns of one brand
 * cannot both fit the last bytes of its quota, two admins revoking each other's keys at once
 * cannot both succeed.
 */
function brandLock(q: Query) {
  return async (brandId: string): Promise<void> => {
    await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [brandId]);
  };
}

/** The steps of every decision (../decisions.ts) on one transaction's connection, with row locks. */
export function pgSteps(q: Query): AsyncRepoSteps {
  const t = pgTables(q);
  return stepsOver<AsyncRepoSteps>(t, {
    lockItem: t.items.lock,
    lockUpload: t.uploads.lockForCompletion,
    lockQuota: brandLock(q),
    lockBrand: brandLock(q),
  });
}

/** Connects (PG* environment variables fill what the URL leaves out), migrates, and returns the Repo. */
export async function createPostgresRepo(o: PostgresRepoOptions): Promise<Repo> {
  const pool = createPool(o);
  const client = await pool.connect();
  try {
    await migratePostgres(client);
  } catch (err) {
    client.release();
    await pool.end();
    throw err;
  }
  client.release();

  const query: Query = (text, values) => pool.query(text, values);
  const transaction = transactions(pool);
  return assembleRepo(
    {
      ...pgTables(query),
      checksums: asyncTable(checksumQueries(PG_PARAM), statements(query)),
      media: asyncTable(mediaQueries(PG_PARAM), statements(query)),
      previews: asyncTable(previewQueries(PG_PARAM), statements(query)),
    },
    // One transaction per decision.
    (decision) => transaction((q) => runStepsAsync(pgSteps(q), decision)),
    {
      kind: 'postgres',
      async sharedSecret(name) {
        await query('INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
          name,
          randomBytes(32),
        ]);
        const { rows } = await query<{ value: Buffer }>('SELECT value FROM shared_secrets WHERE name = $1', [name]);
        return rows[0]!.value;
      },
      async ping() {
        await query('SELECT 1');
      },
      async check() {
        await query('SELECT 1 FROM contentlib_migrations LIMIT 1');
      },
      itemsByType: pgItems(query).countByType,
      poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => pool.end(),
    },
  );
}
