// One function at a time per key, in call order, within this process: a second complete (or
// thumbnail attach, or disk write) of a key waits for the first and then sees its result,
// instead of racing it for the same staging object.

/** Returns `withLock(key, fn)`, which runs `fn` after every earlier call for the same key has settled. */
export function keyLocks() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      // The last caller of a key removes it, so the map holds only keys in use.
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
