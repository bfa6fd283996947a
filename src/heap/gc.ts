// V8's collector on demand, for the long commands' own collections: after a large plan's phases
// (src/upload/plan/collect.ts) and during a download's body (src/download/scavenge.ts). `gc` is
// taken from a fresh context while --expose-gc is briefly on, so the program's own global has
// none. bin/upload-heap.js, which runs before the bundle is loaded and cannot import it, does the
// same for the upload's heap bound.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full collection, or with `{ type: 'minor' }` a scavenge of the young generation. */
export type Gc = (o?: { type: 'minor' | 'major' }) => void;

let gc: Gc | undefined;

/** The collector, made on first use. */
export function collector(): Gc {
  if (gc) return gc;
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as Gc;
  setFlagsFromString('--no-expose-gc');
  return gc;
}
