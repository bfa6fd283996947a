// node-postgres emits 'error' on a Client whose connection the server ends; unheard, that ends
// the process (issue 36: an instance died at a PostgreSQL fast shutdown). Here the server ends
// connections on purpose — pg_terminate_backend sends the same 57P01 "terminating connection due
// to administrator command" a fast shutdown does — while they are idle in the pool, checked out
// and doing nothing, checked out mid-statement, and inside a transaction. An unheard 'error'
// would fail this file (vitest reports it); each must instead reach the caller as a failure
// src/server/unavailable.ts calls "down", and the pool must serve the next call by itself.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeClient, createPool, transactions } from '../../src/server/repo/pg/query.js';
import { databaseDown } from '../../src/server/unavailable.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';

let postgres: TestPostgres;
let url: string;
let admin: pg.Client;

beforeAll(async () => {
  postgres = await startPostgres();
  url = await postgres.createDatabase('conn_errors');
  admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
}, 120_000);

afterAll(async () => {
  await admin?.end();
  await postgres?.stop();
});

/** Ends every session of the test database (57P01), as a fast shutdown does. */
async function terminateAll(): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [new URL(url).pathname.slice(1)],
  );
  return Number(rows[0]!.n);
}

describe('connections the server ends', () => {
  it('idle in the pool, and checked out with no listener of its own: no crash, the pool recovers', async () => {
    const pool = createPool({ connectionString: url, max: 4 });
    // One connection idle, one checked out and left alone (as code between two calls would).
    const a = await pool.connect();
    const held = await pool.connect();
    a.release();
    let released = false;
    try {
      expect(await terminateAll()).toBe(2);
      await sleep(300);
      expect((held as unknown as SafeClient).lastError?.message).toMatch(
        /terminating connection|Connection terminated/,
      );
      await expect(held.query('SELECT 1')).rejects.toSatisfy(databaseDown);
      held.release(new Error('broken'));
      released = true;
      const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(rows[0]!.one).toBe(1);
    } finally {
      // pool.end() waits for every checked-out client.
      if (!released) held.release(new Error('test over'));
      await pool.end();
    }
  });

  it('mid-statement and inside a transaction: the call fails as "down", the next one succeeds', async () => {
    const pool = createPool({ connectionString: url, max: 4 });
    const transaction = transactions(pool);
    try {
      // Each failure is caught as it happens (it may come while terminateAll is still awaited,
      // before an expect could attach to the promise: an unhandled rejection in between).
      const failureOf = (p: Promise<unknown>) =>
        p.then(
          () => new Error('it succeeded'),
          (err: unknown) => err,
        );
      const slow = failureOf(pool.query('SELECT pg_sleep(5)'));
      const inTx = failureOf(
        transaction(async (q) => {
          await q('SELECT 1');
          await sleep(400);
          return q('SELECT 2');
        }),
      );
      await sleep(200);
      expect(await terminateAll()).toBeGreaterThanOrEqual(2);
      expect(await slow).toSatisfy(databaseDown);
      expect(await inTx).toSatisfy(databaseDown);
      expect((await transaction((q) => q<{ n: number }>('SELECT 3 AS n'))).rows[0]!.n).toBe(3);
    } finally {
      await pool.end();
    }
  });

  it('every client the pool makes is a SafeClient, listening for errors from its first moment', async () => {
    const pool = createPool({ connectionString: url, max: 1 });
    try {
      const c = await pool.connect();
      try {
        expect(c).toBeInstanceOf(SafeClient);
        // Its own listener, and none other while checked out: pg-pool removed the idle one.
        expect(c.listenerCount('error')).toBe(1);
      } finally {
        c.release();
      }
    } finally {
      await pool.end();
    }
  });
});
