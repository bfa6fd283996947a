import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, backoffDelay, parseRetryAfter, withRetry } from '../../src/api/retry.js';

const noSleep = async () => {};

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
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error(`fail ${calls}`);
        },
        { policy: { ...DEFAULT_RETRY, attempts: 3 }, sleep: noSleep, classify: () => ({ retry: true }) },
      ),
    ).rejects.toThrow('fail 3');
    expect(calls).toBe(3);
  });

  it('never retries what classify refuses, and honours the server delay', async () => {
    const slept: number[] = [];
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error(calls === 1 ? 'busy' : 'fatal');
        },
        {
          policy: DEFAULT_RETRY,
          sleep: async (ms) => void slept.push(ms),
          classify: (e) => ((e as Error).message === 'busy' ? { retry: true, afterMs: 1234 } : { retry: false }),
        },
      ),
    ).rejects.toThrow('fatal');
    expect(slept).toEqual([1234]);
    expect(calls).toBe(2);
  });
});
