// The boundary between the routes and their dependencies: every call to the Repo or the Storage
// goes through a guard that turns "the dependency cannot be used now" into an UnavailableError
// (./unavailable.ts), tells the outage log, and, where the dependency has no time limit of its
// own (the data dir's disk), gives up after a deadline. Routes and the sweeper stay unaware.
import type { OutageLog } from './ops/outages.js';
import { type DependencyPart, UnavailableError, asUnavailable } from './unavailable.js';

export interface GuardOptions<T> {
  part: DependencyPart;
  outages: OutageLog;
  /** Methods that never reach the dependency (signing a URL) or whose errors are not its own (a PUT body). */
  passThrough?: ReadonlyArray<keyof T>;
  /**
   * A call still unanswered after this many milliseconds fails as unavailable. For dependencies
   * without timeouts of their own (file system calls on a hung network disk); the call itself
   * goes on in the background, and its result is dropped.
   */
  deadlineMs?: number;
}

function withDeadline<R>(work: Promise<R>, part: DependencyPart, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnavailableError(part, `no answer within ${ms} ms`)), ms);
  });
  // A call that fails after its deadline has nobody left to hear it.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `target` with every method guarded; the same object shape, so callers cannot tell. */
export function outageGuard<T extends object>(target: T, o: GuardOptions<T>): T {
  const passThrough = new Set<PropertyKey>(o.passThrough ?? []);
  const wrapped = new Map<PropertyKey, unknown>();
  const classify = (err: unknown): unknown => {
    const typed = asUnavailable(o.part, err);
    if (typed instanceof UnavailableError) o.outages.failed(typed);
    return typed;
  };
  const settle = <R>(work: Promise<R>): Promise<R> =>
    (o.deadlineMs ? withDeadline(work, o.part, o.deadlineMs) : work).then(
      (value) => {
        o.outages.succeeded(o.part);
        return value;
      },
      (err: unknown) => {
        throw classify(err);
      },
    );
  return new Proxy(target, {
    get(obj, name, receiver) {
      const value: unknown = Reflect.get(obj, name, receiver);
      if (typeof value !== 'function' || passThrough.has(name)) return value;
      let fn = wrapped.get(name);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]) => {
          let result: unknown;
          try {
            result = method.apply(obj, args);
          } catch (err) {
            throw classify(err);
          }
          return result instanceof Promise ? settle(result) : result;
        };
        wrapped.set(name, fn);
      }
      return fn;
    },
  });
}
