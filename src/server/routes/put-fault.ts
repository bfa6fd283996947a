// The test-only fault of the storage PUT (`serve --fault-drop-put-after BYTES --fault-count N`):
// the first N PUT bodies that reach BYTES lose their connection there. A fault is spent only
// when it drops a connection, never when a PUT starts: PUTs run concurrently and arrive in any
// order, so a body shorter than BYTES that arrived first used to spend a fault without dropping
// anything, and how many connections were dropped depended on timing.
import { Transform } from 'node:stream';

export interface PutFaults {
  /** Whether a fault is still left to spend. */
  readonly armed: () => boolean;
  /** A stream passing a PUT body through that, once `limit` bytes have come, calls `kill` if a fault is left. */
  readonly wrap: (kill: () => void) => Transform;
}

export function putFaults(limit: number, count: number): PutFaults {
  let left = count;
  const spend = (): boolean => {
    if (left <= 0) return false;
    left--;
    return true;
  };
  return { armed: () => left > 0, wrap: (kill) => dropAfter(limit, spend, kill) };
}

/** Passes bytes through; at `limit` bytes, kills the connection if `spend()` grants a fault. */
function dropAfter(limit: number, spend: () => boolean, kill: () => void): Transform {
  let seen = 0;
  let decided = false;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (!decided && seen >= limit) {
        decided = true;
        if (spend()) {
          kill();
          cb(new Error('fault injected: connection dropped'));
          return;
        }
      }
      cb(null, chunk);
    },
  });
}
