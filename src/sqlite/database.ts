// SQLite for the embedded library and the upload journal: Node's own `node:sqlite`, with the two
// helpers of better-sqlite3 that the code was written against (transaction() and pragma()).
//
// Why node:sqlite and not better-sqlite3 (issue 33, measured on Node 22.23, 24.21 and 26.12):
// better-sqlite3 13 ships binaries inside its package, but npm still runs its implicit
// `node-gyp rebuild` at install, which fails on a machine without python3 (a slim container, a
// CI runner) even though it would build nothing; better-sqlite3 12 compiled against Node 24.19+
// headers aborted the process. node:sqlite is part of every supported Node: nothing to install,
// nothing compiled, nothing that can mismatch the runtime. It opens in under 2 ms (better-sqlite3
// 5-11 ms), inserts as fast, reads a row by key ~25 % slower (1.3 µs against 1.0 µs: nothing next
// to an HTTP request). On Node 22 it prints an ExperimentalWarning once: silenced below.
import type * as NodeSqlite from 'node:sqlite';
import type { DatabaseSync } from 'node:sqlite';

/**
 * node:sqlite, loaded on first use: its ExperimentalWarning is emitted as the module loads, so
 * the filter must be in place first (a static import would load it before any code here runs).
 */
let sqlite: typeof NodeSqlite | undefined;
function loadSqlite(): typeof NodeSqlite {
  if (!sqlite) {
    silenceExperimentalWarning();
    sqlite = process.getBuiltinModule('node:sqlite');
  }
  return sqlite;
}

