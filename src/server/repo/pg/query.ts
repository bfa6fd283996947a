// The connection pool and the two ways the PostgreSQL repositories reach it: one statement on any
// connection (`query`), or several in one transaction on one connection (`transaction`). Each
// table's repository (./items.ts, ./uploads.ts, ./deletions.ts) takes a Query, so the
// same functions run alone or inside a transaction.
import pg from 'pg';
import type { Timeouts } from '../../limits.js';
import { databaseDown } from '../../unavailable.js';
import { poolTimeouts } from './timeouts.js';

export type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/** int8 (COUNT, BIGINT columns) as a JS number: sizes stay far below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A connection that can never end the process with an unheard 'error'. node-postgres emits
 * 'error' on a Client whose connection the server ends (57P01 at a fast shutdown, 57P02/57P03,
 * a reset): its rule is that the pool handles it while the client is idle and the code that
 * checked it out while it is checked out. A listener held by every Client from its constructor
 * on covers both, and the moments in between (connected but not yet pooled, released but not yet
 * idle, the migration's connection). The failure itself still reaches whoever waits on the
 * connection (the statement's promise rejects) and is judged by src/server/unavailable.ts.
 */
export class SafeClient extends pg.Client {
  /** The last error the connection reported (for a log line or a test; nothing waits on it). */
  lastError: Error | undefined;
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', (err: Error) => {
      this.lastError = err;
    });
  }
}

export function createPool(o: {
  connectionString?: string;
  max?: number;
  timeouts?: Pick<Timeouts, 'databaseMs'>;
}): pg.Pool {
  const pool = new pg.Pool({
    ...(o.connectionString ? { connectionString: o.connectionString } : {}),
    max: o.max ?? 10,
    types,
    application_name: 'contentlib',
    Client: SafeClient,
    // No call waits on a stopped, frozen or unreachable database for longer than the bound.
    ...poolTimeouts(o.timeouts),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `fn` in one transaction on one connection of `pool`; rolled back when it throws. */
export function transactions(pool: pg.Pool) {
  return async function transaction<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    let broken: Error | undefined;
    // A connection lost between two statements makes the client emit 'error', which would end
    // the process unheard; the next statement fails instead, and the connection is dropped.
    const lost = () => undefined;
    c.on('error', lost);
    try {
      await c.query('BEGIN');
      const result = await fn((text, values) => c.query(text, values));
      await c.query('COMMIT');
      return result;
    } catch (err) {
      // A connection that broke or timed out is thrown away (the server rolls its transaction
      // back): a ROLLBACK would queue behind the statement still running on it.
      if (databaseDown(err)) broken = err instanceof Error ? err : new Error(String(err));
      else await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.off('error', lost);
      c.release(broken);
    }
  };
}
export type Transaction = ReturnType<typeof transactions>;
