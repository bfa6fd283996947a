import { describe, expect, it } from 'vitest';
import {
  ApiError,
  NetworkError,
  TimeoutError,
  UnexpectedResponseError,
  classifyForRetry,
} from '../../src/api/errors.js';
import { DEFAULT_RETRY, backoffDelay, createOutageWatch, parseRetryAfter, withRetry } from '../../src/api/retry.js';

const noSleep = async () => {};

/** A call that always fails, counting its calls: `message(n)` is the error of the n-th. */
function failing(message: (n: number) => string) {
  const f = {
    calls: 0,
    run: async (): Promise<never> => {
      f.calls++;
      throw new Error(message(f.calls));
    },
  };
  return f;
}

describe('backoff', () => {
  it('grows exponentially up to the cap, with full jitter', () => {
    expect(backoffDelay(0, DEFAULT_RETRY, () => 0.999)).toBe(499);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, DEFAULT_RETRY, () => 0.999)).toBe(29_970);
    expect(backoffDelay(5, DEFAULT_RETRY, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or a date, capped', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('99999', now)).toBe(120_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('withRetry', () => {
  it('retries until success and reports each wait', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new Error('flaky');
        return 'ok';
      },
      {
        policy: DEFAULT_RETRY,
        sleep: noSleep,
        classify: () => ({ retry: true }),
        onRetry: (i) => waits.push(i.attempt),
        random: () => 0,
      },
    );
    expect(result).toBe('ok');
    expect(waits).toEqual([1, 2]);
  });

  it('stops at the attempt limit and rethrows the last error', async () => {
    const fails = failing((n) => `fail ${n}`);
    await expect(
      withRetry(fails.run, {
        policy: { ...DEFAULT_RETRY, attempts: 3 },
        sleep: noSleep,
        classify: () => ({ retry: true }),
      }),
    ).rejects.toThrow('fail 3');
    expect(fails.calls).toBe(3);
  });

  it('never retries what classify refuses, and honours the server delay', async () => {
    const slept: number[] = [];
    const fails = failing((n) => (n === 1 ? 'busy' : 'fatal'));
    await expect(
      withRetry(fails.run, {
        policy: DEFAULT_RETRY,
        sleep: async (ms) => void slept.push(ms),
        classify: (e) => ((e as Error).message === 'busy' ? { retry: true, afterMs: 1234 } : { retry: false }),
      }),
    ).rejects.toThrow('fatal');
    expect(slept).toEqual([1234]);
    expect(fails.calls).toBe(2);
  });
});

