// GET /healthz (the process answers) and GET /readyz (its database and storage answer, and it is
// not draining). Unauthenticated, cheap, logged at debug level only; a load balancer probes
// /readyz to decide where to send traffic and an orchestrator probes /healthz to restart.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** One readiness check: resolves when the part answers, throws a short reason when it does not. */
export type Check = () => Promise<void>;

/**
 * The 503 `unavailable` error in the service's error shape, with these details and headers: made
 * by the app (src/server/errors.ts), which knows the shape; the operations parts only throw it.
 */
export type Unavailable = (
  message: string,
  details: Array<{ path: string; message: string }>,
  headers: Record<string, string>,
) => Error;

export interface ReadinessOptions {
  /** Named checks, e.g. { database, storage }; each throws a short reason when not ready. */
  checks: Record<string, Check>;
  /** True once the instance is shutting down: /readyz answers 503 at once. */
  draining: () => boolean;
  /** A check that does not answer within this is a failure (a hung database must not hang the probe). */
  timeoutMs?: number;
  log?: FastifyBaseLogger;
  unavailable: Unavailable;
}

export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
const DEFAULT_CHECK_TIMEOUT_MS = 2000;

interface Failure {
  name: string;
  reason: string;
}

async function runCheck(name: string, check: Check, timeoutMs: number): Promise<Failure | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), late]);
    return null;
  } catch (err) {
    return { name, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, o: ReadinessOptions): void {
  const notReady = (message: string, failures: Array<{ name: string; reason: string }>) =>
    o.unavailable(
      message,
      failures.map((f) => ({ path: f.name, message: f.reason })),
      { 'Cache-Control': 'no-store' },
    );
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  // Said once when readiness changes, not on every probe.
  let lastProblem = '';
  const note = (problem: string) => {
    if (problem === lastProblem) return;
    lastProblem = problem;
    if (problem) o.log?.warn({ problem }, 'not ready');
    else o.log?.info('ready');
  };

  app.get('/healthz', async (_request, reply) => reply.header('Cache-Control', 'no-store').send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    if (o.draining()) {
      note('draining');
      throw notReady('not ready: this instance is shutting down (draining); send requests to another one', [
        { name: 'drain', reason: 'shutting down' },
      ]);
    }
    const names = Object.keys(o.checks);
    const results = await Promise.all(names.map((name) => runCheck(name, o.checks[name]!, timeoutMs)));
    const failures = results.filter((f): f is Failure => f !== null);
    if (failures.length > 0) {
      // The probe is unauthenticated: it names the part that is down, never how it failed (a
      // host and port, a path); the log line has that.
      note(failures.map((f) => `${f.name}: ${f.reason}`).join('; '));
      const parts = failures.map((f) => f.name);
      throw notReady(
        `not ready: ${parts.join(', ')} unavailable`,
        parts.map((name) => ({ name, reason: 'unavailable' })),
      );
    }
    note('');
    return reply
      .header('Cache-Control', 'no-store')
      .send({ status: 'ready', checks: Object.fromEntries(names.map((n) => [n, 'ok'])) });
  });
}
