// A flaky link for storage PUTs: an HTTP proxy on 127.0.0.1 in front of a real server that
// passes every request through, except that the first `count` PUT bodies reaching `afterBytes`
// lose their connection there (the client's and the one to the server): the server sees a body
// cut short, the client a reset. Signed URLs name the server's public URL, so the server is
// started with its public URL set to the proxy's, and the proxy reads its target per request.
// (This replaces the server's own test-only `--fault-drop-put-after` flag.)
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Transform } from 'node:stream';
import { forward, passThrough } from './http-forward.js';
import { listenLocal } from './listen.js';

export interface PutFaults {
  /** Whether a fault is still left to spend. */
  readonly armed: () => boolean;
  /** A stream passing a PUT body through that, once `limit` bytes have come, calls `kill` if a fault is left. */
  readonly wrap: (kill: () => void) => Transform;
}

/**
 * A fault is spent only when it drops a connection, never when a PUT starts: PUTs run at once
 * and arrive in any order, so a body shorter than the limit that arrives first must not spend
 * one, or how many connections are dropped would depend on timing.
 */
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

export interface PutDroppingProxy {
  url: string;
  close(): Promise<void>;
}

export async function startPutDroppingProxy(
  upstream: () => string,
  o: { afterBytes: number; count: number },
): Promise<PutDroppingProxy> {
  const faults = putFaults(o.afterBytes, o.count);
  const handle = (req: IncomingMessage, res: ServerResponse) =>
    forward(req, res, upstream(), (out) => {
      if (req.method !== 'PUT' || !faults.armed()) return passThrough();
      return faults.wrap(() => {
        out.destroy();
        req.socket?.destroy();
      });
    });
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  return listenLocal(server);
}
