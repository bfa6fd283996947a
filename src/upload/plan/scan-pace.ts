// How planning reads the files it inspects. Synchronous calls, one file at a time, cost far less
// CPU than promise-based ones when the answers come from the page cache (100,000 files: about
// 1.5 s instead of 11 s on 2 cores; bench/results.md), but they make the process wait for each
// file in turn. When the disk is what each file waits for (a cold cache, a network share), the
// same files go faster a few at a time through the thread pool.

/** A slice of synchronous inspection averaging more than this per file is waiting on the disk. */
export const SLOW_FILE_MS = 1;

/** Keep going synchronously, or hand the rest to the thread pool: from one slice's time and files. */
export function inspectionMode(sliceMs: number, files: number): 'sync' | 'parallel' {
  return files > 0 && sliceMs / files > SLOW_FILE_MS ? 'parallel' : 'sync';
}

/** Synchronous work runs this long at most before letting the event loop turn (Ctrl-C, output). */
export const SLICE_MS = 20;
