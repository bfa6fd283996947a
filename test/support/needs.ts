// What a test needs of the machine (tmux for a real terminal, a tmpfs mount for a full disk).
// Where it is missing the test is skipped, saying what to install — except in CI, where a
// missing need is an error: CI must not go green without running the test. `.ci/run` installs
// what the tests need, and fails when it cannot.
import { spawnSync } from 'node:child_process';
import { inCi } from '../../src/cli/target.js';

/** CI=true (or any value but an explicit no), as the CLI itself reads it. */
export const IN_CI = inCi(process.env);

/** tmux answers `tmux -V`. */
export const HAS_TMUX = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

/**
 * True when the test is to be skipped for want of `what` (then it says so); never in CI, where
 * the want throws instead. For `describe.skipIf(…)` and `it.skipIf(…)`.
 */
export function skipWithout(what: string, available: boolean, howToGet: string): boolean {
  if (available) return false;
  const why = `${what} is missing (${howToGet})`;
  if (IN_CI) throw new Error(`${why}: CI does not skip the tests that need it`);
  console.warn(`skipped: ${why}`);
  return true;
}
