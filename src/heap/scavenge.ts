// A young-generation collection every few MiB of a body's bytes, for the processes that move
// large bodies through small heaps: a download's (src/download/fetch.ts) and the bodies `serve`
// receives (src/server/put-gate.ts). Each socket read lands in a fresh buffer (Node's, over
// node:http as over undici; for a request body, a copy the HTTP parser makes), and V8 frees one
// only at a collection. These processes allocate little else on their heaps, so no collection
// comes on its own until the buffers outstanding (external memory) reach V8's limit, every 64 MB,
// which V8 meets with a full collection. A scavenge every few MiB (~0.1–1 ms: the young
// generation holds little besides those buffers) frees them instead: a 1 GiB download peaked at
// 137–164 MB without it, and `serve` receiving 1 GiB ran ~16 full collections for them
// (bench/notes.md, issue 41).
import { type Gc, collector } from './gc.js';

/** A download's: every 2 MiB (its chunks die as soon as they are written, before the next read). */
export const DOWNLOAD_SCAVENGE_BYTES = 2 << 20;

/**
 * `serve`'s: every 16 MiB received, over all its requests. A chunk waits in its file's write
 * queue (up to 1 MiB of them per body) until the thread pool has written it; one alive at a
 * scavenge is kept, and one alive at two is moved to the old generation, which only a full
 * collection frees. At 16 MiB a chunk is almost never alive at two; at 1–4 MiB, with six bodies
 * at once, many were, and the full collections came back (bench/notes.md).
 */
export const SERVER_SCAVENGE_BYTES = 16 << 20;

/** Counts bytes as they arrive and scavenges after every `every` of them. */
export function scavenger(every: number, gc: () => Gc = collector): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since = 0;
    gc()({ type: 'minor' });
  };
}
