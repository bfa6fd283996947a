// Storage PUTs to the built-in disk store, bounded (docs/deploy.md, Timeouts and limits). A PUT
// holds a socket and a temp file for as long as its body takes: 200 PUTs sending a byte a second
// held 424 file descriptors for ever, and under `ulimit -n 256` took the instance down for
// everyone, health checks included. So:
// - admission: a PUT is refused with 503 while it would leave fewer than FD_RESERVE descriptors
//   free, and a key may have only so many PUTs in flight (the CLI sends --concurrency at a time);
// - pace: a body must bring at least minBytesPerSecond over each rateWindowMs, and end within
//   maxMs, or it is cut with 408 (S3 answers a body that stalls with RequestTimeout).
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { FD_RESERVE, type PutLimits } from './limits.js';

/** The soft limit on open files (`ulimit -n`), from /proc; Infinity where it cannot be read. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limitsFile, 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : Infinity;
  } catch {
    return Infinity;
  }
}

/** Open connections of the server, counted as they come and go (each holds a descriptor). */
export function countConnections(server: Server): () => number {
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return () => open;
}

export type Refusal = { kind: 'descriptors'; free: number } | { kind: 'key'; inFlight: number; limit: number };

export interface PutGate {
  /** Takes a place for one PUT of `keyId`, or says why not; the caller must release a place it got. */
  admit(keyId: string | null): { release(): void } | Refusal;
  inFlight(): number;
}

export function createPutGate(o: { limits: PutLimits; fileLimit: number; connections: () => number }): PutGate {
  const perKey = new Map<string, number>();
  let inFlight = 0;
  return {
    admit(keyId) {
      // Each PUT in flight holds a temp file beside its socket (already counted in connections).
      const free = o.fileLimit - o.connections() - inFlight;
      if (free <= FD_RESERVE) return { kind: 'descriptors', free };
      const mine = keyId ? (perKey.get(keyId) ?? 0) : 0;
      if (keyId && mine >= o.limits.perKey) return { kind: 'key', inFlight: mine, limit: o.limits.perKey };
      inFlight++;
      if (keyId) perKey.set(keyId, mine + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          inFlight--;
          if (!keyId) return;
          const left = (perKey.get(keyId) ?? 1) - 1;
          if (left > 0) perKey.set(keyId, left);
          else perKey.delete(keyId);
        },
      };
    },
    inFlight: () => inFlight,
  };
}

/** The body came too slowly, or for too long: nothing was stored. */
export class SlowBodyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlowBodyError';
  }
}

/**
 * The request's body through a counter that cuts it (SlowBodyError) when a window brings fewer
 * than the minimum bytes or the whole takes longer than the maximum. A body lost midway ends
 * the stream with an error too, so the reader never waits for bytes that cannot come. Each
 * chunk's size is also told to `received` (the server's scavenger: src/heap/scavenge.ts).
 */
export function pacedBody(
  raw: IncomingMessage,
  limits: PutLimits,
  received: (bytes: number) => void = () => undefined,
  now: () => number = Date.now,
): Transform {
  let total = 0;
  let atLastCheck = 0;
  const started = now();
  const minPerWindow = (limits.minBytesPerSecond * limits.rateWindowMs) / 1000;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      received(chunk.length);
      done(null, chunk);
    },
  });
  const cut = (why: string) => {
    raw.unpipe(body);
    raw.pause();
    body.destroy(new SlowBodyError(why));
  };
  const timer = setInterval(() => {
    if (now() - started >= limits.maxMs) {
      cut(`the body took longer than ${Math.round(limits.maxMs / 1000)} s`);
    } else if (total - atLastCheck < minPerWindow) {
      cut(
        `the body arrived at under ${limits.minBytesPerSecond} bytes/s over ${Math.round(limits.rateWindowMs / 1000)} s`,
      );
    }
    atLastCheck = total;
  }, limits.rateWindowMs);
  timer.unref();
  body.once('close', () => clearInterval(timer));
  // Whoever reads the body hears its error through its own listener; once it stopped reading
  // (the disk refused the bytes, an answer went out), a late error must not go unheard and end
  // the process.
  body.on('error', () => undefined);
  // Not `raw.complete`: a client that sent every byte and then went away (a part PUT aborted by
  // Ctrl-C) leaves the bytes the disk had not taken yet in the request's buffer, and a destroyed
  // request never emits 'end' for them: the body would wait forever, and with it the request and
  // the server's close. What counts is whether the body got them all ('end' was emitted).
  const lost = () => {
    if (!raw.readableEnded) body.destroy(new Error('the body ended before its Content-Length (connection lost)'));
  };
  // A client gone while the route was still checking the upload has closed already: its
  // 'close' will not come again.
  if (raw.destroyed) lost();
  else raw.once('close', lost);
  raw.pipe(body);
  return body;
}
