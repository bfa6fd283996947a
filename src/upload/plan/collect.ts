// A full collection between planning's phases. Scanning and deciding 100,000 files are long
// synchronous stretches (the walk's and the inspection's slices, then `decide`, ~0.3–0.7 s
// each) in which what each phase leaves behind is promoted before the upload's heap bound
// (bin/upload-heap.js, looked at every 250 ms) can act: planning 100,000 files took the heap to
// ~53 MB, and the process's RSS with it (bench/notes.md, issue 41). One collection once the
// files are inspected (scan.ts, before the sidecars), one after the scan (~20–50 ms each) lets
// `decide` start from what the plan holds, and one after `decide` lets sending start from it.
import { collector } from '../../heap/gc.js';

/** Files scanned below which a collection is not worth its time. */
const MIN_FILES = 10_000;

/**
 * Collects the heap now, when `files` were planned: a large plan's phases leave much behind. A
 * last-resort collection, which also returns the emptied pages: after a plain one the pages the
 * scan had filled stayed committed, and the run's RSS from then on depended on how far the scan's
 * heap had grown (100,000 files: 27 to 53 MB of V8 pages resident after it, run to run).
 */
export function collectAfter(files: number): void {
  if (files < MIN_FILES) return;
  collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
