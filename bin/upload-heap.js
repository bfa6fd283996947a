'use strict';
// Peak memory of a long `upload` (issue 17; bench/notes.md). Heap snapshots taken during 2,000-
// and 10,000-file runs hold ~13 MB of live objects whatever the number of files, yet the peak
// grew with the run: V8 doubles its young generation (up to 2 × 16 MiB) once enough objects have
// survived its scavenges, which a long upload always does; and it runs its first full collection
// only when the old generation reaches a limit sized for big heaps (57 MB, mostly garbage, at
// file 4,300 of 10,000). After one full collection the limit follows what is live.
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');

/** Keeps the young generation at its first size and runs a full collection every `everyMs`. */
function boundUploadHeap(everyMs = 10_000) {
  // Read by V8 each time it would grow the young generation, so it applies to this heap.
  setFlagsFromString('--semi-space-growth-factor=1');
  // `gc` from a fresh context made while --expose-gc is on; the flag is turned off again, so
  // the program's own global has no `gc`. A full collection of this heap takes ~10 ms.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  setFlagsFromString('--no-expose-gc');
  setInterval(gc, everyMs).unref();
  return gc;
}

module.exports = { boundUploadHeap };
