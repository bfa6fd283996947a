// Whether a part file's disk is slow enough that its writes should leave the main thread.
//
// A download writes synchronously while that is quick (fetch.ts handleWritable): a 64 KiB write
// into the page cache takes tens of microseconds, and handing each to the thread pool cost a
// 1 GiB download ~0.1 s of CPU and much of its pace (bench/notes.md, issue 41). A slow or network
// disk must not hold the event loop (progress, Ctrl-C, the other transfers of an export), so its
// writes go to the thread pool. One slow write does not make a slow disk, though: on 2 shared
// cores at load 10, 2–6 of a 1 GiB download's 16,000 writes took 20–90 ms each, one at a time
// (the process was descheduled, or the kernel reclaimed pages), and the first of them turned the
// rest of the file asynchronous. A disk is judged slow after SLOW_IN_A_ROW slow writes in a row.

/** Slow writes in a row after which a disk is slow. */
export const SLOW_IN_A_ROW = 3;

/**
 * Tell it each synchronous write's duration; it answers true once SLOW_IN_A_ROW writes in a row
 * have each taken longer than `slowMs`, and from then on (a disk judged slow stays so for the
 * file).
 */
export function writePace(slowMs: number): (ms: number) => boolean {
  let inARow = 0;
  return (ms) => {
    if (inARow >= SLOW_IN_A_ROW) return true;
    inARow = ms > slowMs ? inARow + 1 : 0;
    return inARow >= SLOW_IN_A_ROW;
  };
}
