// Retries with exponential backoff and full jitter (AWS architecture blog, "Exponential Backoff
// And Jitter"): delay = random(0, min(cap, base * 2^attempt)), or the server's Retry-After when
// it gives one. Shared by the API client (idempotent requests) and the upload engine (PUTs).

export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseMs: number;
  capMs: number;
  /**
   * An outage (connection refused or reset, 502/503/504, an answer with Retry-After) is ridden
   * out: retried past `attempts` until this many milliseconds have passed since it began, long
   * enough for a rolling restart of the service. 0 or unset: `attempts` alone.
   */
  rideOutMs?: number;
  /** Told when an outage starts being ridden out, and when a try succeeds (createOutageWatch). */
  watch?: OutageWatch;
}

/**
 * Who hears of outages: every retry loop of a run shares one, so an outage is said once, and is
 * timed once: `--retry-for 5` bounds the wait of the whole run to about 5 s, not each request's
 * (9 files meeting one outage, each timing it from its own first failure, waited 10 s).
 */
export interface OutageWatch {
  /**
   * When the outage a loop meets at `now` began: the first failure of any loop since a try last
   * succeeded (`now` itself when this is the first).
   */
  begin(now: number): number;
  /** A retry loop rides out an outage caused by `error`, for `forMs` more at most. */
  waiting(w: { error: unknown; forMs: number }): void;
  /** A try succeeded: the service answers. */
  answered(): void;
}

/**
 * An OutageWatch that calls `say` once when loops start riding out an outage, and again only
 * after some try has succeeded since: concurrent requests and PUTs meeting one restart of the
 * service make one line, not one per try.
 */
export function createOutageWatch(say: (w: { error: unknown; forMs: number }) => void): OutageWatch {
  let waiting = false;
  let since: number | undefined;
  return {
    begin(now) {
      since ??= now;
      return since;
    },
    waiting(w) {
      if (waiting) return;
      waiting = true;
      say(w);
    },
    answered() {
      waiting = false;
      since = undefined;
    },
  };
}

/** Long enough for a service to restart (or a load balancer to move to another instance). */
export const DEFAULT_RIDE_OUT_MS = 60_000;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseMs: 500, capMs: 30_000, rideOutMs: DEFAULT_RIDE_OUT_MS };

/** Tests set this: the same number of tries, no waiting, no riding out. */
export const NO_WAIT_RETRY: RetryPolicy = { attempts: 5, baseMs: 0, capMs: 0, rideOutMs: 0 };

/** While riding out an outage, waits stay short, so the service is used again soon after it is back. */
const RIDE_OUT_CAP_MS = 5_000;
/** …and never this short, so that a policy without waits does not spin. */
const RIDE_OUT_FLOOR_MS = 100;

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

/**
 * What a failed try tells the loop: give up, or retry (after the server's delay, if it named
 * one). `outage`: the service is down or restarting, not failing this request: ridden out.
 */
export type RetryDecision = { retry: false } | { retry: true; afterMs?: number; outage?: boolean };

/** A retry's report: `outage` is set while an outage is ridden out (since when, for how long at most). */
export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: unknown;
  outage?: { sinceMs: number; rideOutMs: number };
}

export interface RetryOptions {
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Decides from the error whether another try may help. */
  classify: (err: unknown) => RetryDecision;
  /** Called before each wait, for --verbose traces and progress lines. */
  onRetry?: (info: RetryInfo) => void;
  random?: () => number;
  /** Milliseconds, for how long an outage has lasted (default Date.now). */
  now?: () => number;
}

/**
 * Runs `fn` until it succeeds, `classify` says stop, the tries run out (an outage is ridden out
 * for `policy.rideOutMs` however many tries that takes), or `signal` aborts.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const now = opts.now ?? Date.now;
  const rideOutMs = opts.policy.rideOutMs ?? 0;
  let outageSince: number | undefined;
  for (let attempt = 0; ; attempt++) {
    let result: T;
    try {
      result = await fn(attempt);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const decision = opts.classify(err);
      if (!decision.retry) throw err;
      const t = now();
      // An outage is timed from its first failure (of any loop sharing the watch: the run's); any
      // other failure ends it for this loop.
      outageSince =
        decision.outage && rideOutMs > 0 ? (opts.policy.watch?.begin(outageSince ?? t) ?? outageSince ?? t) : undefined;
      const left = outageSince === undefined ? 0 : outageSince + rideOutMs - t;
      const riding = left > 0;
      // The outage has lasted the whole ride-out (the run's, when loops share a watch): give up
      // now, not after this loop's own tries too.
      if (outageSince !== undefined && !riding) throw err;
      if (!riding && attempt + 1 >= opts.policy.attempts) throw err;
      const policy = riding ? { ...opts.policy, capMs: Math.min(opts.policy.capMs, RIDE_OUT_CAP_MS) } : opts.policy;
      let delayMs = decision.afterMs ?? backoffDelay(attempt, policy, opts.random);
      if (riding) {
        delayMs = Math.max(RIDE_OUT_FLOOR_MS, Math.min(delayMs, left));
        opts.policy.watch?.waiting({ error: err, forMs: left });
      }
      opts.onRetry?.({
        attempt: attempt + 1,
        delayMs,
        error: err,
        ...(riding ? { outage: { sinceMs: outageSince!, rideOutMs } } : {}),
      });
      await opts.sleep(delayMs, opts.signal);
      continue;
    }
    opts.policy.watch?.answered();
    return result;
  }
}
