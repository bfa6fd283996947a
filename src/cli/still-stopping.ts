// What a person sees when Ctrl-C does not end a command soon. The first Ctrl-C stops cleanly
// (what was done is kept and summarised); a stop still going after a couple of seconds is waiting
// on something that has not answered: a read from a network share that stopped, a request, a
// server's drain. Node's own exit waits too, for a file call still on its thread pool (main.ts
// endBy). Either way the person is told once how to end it now: a second Ctrl-C.

/** How long a clean stop may take before the person is told how to end it. */
export const STILL_STOPPING_MS = 2000;

export const STILL_STOPPING =
  'contentlib: still stopping, waiting for a file or the server to answer; press Ctrl-C again to quit now\n';

/** Says STILL_STOPPING through `write` in `ms`, unless the process has ended by then (the timer holds nothing). */
export function hintIfStillStopping(write: (text: string) => void, ms = STILL_STOPPING_MS): void {
  setTimeout(() => write(STILL_STOPPING), ms).unref();
}

/**
 * Whether a file call is still on Node's thread pool (a read, a write, a stat…): process.exit
 * would wait for it, and a call stuck on a share that stopped answering never returns.
 */
export function fileCallPending(resources: readonly string[] = process.getActiveResourcesInfo()): boolean {
  return resources.some((name) => name.startsWith('FSReq'));
}

export interface WaitDeps {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  pending: () => boolean;
}

/**
 * After a clean stop, before process.exit: waits while a file call is pending, until `until` at
 * most. A call on a local disk ends within milliseconds; one still pending at `until` is stuck,
 * and the exit that follows will hold, so by then the hint (hintIfStillStopping, due before
 * `until`) has been given: where process.exit holds, no timer can run any more.
 */
export async function waitForFileCalls(until: number, deps: WaitDeps): Promise<void> {
  while (deps.pending() && deps.now() < until) await deps.sleep(Math.min(20, until - deps.now()));
}
