// Graceful drain of `contentlib serve` before it stops (SIGTERM from an orchestrator): /readyz
// turns 503 at once so the load balancer stops sending traffic; after a grace period the listener
// closes; requests in flight (a long PUT included) finish, up to a time limit; then the caller
// closes the database.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Unavailable } from './health.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DrainOptions {
  /** How long to keep serving after /readyz turned 503, so load balancers notice first. */
  graceMs: number;
  /** How long requests in flight may take to finish once the listener is closed; then they are cut. */
  timeoutMs: number;
}

export interface DrainState {
  /** /readyz answers 503. */
  draining: boolean;
  /** The listener is closed: requests still arriving on open connections are refused. */
  refusing: boolean;
}

export function createDrainState(): DrainState {
  return { draining: false, refusing: false };
}

/**
 * A connection whose request finishes after the listener closed is not kept alive for more: the
 * guard's hook below adds this to every answer, and a stored file's body (written without
 * Fastify's hooks: src/server/routes/storage.ts) to its own.
 */
export function drainHeaders(state: DrainState): Record<string, string> {
  return state.refusing ? { Connection: 'close' } : {};
}

/**
 * Once the listener is closed, a request on a connection that was already open gets 503 in the
 * service's error shape with Connection: close, so clients retry elsewhere (Fastify's own 503 is
 * not in that shape).
 */
export function registerDrainGuard(app: FastifyInstance, state: DrainState, unavailable: Unavailable): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(drainHeaders(state));
    return payload;
  });
  app.addHook('onRequest', async () => {
    if (!state.refusing) return;
    throw unavailable('this instance is shutting down; send the request again (another instance answers)', [], {
      Connection: 'close',
      'Retry-After': '1',
    });
  });
}

export interface DrainTarget {
  app: FastifyInstance;
  state: DrainState;
  inFlight: () => number;
  log: FastifyBaseLogger;
  onDraining?: () => void;
}

/** Runs the drain up to the point where no request is left; returns whether any had to be cut. */
export async function drainApp(t: DrainTarget, o: DrainOptions): Promise<{ cut: number }> {
  t.state.draining = true;
  t.onDraining?.();
  t.log.info({ graceMs: o.graceMs, timeoutMs: o.timeoutMs }, 'draining: /readyz answers 503');
  if (o.graceMs > 0) await sleep(o.graceMs);
  t.state.refusing = true;
  t.log.info({ inFlight: t.inFlight() }, 'draining: listener closed, waiting for requests in flight');
  const closed = t.app.close();
  // Node's timers cap at 2^31-1 ms (a longer one fires at once): longer means no limit.
  if (!(o.timeoutMs <= MAX_TIMER_MS)) {
    await closed;
    return { cut: 0 };
  }
  const timer = sleep(o.timeoutMs, 'timeout' as const, { ref: false });
  const outcome = await Promise.race([closed.then(() => 'closed' as const), timer]);
  if (outcome === 'closed') return { cut: 0 };
  const cut = t.inFlight();
  t.log.warn({ cut, timeoutMs: o.timeoutMs }, 'drain time limit reached: cutting the requests still in flight');
  t.app.server.closeAllConnections();
  await closed;
  return { cut };
}
