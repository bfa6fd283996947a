// V8's collector on demand, for the long commands' own collections: after a large plan's phases
// (src/upload/plan/collect.ts) and during the bodies a download or `serve` receives
// (src/heap/scavenge.ts). `gc` is taken from a fresh context while --expose-gc is briefly on, so
// the program's own global has none. bin/upload-heap.js, which runs before the bundle is loaded
// and cannot import it, does the same for the upload's heap bound.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full collection, or with `{ type: 'minor' }` a scavenge of the young generation. With
 * `{ type: 'major', execution: 'sync', flavor: 'last-resort' }` V8 collects until nothing more
 * comes free and hands the emptied pages back to the system; a plain full collection frees the
 * objects but keeps the pages they were on (a heap of 100 MB collected to 5 MB live: 102 MB
 * still committed, 7 MB after a last-resort one).
 */
export type Gc = (o?: {
  type: 'minor' | 'major';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

let gc: Gc | undefined;

/** The collector, made on first use. */
export function collector(): Gc {
  if (gc) return gc;
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as Gc;
  setFlagsFromString('--no-expose-gc');
  return gc;
}
