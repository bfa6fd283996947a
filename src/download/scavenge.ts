// A young-generation collection every few MiB of a download's body. Each socket read lands in a
// fresh 64 KiB buffer (Node's, over node:http as over undici); V8 frees one only at a collection,
// and a download allocates almost nothing else on the heap, so none comes on its own until the
// buffers outstanding (external memory) reach V8's limit, which is then met with full
// collections: a 1 GiB download peaked at 137–164 MB that way, and spent ~1 s of CPU in them.
// A scavenge every 2 MiB (~0.1 ms each: the young generation holds little but those buffers)
// keeps the peak near the start-up's (bench/notes.md, issue 41).
import { collector } from '../heap/gc.js';

/** Bytes received between two scavenges. */
const EVERY = 2 << 20;

/** Counts the bytes of a body as they arrive, and scavenges after every EVERY of them. */
export function scavenger(): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < EVERY) return;
    since = 0;
    collector()({ type: 'minor' });
  };
}
