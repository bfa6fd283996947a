// Table repositories written once for both databases. A table's queries (`keyQueries` in
// ./keys.ts, `auditQueries` in ./audit.ts, `checksumQueries` in ./checksums.ts) are decisions
// (./steps.ts) over two steps, `rows` and `run`, with each parameter written by the dialect's
// `Param`: the SQL, its values and what is made of the rows are one text, and the databases differ
// only in how they run a statement. SQLite answers the steps at once (`syncTable`, in
// ./sqlite/repo.ts), PostgreSQL later (`asyncTable`, in ./pg/repo.ts).
import { type AsyncSteps, type Decision, runSteps, runStepsAsync, stepsOf } from './steps.js';

/** How a dialect writes its n-th parameter (1-based): `?n` on SQLite, `$n` on PostgreSQL. */
export type Param = (n: number) => string;

/** What a table's queries ask of a database: run one statement, in whatever transaction is open. */
export interface SqlSteps {
  /** The rows a statement returns, with the columns its SELECT names. */
  rows(sql: string, values: readonly unknown[]): unknown[];
  /** Runs a statement; how many rows it changed. */
  run(sql: string, values: readonly unknown[]): number;
}

/** One query of a table: a decision over SqlSteps that ends with R. */
export type Sql<R> = Decision<SqlSteps, R>;

const step = stepsOf<SqlSteps>();

/** The rows of one statement, of the shape the caller's SELECT gives them. */
export function* rows<R>(sql: string, values: readonly unknown[]): Sql<R[]> {
  // Neither database checks a row's shape: the SELECT's columns are the type's fields.
  return (yield* step('rows', sql, values)) as R[];
}

/** Runs one statement; how many rows it changed. */
export function run(sql: string, values: readonly unknown[]): Sql<number> {
  return step('run', sql, values);
}

/** `count` parameters from the n-th on, for an IN list: `?2, ?3` or `$2, $3`. */
export function params(p: Param, from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => p(from + i)).join(', ');
}

type Queries = Record<string, (...args: never[]) => Sql<unknown>>;

/** A table's queries as functions that answer at once (SQLite). */
export type SyncTable<Q extends Queries> = {
  [K in keyof Q]: Q[K] extends (...args: infer A) => Sql<infer R> ? (...args: A) => R : never;
};

/** A table's queries as functions that answer later (PostgreSQL). */
export type AsyncTable<Q extends Queries> = {
  [K in keyof Q]: Q[K] extends (...args: infer A) => Sql<infer R> ? (...args: A) => Promise<R> : never;
};

/** Each query of `queries`, run by `answer` (the database's driver of ./steps.ts). */
function tableOf(queries: Queries, answer: (decision: Sql<unknown>) => unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(queries).map(([name, query]) => [
      name,
      (...args: unknown[]) => answer((query as (...a: unknown[]) => Sql<unknown>)(...args)),
    ]),
  );
}

/** The table on a database that answers at once (call inside its transaction for a change). */
export function syncTable<Q extends Queries>(queries: Q, steps: SqlSteps): SyncTable<Q> {
  // tableOf keeps every name and runs each query with its own arguments: SyncTable's shape.
  return tableOf(queries, (d) => runSteps(steps, d)) as SyncTable<Q>;
}

/** The table on a database that answers later. */
export function asyncTable<Q extends Queries>(queries: Q, steps: AsyncSteps<SqlSteps>): AsyncTable<Q> {
  // As syncTable, each answer a promise.
  return tableOf(queries, (d) => runStepsAsync(steps, d)) as AsyncTable<Q>;
}
