// pg's time limits from the server's (src/server/limits.ts): waiting for a connection, each
// statement on the database's side (statement_timeout, which also bounds lock waits) and on
// ours (query_timeout, for a database that stopped answering altogether), and transactions left
// idle by a client that froze.
import type pg from 'pg';
import { CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUTS, IDLE_IN_TRANSACTION_MS, type Timeouts } from '../../limits.js';

/** The database's own timeout fires first; ours only when it cannot answer at all. */
const CLIENT_MARGIN_MS = 1_000;

export function poolTimeouts(t: Partial<Pick<Timeouts, 'databaseMs'>> = {}): pg.PoolConfig {
  const statementMs = t.databaseMs ?? DEFAULT_TIMEOUTS.databaseMs;
  return {
    connectionTimeoutMillis: Math.min(CONNECT_TIMEOUT_MS, statementMs),
    statement_timeout: statementMs,
    query_timeout: statementMs + CLIENT_MARGIN_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // A connection to a host that vanished (no RST) is found dead by the kernel, not kept forever.
    keepAlive: true,
  };
}