/** Node 22 calls node:sqlite experimental (stable since 24); users should not see that every run. */
function silenceExperimentalWarning(): void {
  const emit = process.emitWarning;
  if ((emit as { contentlibQuiet?: boolean }).contentlibQuiet) return;
  const quiet = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    return (emit as (...a: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  (quiet as { contentlibQuiet?: boolean }).contentlibQuiet = true;
  process.emitWarning = quiet;
}

type TransactionMode = 'deferred' | 'immediate' | 'exclusive';

/** A function run in a transaction, as better-sqlite3's db.transaction(fn) returns it. */
export interface Transaction<A extends unknown[], T> {
  (...args: A): T;
  deferred(...args: A): T;
  immediate(...args: A): T;
  exclusive(...args: A): T;
}

/**
 * A prepared statement as the repositories use it: parameters by position or one object of named
 * ones (`@name` in the SQL, `{ name }` here), rows cast by the caller to what its SELECT returns.
 */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** Options of node:sqlite's DatabaseSync that the callers use. */
export interface OpenOptions {
  readOnly?: boolean;
}

/**
 * Statements kept prepared per connection, the most recently used. node:sqlite prepares a
 * statement anew at every `prepare`: under a bulk upload `serve` spent ~10 % of its CPU there
 * (18 s of 174 s over 20,000 uploads), re-preparing the same few dozen statements of presign, PUT
 * and complete (bench/notes.md). A statement runs to its end within one call (run, get, all), so
 * one prepared statement serves every caller of its SQL; texts made per call (an IN list of n
 * ids) take their turn in the cache and fall out of it. `exec` empties it (it may change the schema).
 */
const KEPT_STATEMENTS = 256;

/**
 * One connection to a database file. A thin wrapper rather than a subclass: node:sqlite's types
 * insist on SQLInputValue parameters and Record rows at every call, where the repositories hand
 * rows of their own shapes; the wrapper states that once.
 */
export class Database {
  readonly #db: DatabaseSync;
  /** How many transactions of ours are open: a nested one is a savepoint. */
  #depth = 0;
  /** SQL → its statement, oldest use first (a Map keeps insertion order). */
  readonly #kept = new Map<string, Statement>();

  constructor(path: string, o: OpenOptions = {}) {
    this.#db = new (loadSqlite().DatabaseSync)(path, o);
    // Another connection (a second process, a reader while a writer recovers its WAL) may hold
    // the lock for a moment: wait up to 5 s rather than fail at once (better-sqlite3's default).
    this.#db.exec('PRAGMA busy_timeout = 5000');
  }

  get open(): boolean {
    return this.#db.isOpen;
  }

  /** The statement of `sql`, prepared once and kept (KEPT_STATEMENTS). */
  prepare(sql: string): Statement {
    const kept = this.#kept.get(sql);
    if (kept) {
      this.#kept.delete(sql);
      this.#kept.set(sql, kept);
      return kept;
    }
    const made = this.#db.prepare(sql) as unknown as Statement;
    this.#kept.set(sql, made);
    if (this.#kept.size > KEPT_STATEMENTS) this.#kept.delete(this.#kept.keys().next().value!);
    return made;
  }

  /**
   * Runs `sql` (one or more statements, no parameters). It may change the schema (a migration),
   * so the kept statements go: on Node 22 a statement prepared before an ALTER TABLE still gave
   * the old columns (test/sqlite/database.test.ts). Transactions do not come through here.
   */
  exec(sql: string): void {
    this.#kept.clear();
    this.#db.exec(sql);
  }

  /** A deterministic SQL function of one text argument, written in JS (for this connection). */
  textFunction(name: string, fn: (text: string) => string): void {
    this.#db.function(name, { deterministic: true }, (v) => fn(String(v ?? '')));
  }

  close(): void {
    this.#kept.clear();
    this.#db.close();
  }

  /**
   * `fn` in a transaction: committed when it returns, rolled back when it throws. Called inside
   * another, it runs in a savepoint of the outer one (as better-sqlite3's did).
   */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): Transaction<A, T> {
    const run = (mode: TransactionMode, args: A): T => {
      const nested = this.#depth > 0;
      const name = `sp${this.#depth}`;
      this.#db.exec(nested ? `SAVEPOINT ${name}` : `BEGIN ${mode.toUpperCase()}`);
      this.#depth++;
      let result: T;
      try {
        result = fn(...args);
      } catch (err) {
        this.#depth--;
        // An error SQLite already rolled back (a full disk, say) leaves no transaction to end.
        if (this.#db.isTransaction) this.#db.exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : 'ROLLBACK');
        throw err;
      }
      this.#depth--;
      this.#db.exec(nested ? `RELEASE ${name}` : 'COMMIT');
      return result;
    };
    const tx = ((...args: A) => run('deferred', args)) as Transaction<A, T>;
    tx.deferred = (...args: A) => run('deferred', args);
    tx.immediate = (...args: A) => run('immediate', args);
    tx.exclusive = (...args: A) => run('exclusive', args);
    return tx;
  }

  /** Runs `PRAGMA source`; with `simple`, the first column of the first row. */
  pragma(source: string, o: { simple?: boolean } = {}): unknown {
    const rows = this.#db.prepare(`PRAGMA ${source}`).all();
    if (!o.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }
}

/** A prepared statement with the types of its parameters and rows (a view: no wrapper at run time). */
export interface Typed<P extends unknown[], R> {
  run(...params: P): { changes: number; lastInsertRowid: number | bigint };
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

/** `db.prepare(sql)` seen with the parameter and row types the caller states. */
export function typed<P extends unknown[], R = unknown>(db: Database, sql: string): Typed<P, R> {
  return db.prepare(sql) as Typed<P, R>;
}

/** The first column of each row (better-sqlite3's pluck()). */
export function plucked<P extends unknown[], V>(
  statement: Statement,
): { get(...params: P): V | undefined; all(...params: P): V[] } {
  const first = (row: unknown) => (row === undefined ? undefined : Object.values(row as object)[0]);
  return {
    get: (...params) => first(statement.get(...params)) as V | undefined,
    all: (...params) => statement.all(...params).map((row) => first(row) as V),
  };
}
