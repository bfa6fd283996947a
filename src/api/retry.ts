// Retries with exponential backoff and full jitter (AWS architecture blog, "Exponential Backoff
// And Jitter"): delay = random(0, min(cap, base * 2^attempt)), or the server's Retry-After when
// it gives one. Shared by the API client (idempotent requests) and the upload engine (PUTs).

export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseMs: number;
  capMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseMs: 500, capMs: 30_000 };

/** Tests set this: the same number of tries, no waiting. */
export const NO_WAIT_RETRY: RetryPolicy = { attempts: 5, baseMs: 0, capMs: 0 };

/** How long to wait before try number `attempt + 1` (attempt counts from 0 for the first retry). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is either seconds or an HTTP date. Returns milliseconds to wait, or undefined when
 * absent or unreadable. Capped so a hostile or broken server cannot park us for hours.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date, capMs = 120_000): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, capMs);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), capMs);
}

/** What a failed try tells the loop: give up, or retry (after the server's delay, if it named one). */
export type RetryDecision = { retry: false } | { retry: true; afterMs?: number };

export interface RetryOptions {
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Decides from the error whether another try may help. */
  classify: (err: unknown) => RetryDecision;
  /** Called before each wait, for --verbose traces and progress lines. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  random?: () => number;
}

/** Runs `fn` until it succeeds, `classify` says stop, the tries run out, or `signal` aborts. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const decision = opts.classify(err);
      if (!decision.retry || attempt + 1 >= opts.policy.attempts) throw err;
      const delayMs = decision.afterMs ?? backoffDelay(attempt, opts.policy, opts.random);
      opts.onRetry?.({ attempt: attempt + 1, delayMs, error: err });
      await opts.sleep(delayMs, opts.signal);
    }
  }
}
