// /readyz in-process, with injected checks: a check that never answers, several failing at once,
// and draining, which turns it 503 before any check runs.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { apiError, installErrorHandling } from '../../src/server/errors.js';
import { type Check, registerHealth } from '../../src/server/ops/health.js';

function appWith(checks: Record<string, Check>, draining = () => false) {
  const app = Fastify();
  installErrorHandling(app, () => undefined);
  registerHealth(app, {
    checks,
    draining,
    timeoutMs: 50,
    unavailable: (message, details, headers) => apiError('unavailable', message, details, headers),
  });
  return app;
}

const ok: Check = async () => undefined;
const fails =
  (why: string): Check =>
  async () => {
    throw new Error(why);
  };

describe('GET /readyz', () => {
  it('a check that never answers is a failure after the time limit, not a hung probe', async () => {
    const app = appWith({ database: () => new Promise<void>(() => undefined), storage: ok });
    const r = await app.inject('/readyz');
    expect(r.statusCode).toBe(503);
    expect(r.json().error.details[0]).toEqual({ path: 'database', message: 'unavailable' });
  });

  it('names every failing part, in the order of the checks, and nothing of how it failed', async () => {
    const app = appWith({
      database: fails('connect ECONNREFUSED 127.0.0.1:55432'),
      storage: fails('bucket not found at http://minio.internal:9000'),
      cache: ok,
    });
    const r = await app.inject('/readyz');
    expect(r.statusCode).toBe(503);
    expect(r.json().error.message).toBe('not ready: database, storage unavailable');
    expect(r.body).not.toMatch(/127\.0\.0\.1|55432|minio|ECONNREFUSED/);
    expect(
      r
        .json()
        .error.details.slice(0, 2)
        .map((d: { path: string }) => d.path),
    ).toEqual(['database', 'storage']);
  });

  it('draining answers 503 without running the checks; /healthz stays 200', async () => {
    let ran = 0;
    const app = appWith({ database: async () => void ran++ }, () => true);
    const r = await app.inject('/readyz');
    expect(r.statusCode).toBe(503);
    expect(r.json().error.details[0]).toEqual({ path: 'drain', message: 'shutting down' });
    expect(ran).toBe(0);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
  });
});
