// A bounded pool: at most `size` tasks run at once, the rest wait in FIFO order. Tasks queued
// after the signal aborts are rejected without running, so Ctrl-C starts nothing new.

export interface Pool {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export class PoolAbortedError extends Error {
  constructor() {
    super('not started: the upload was interrupted');
    this.name = 'PoolAbortedError';
  }
}

export function createPool(size: number, signal?: AbortSignal): Pool {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a whole number ≥ 1, got ${size}`);
  let running = 0;
  const waiting: Array<() => void> = [];

  // A finishing task hands its slot straight to the next waiter, so a newcomer cannot slip in
  // between and push the count over `size`.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      try {
        if (signal?.aborted) throw new PoolAbortedError();
        return await task();
      } finally {
        release();
      }
    },
  };
}

/**
 * Slots taken and given back by hand, in FIFO order: the engine's window of files between their
 * presign and their complete. acquire() resolves false (taking nothing) once `signal` aborts, so
 * a stopped run stops admitting files.
 */
export interface Slots {
  acquire(): Promise<boolean>;
  release(): void;
}

export function createSlots(size: number, signal: AbortSignal): Slots {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`slot count must be a whole number ≥ 1, got ${size}`);
  let free = size;
  const waiting: Array<(ok: boolean) => void> = [];
  signal.addEventListener('abort', () => waiting.splice(0).forEach((w) => w(false)), { once: true });
  return {
    acquire() {
      if (signal.aborted) return Promise.resolve(false);
      if (free > 0) {
        free--;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
    release() {
      // A slot given back goes straight to the next waiter, so the count can never exceed `size`.
      const next = waiting.shift();
      if (next) next(true);
      else free++;
    },
  };
}
