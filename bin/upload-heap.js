'use strict';
// Peak memory of a long `upload` (issues 17 and 41; bench/notes.md). Heap snapshots taken during
// 2,000- and 10,000-file runs hold ~13–25 MB of live objects, yet the peak grew with the run:
// V8 doubles its young generation (up to 2 × 16 MiB) once enough objects have survived its
// scavenges, which a long upload always does; and it runs its first full collection only when
// the old generation reaches a limit sized for big heaps, so the garbage that planning and the
// first transfers promote (and the Buffers it holds, outside the heap) stays until then. A full
// collection every 10 s left the first 10 s to that: a 10,000-file upload reached 38 MB of heap
// there and its RSS never came back down. And a plain full collection frees objects but keeps the
// pages they were on: over a 100,000-file upload the heap V8 kept committed crept up with the
// holes (RSS 102.4 → 104.5 MB while sending); a last-resort collection, which compacts and hands
// emptied pages back, once a minute at most keeps it flat (100.7–102.1 MB; bench/notes.md).
const { getHeapStatistics, setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');

/** How often the heap is looked at (a few microseconds each). */
const CHECK_MS = 250;
/** A full collection once the heap has grown this much since the last one (~10 ms each). */
const GROWTH_BYTES = 6 * 1024 * 1024;
/** And at least this often, whatever it grew. */
const EVERY_MS = 10_000;
/**
 * At most this often, the collection is V8's last-resort one, which also compacts the heap and
 * hands its emptied pages back (a plain one frees the objects but keeps the pages they were on).
 */
const COMPACT_EVERY_MS = 60_000;

/**
 * Keeps the young generation at its first size and runs a full collection whenever the heap has
 * grown GROWTH_BYTES since the last one (at least every EVERY_MS), so what a run leaves for the
 * collector stays bounded by that, not by V8's limits for big heaps. `checkMs` is for tests.
 */
function boundUploadHeap(checkMs = CHECK_MS) {
  const heap = prepareUploadHeap();
  heap.start(checkMs);
  return heap.gc;
}

/**
 * boundUploadHeap in two steps, for the launcher: the V8 flags now, before the bundle is compiled
 * (a code cache is valid only under the flags it was made with), and `start` once the program is
 * loaded, so that the heap it is loaded with (~12 MB: the bundle's code, zod's schemas) is the
 * base the growth is measured from. Measured from before the load, that alone was growth, and
 * every run paid a full collection at its first look (25 ms of CPU for an upload of one file,
 * 14 ms for a download: bench/notes.md).
 */
function prepareUploadHeap() {
  // Read by V8 each time it would grow the young generation, so it applies to this heap.
  setFlagsFromString('--semi-space-growth-factor=1');
  // `gc` from a fresh context made while --expose-gc is on; the flag is turned off again, so
  // the program's own global has no `gc`.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  setFlagsFromString('--no-expose-gc');
  const used = () => getHeapStatistics().used_heap_size;
  return {
    gc,
    start(checkMs = CHECK_MS, compactEveryMs = COMPACT_EVERY_MS) {
      let base = used();
      let at = Date.now();
      let compactedAt = at;
      setInterval(() => {
        const now = Date.now();
        if (used() - base < GROWTH_BYTES && now - at < EVERY_MS) return;
        if (now - compactedAt < compactEveryMs) gc();
        else {
          gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
          compactedAt = now;
        }
        base = used();
        at = now;
      }, checkMs).unref();
    },
  };
}

module.exports = { boundUploadHeap, prepareUploadHeap };