describe('riding out an outage', () => {
  /** A clock that the sleeps move: waits take no real time, and their sum is what they would take. */
  function fakeTime() {
    let t = 0;
    const slept: number[] = [];
    return {
      now: () => t,
      sleep: async (ms: number) => {
        slept.push(ms);
        t += ms;
      },
      slept,
    };
  }
  const outage = () => ({ retry: true as const, outage: true });

  it('keeps trying past the attempt limit for rideOutMs, with short waits, then gives up', async () => {
    const time = fakeTime();
    const fails = failing(() => 'refused');
    const outages: Array<number | undefined> = [];
    await expect(
      withRetry(fails.run, {
        policy: { ...DEFAULT_RETRY, rideOutMs: 60_000 },
        ...time,
        classify: outage,
        random: () => 0.999,
        onRetry: (i) => outages.push(i.outage?.rideOutMs),
      }),
    ).rejects.toThrow('refused');
    expect(fails.calls).toBeGreaterThan(DEFAULT_RETRY.attempts);
    // Waits stay between 100 ms and 5 s; the last is cut to what is left of the minute.
    expect(Math.max(...time.slept)).toBeLessThanOrEqual(5_000);
    expect(Math.min(...time.slept)).toBeGreaterThanOrEqual(100);
    expect(time.now()).toBe(60_000);
    expect(new Set(outages)).toEqual(new Set([60_000]));
  });

  it('loops sharing a watch share the outage: the run waits about rideOutMs in all, not each loop', async () => {
    const time = fakeTime();
    const watch = createOutageWatch(() => {});
    const opts = {
      policy: { ...DEFAULT_RETRY, rideOutMs: 5_000, watch },
      ...time,
      classify: outage,
      random: () => 0.999,
    };
    const fail = async () => {
      throw new Error('refused');
    };
    await expect(withRetry(fail, opts)).rejects.toThrow('refused');
    expect(time.now()).toBe(5_000);
    // A later request of the same run (the next file) meets the same outage: no wait of its own.
    await expect(withRetry(fail, opts)).rejects.toThrow('refused');
    expect(time.now()).toBe(5_000);
    // Once the service answered, a new outage gets the whole ride-out again.
    await withRetry(async () => 'ok', opts);
    await expect(withRetry(fail, opts)).rejects.toThrow('refused');
    expect(time.now()).toBe(10_000);
  });

  it('a service back after 15 s: the call succeeds', async () => {
    const time = fakeTime();
    const result = await withRetry(
      async () => {
        if (time.now() < 15_000) throw new Error('refused');
        return 'ok';
      },
      { policy: DEFAULT_RETRY, ...time, classify: outage, random: () => 0.5 },
    );
    expect(result).toBe('ok');
    expect(time.now()).toBeGreaterThanOrEqual(15_000);
    expect(time.now()).toBeLessThan(21_000);
  });

  it('honours Retry-After within the ride-out, and rideOutMs 0 keeps the attempt limit', async () => {
    const time = fakeTime();
    let fails = failing(() => '503');
    await expect(
      withRetry(fails.run, {
        policy: { ...DEFAULT_RETRY, rideOutMs: 10_000 },
        ...time,
        classify: () => ({ ...outage(), afterMs: 3000 }),
      }),
    ).rejects.toThrow('503');
    expect(time.slept).toEqual([3000, 3000, 3000, 1000]);
    fails = failing(() => 'refused');
    await expect(
      withRetry(fails.run, { policy: { ...DEFAULT_RETRY, rideOutMs: 0 }, ...fakeTime(), classify: outage }),
    ).rejects.toThrow('refused');
    expect(fails.calls).toBe(DEFAULT_RETRY.attempts);
  });

  it('a failure that is not an outage ends the ride-out: the attempt limit applies again', async () => {
    const time = fakeTime();
    const fails = failing((n) => (n < 20 ? 'refused' : 'internal'));
    await expect(
      withRetry(fails.run, {
        policy: DEFAULT_RETRY,
        ...time,
        classify: (e) => ((e as Error).message === 'refused' ? outage() : { retry: true }),
        random: () => 0,
      }),
    ).rejects.toThrow('internal');
    expect(fails.calls).toBe(20);
  });
});

describe('classifyForRetry: what is an outage', () => {
  const at = { method: 'GET', url: 'http://svc/api/v1/content' };
  const api = (status: number, retryAfterMs?: number) =>
    new ApiError({ status, code: 'x', message: 'm', ...at, ...(retryAfterMs ? { retryAfterMs } : {}) });
  it.each([
    [
      'connection refused',
      new NetworkError({ message: 'm', code: 'ECONNREFUSED', ...at }),
      { retry: true, outage: true },
    ],
    ['connection reset', new NetworkError({ message: 'm', code: 'ECONNRESET', ...at }), { retry: true, outage: true }],
    [
      'host not found (a typo, not an outage)',
      new NetworkError({ message: 'm', code: 'ENOTFOUND', ...at }),
      { retry: true },
    ],
    ['a timeout', new TimeoutError({ ...at, timeoutMs: 30_000 }), { retry: true }],
    ['503 with Retry-After', api(503, 3000), { retry: true, afterMs: 3000, outage: true }],
    ['502 from our error body', api(502), { retry: true, outage: true }],
    ['500', api(500), { retry: true }],
    ['429 with Retry-After', api(429, 2000), { retry: true, afterMs: 2000, outage: true }],
    ['429 without', api(429), { retry: true }],
    ['400', api(400), { retry: false }],
    [
      "a load balancer's 504 page",
      new UnexpectedResponseError({ status: 504, message: 'm', bodySnippet: '<html>', ...at }),
      { retry: true, outage: true },
    ],
  ])('%s', (_name, err, expected) => {
    expect(classifyForRetry(err)).toEqual(expected);
  });
});
