// `serve --rate-limit N/WINDOW_MS` (docs/deploy.md, Rate limits): a fixed window of N requests per
// API key, and a small window per client address for requests without a valid key (no key, a
// malformed one, an unknown or revoked one): past it they get 429 instead of 401, while valid
// keys from the same address (a shared NAT, a load balancer) are not held back. Counted in this
// process's memory: with several instances each counts its own share.
import { apiError } from './errors.js';
import { type RateLimit, UNAUTHENTICATED_RATE_LIMIT } from './limits.js';

/** Above this many tracked keys or addresses, windows that ended are dropped. */
const PRUNE_ABOVE = 10_000;

interface Window {
  start: number;
  count: number;
}

/** Fixed windows by id: `hit` counts one request and says how long to wait once over the limit. */
export function fixedWindows(limit: RateLimit, now: () => Date) {
  const windows = new Map<string, Window>();
  function current(id: string, t: number): Window {
    let w = windows.get(id);
    if (!w || t - w.start >= limit.windowMs) {
      if (!w && windows.size >= PRUNE_ABOVE) {
        for (const [k, old] of windows) if (t - old.start >= limit.windowMs) windows.delete(k);
      }
      w = { start: t, count: 0 };
      windows.set(id, w);
    }
    return w;
  }
  /** Seconds to wait when `id` is over the limit (without counting a request), else 0. */
  function waitFor(id: string): number {
    const t = now().getTime();
    const w = current(id, t);
    return w.count >= limit.max ? Math.max(1, Math.ceil((w.start + limit.windowMs - t) / 1000)) : 0;
  }
  return {
    /** Counts one request of `id`; seconds to wait when it went over the limit, else 0. */
    hit(id: string): number {
      const wait = waitFor(id);
      if (wait === 0) current(id, now().getTime()).count++;
      return wait;
    },
  };
}

function limited(limit: RateLimit, retryAfter: number, who: string) {
  return apiError(
    'rate_limited',
    `too many requests ${who}: at most ${limit.max} per ${limit.windowMs / 1000} s; retry after ${retryAfter} s`,
    [],
    { 'Retry-After': String(retryAfter) },
  );
}

export interface RateLimiter {
  /** The request had no valid key: it counts against its address, and past the limit is a 429. */
  unauthenticated(address: string): void;
  /** The key's own window. */
  checkKey(keyId: string): void;
}

export function createRateLimiter(
  perKey: RateLimit,
  now: () => Date,
  perAddress: RateLimit = UNAUTHENTICATED_RATE_LIMIT,
): RateLimiter {
  const keys = fixedWindows(perKey, now);
  const addresses = fixedWindows(perAddress, now);
  return {
    unauthenticated(address) {
      const wait = addresses.hit(address);
      if (wait > 0) throw limited(perAddress, wait, 'without a valid API key from this address');
    },
    checkKey(keyId) {
      const wait = keys.hit(keyId);
      if (wait > 0) throw limited(perKey, wait, 'with this API key');
    },
  };
}
