// A file's slices read synchronously while that is quick, through the thread pool once the disk
// proves slow (src/fs/slow-pace.ts): how a multipart upload reads its parts (./parts.ts).
//
// Why: each read through the thread pool is a hand-off there and back (a futex wake of a worker,
// then an eventfd wake of the main thread), and a 1 GiB file sent as parts reads 1,024 slices of
// 1 MiB. On loopback that doubled the upload's voluntary context switches against a single PUT
// (~3,600 against ~2,000) and cost ~60–70 ms of CPU per GiB; a 1 MiB read in the page cache takes
// ~0.1–0.3 ms, so holding the event loop for it costs nothing the hand-offs did not
// (bench/notes.md, issue 41). The bytes are the same either way: only who waits for them changes.
// A slow disk (three reads in a row over SLOW_READ_MS: a network or spinning disk, not one read
// that the scheduler delayed) is read through the thread pool for the rest of the file, so that it
// never holds progress, Ctrl-C or the other parts' sockets; a file on a network share or a FUSE
// mount, where every read waits for a server, from its first read (src/fs/stalling-fs.ts).
import { readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { slowPace } from '../../fs/slow-pace.js';
import { type SliceRead, readThroughPool } from './put.js';

/** A synchronous read slower than this is slow (src/fs/slow-pace.ts counts them in a row). */
export const SLOW_READ_MS = 20;

/**
 * One file's reader: synchronous until the disk proves slow, then through the thread pool. Share
 * it between the parts of one file, so that a slow disk once found stays found. `slowMs` -1
 * (tests): every read is slow, so the reads leave the main thread after the first few.
 * `stalls`: the file is on a network share or a FUSE mount (src/fs/stalling-fs.ts), where every
 * read waits for a server: every read goes through the thread pool.
 */
export function pacedRead(slowMs = SLOW_READ_MS, stalls = false): SliceRead & { readonly synchronous: boolean } {
  const slowDisk = slowPace(slowMs);
  let quick = !stalls;
  const read = (handle: Parameters<SliceRead>[0], buf: Buffer, length: number, position: number): Promise<number> => {
    if (!quick) return readThroughPool(handle, buf, length, position);
    const t0 = performance.now();
    let n: number;
    try {
      n = readSync(handle.fd, buf, 0, length, position);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (slowDisk(performance.now() - t0)) quick = false;
    return Promise.resolve(n);
  };
  return Object.defineProperty(read, 'synchronous', { get: () => quick }) as SliceRead & {
    readonly synchronous: boolean;
  };
}
