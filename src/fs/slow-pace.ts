// Whether a disk is slow enough that a file's reads or writes should leave the main thread.
//
// A download writes its part file synchronously while that is quick (src/download/fetch.ts
// handleWritable), and a multipart upload reads its parts so (src/upload/send/parts.ts): a 64 KiB
// write or a 1 MiB read in the page cache takes tens to hundreds of microseconds, and handing
// each to the thread pool cost a 1 GiB download ~0.1 s of CPU and much of its pace, a 1 GiB
// upload as parts ~0.07 s (bench/notes.md, issue 41). A slow or network disk must not hold the
// event loop (progress, Ctrl-C, the other transfers), so its reads and writes go to the thread
// pool. One slow call does not make a slow disk, though: on 2 shared cores at load 10, 2–6 of a
// 1 GiB download's 16,000 writes took 20–90 ms each, one at a time (the process was descheduled,
// or the kernel reclaimed pages), and the first of them turned the rest of the file
// asynchronous. A disk is judged slow after SLOW_IN_A_ROW slow calls in a row.

/** Slow calls in a row after which a disk is slow. */
export const SLOW_IN_A_ROW = 3;

/**
 * Tell it each synchronous call's duration; it answers true once SLOW_IN_A_ROW calls in a row
 * have each taken longer than `slowMs`, and from then on (a disk judged slow stays so for the
 * file).
 */
export function slowPace(slowMs: number): (ms: number) => boolean {
  let inARow = 0;
  return (ms) => {
    if (inARow >= SLOW_IN_A_ROW) return true;
    inARow = ms > slowMs ? inARow + 1 : 0;
    return inARow >= SLOW_IN_A_ROW;
  };
}
