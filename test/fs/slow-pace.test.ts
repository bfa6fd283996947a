// When a file's reads or writes leave the main thread: after slow calls in a row, not after one
// (a loaded machine makes single writes slow on any disk).
import { describe, expect, it } from 'vitest';
import { SLOW_IN_A_ROW, slowPace } from '../../src/fs/slow-pace.js';

/** Each answer of a fresh slowPace(20) to these durations. */
function answers(durations: number[]): boolean[] {
  const slow = slowPace(20);
  return durations.map((ms) => slow(ms));
}

describe('slowPace', () => {
  it('quick writes: never slow', () => {
    expect(answers([0.05, 1, 19.9, 20, 0.1])).toEqual([false, false, false, false, false]);
  });

  it(`runs of fewer than ${SLOW_IN_A_ROW} slow writes, among quick ones: never slow`, () => {
    const durations = Array.from({ length: 60 }, (_, i) => (i % SLOW_IN_A_ROW === 0 ? 0.1 : 90));
    expect(answers(durations).some(Boolean)).toBe(false);
  });

  it(`${SLOW_IN_A_ROW} slow writes in a row: slow from the last of them on, whatever comes after`, () => {
    const run = Array.from({ length: SLOW_IN_A_ROW }, () => 25);
    const got = answers([0.1, ...run, 0.1, 0.1]);
    expect(got).toEqual([false, ...run.map((_, i) => i === SLOW_IN_A_ROW - 1), true, true]);
  });

  it('a quick write breaks the run: counting starts again', () => {
    const almost = Array.from({ length: SLOW_IN_A_ROW - 1 }, () => 50);
    expect(answers([...almost, 0.1, ...almost]).some(Boolean)).toBe(false);
    expect(answers([...almost, 0.1, ...almost, 50]).at(-1)).toBe(true);
  });

  it('a limit of -1 (tests: every write is slow): slow after the first run of writes', () => {
    const slow = slowPace(-1);
    const got = Array.from({ length: SLOW_IN_A_ROW + 1 }, () => slow(0));
    expect(got).toEqual([...Array.from({ length: SLOW_IN_A_ROW - 1 }, () => false), true, true]);
  });
});
