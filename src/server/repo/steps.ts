// The machinery behind the backend-neutral decisions (./completion.ts, ./carousel.ts): a decision
// is a generator that asks for named steps and never touches a database itself; each database
// answers the steps inside its own transaction, SQLite synchronously under its write lock
// (`runSteps`), PostgreSQL with row locks over one connection (`runStepsAsync`). A generator,
// because SQLite's synchronous transactions (node:sqlite) cannot span an await while PostgreSQL's must.
//
// Steps are an interface of plain functions (`S`); a decision over steps `S` may `yield*` a
// decision over any interface S extends (the completion runs the carousel's replace that way).

type AnyFn = (...args: never[]) => unknown;
type ArgsOf<F> = F extends (...args: infer A) => unknown ? A : never;
type ResultOf<F> = F extends (...args: never[]) => infer R ? R : never;

/** One request of a decision: a step's name and its arguments. */
export type StepRequest<S> = {
  [K in keyof S]: S[K] extends AnyFn ? { name: K; args: ArgsOf<S[K]> } : never;
}[keyof S];

/** The same steps on a database that answers asynchronously. */
export type AsyncSteps<S> = {
  [K in keyof S]: (...args: ArgsOf<S[K]>) => Promise<ResultOf<S[K]>>;
};

/** A decision over steps S that ends with R. */
export type Decision<S, R> = Generator<StepRequest<S>, R, unknown>;

/** The typed `step(name, …args)` of decisions over S: asks for one step and hands back its answer. */
export function stepsOf<S>() {
  return function* step<K extends keyof S>(
    name: K,
    ...args: ArgsOf<S[K]>
  ): Generator<StepRequest<S>, ResultOf<S[K]>, unknown> {
    // The drivers below answer each request with the named step's result.
    return (yield { name, args } as unknown as StepRequest<S>) as ResultOf<S[K]>;
  };
}

/** Calls the step a request names on `steps`. */
function perform<S>(steps: S | AsyncSteps<S>, request: StepRequest<S>): unknown {
  // The request pairs a step's name with that step's arguments; TypeScript cannot follow the pair.
  const { name, args } = request as { name: keyof S; args: unknown[] };
  const fn = steps[name] as (...a: unknown[]) => unknown;
  return fn(...args);
}

/** Runs a decision over synchronous steps (call it inside the database's transaction). */
export function runSteps<S, R>(steps: S, decision: Decision<S, R>): R {
  let next = decision.next();
  while (!next.done) next = decision.next(perform(steps, next.value));
  return next.value;
}

/** Runs a decision over asynchronous steps (call it inside the database's transaction). */
export async function runStepsAsync<S, R>(steps: AsyncSteps<S>, decision: Decision<S, R>): Promise<R> {
  let next = decision.next();
  while (!next.done) next = decision.next(await perform(steps, next.value));
  return next.value;
}
