// The hint after a Ctrl-C that does not end a command soon, and the wait before an exit that a
// pending file call would hold (src/cli/still-stopping.ts). The held stop itself, on a real FUSE
// mount that stopped answering, is test/e2e/stalled-share.test.ts.
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  STILL_STOPPING,
  STILL_STOPPING_MS,
  fileCallPending,
  hintIfStillStopping,
  waitForFileCalls,
} from '../../src/cli/still-stopping.js';

describe('hintIfStillStopping', () => {
  afterEach(() => void vi.useRealTimers());

  it('says how to end the stop once, after STILL_STOPPING_MS', () => {
    vi.useFakeTimers();
    const said: string[] = [];
    hintIfStillStopping((text) => said.push(text));
    vi.advanceTimersByTime(STILL_STOPPING_MS - 1);
    expect(said).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(said).toEqual([STILL_STOPPING]);
    vi.advanceTimersByTime(60_000);
    expect(said).toHaveLength(1);
    expect(STILL_STOPPING).toMatch(/press Ctrl-C again to quit now\n$/);
  });

  it('keeps nothing alive: its timer is unref’d', () => {
    const unref = vi.fn();
    const spy = vi.spyOn(globalThis, 'setTimeout').mockReturnValue({ unref } as unknown as NodeJS.Timeout);
    try {
      hintIfStillStopping(() => undefined);
      expect(unref).toHaveBeenCalledOnce();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('fileCallPending', () => {
  it.each([
    [['FSReqPromise'], true],
    [['TTYWrap', 'FSReqCallback', 'Timeout'], true],
    [['TTYWrap', 'Timeout', 'TCPWrap'], false],
    [['FSEventWrap'], false],
    [[], false],
  ])('%j → %s', (resources, pending) => {
    expect(fileCallPending(resources)).toBe(pending);
  });

  it('sees a real file call on the thread pool', async () => {
    const call = stat(import.meta.filename);
    expect(fileCallPending()).toBe(true);
    await call;
  });
});

describe('waitForFileCalls', () => {
  /** A clock that only moves when slept on, and the sleeps asked for. */
  function clock(pendingPolls: number) {
    let t = 1000;
    let polls = 0;
    const sleeps: number[] = [];
    const deps = {
      now: () => t,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        t += ms;
      },
      pending: () => polls++ < pendingPolls,
    };
    return { deps, sleeps, at: () => t };
  }

  it('returns at once when no file call is pending', async () => {
    const c = clock(0);
    await waitForFileCalls(3000, c.deps);
    expect(c.sleeps).toEqual([]);
  });

  it('returns as soon as the pending call has ended', async () => {
    const c = clock(3);
    await waitForFileCalls(3000, c.deps);
    expect(c.sleeps).toEqual([20, 20, 20]);
    expect(c.at()).toBe(1060);
  });

  it('gives up at `until` when a call stays pending (stuck): the exit holds, the hint given by then', async () => {
    const c = clock(Number.POSITIVE_INFINITY);
    await waitForFileCalls(1050, c.deps);
    expect(c.sleeps).toEqual([20, 20, 10]);
    expect(c.at()).toBe(1050);
  });
});
