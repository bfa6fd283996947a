// /healthz and /readyz of `contentlib serve` as a process: ready while the database and the data
// folder answer, 503 naming the part that does not, ready again once it is back.
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, serveWithKey } from '../support/ops.js';

let s: Served;
beforeAll(async () => {
  s = await serveWithKey();
});
afterAll(async () => s.dispose());

async function get(path: string) {
  const res = await request(`${s.server.url}${path}`);
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> };
}

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ path?: string; message: string; requestId?: string }> };
}

describe('probes', () => {
  it('answer 200 without a key; /readyz names what it checked; neither is logged at info', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    expect(health.headers['cache-control']).toBe('no-store');
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', checks: { database: 'ok', storage: 'ok' } });
    // A request that is logged, to know the log is being written.
    expect((await get('/api/v1/content')).status).toBe(401);
    await expect.poll(() => s.logs().filter((l) => l.msg === 'request').length).toBeGreaterThan(0);
    const routes = s.logs().map((l) => l.route);
    expect(routes).toContain('/api/v1/content');
    expect(routes).not.toContain('/healthz');
    expect(routes).not.toContain('/readyz');
  });

  it('the database file gone: /readyz 503 naming the database, /healthz still 200; back: ready again', async () => {
    const db = join(s.dataDir, 'contentlib.db');
    await rename(db, `${db}.away`);
    try {
      const down = await get('/readyz');
      expect(down.status).toBe(503);
      const { error } = down.json as unknown as ErrorBody;
      expect(error.code).toBe('unavailable');
      // Names the part only: the reason (a path here) is for the log.
      expect(error.message).toBe('not ready: database unavailable');
      expect(error.details[0]).toEqual({ path: 'database', message: 'unavailable' });
      expect(error.details.map((d) => d.path)).not.toContain('storage');
      expect(error.details.at(-1)!.requestId).toBe(down.headers['x-request-id']);
      expect((await get('/healthz')).status).toBe(200);
    } finally {
      await rename(`${db}.away`, db);
    }
    expect((await get('/readyz')).status).toBe(200);
    // The change was said once in the log, at warn, naming the database.
    const warned = s.logs().filter((l) => l.msg === 'not ready');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 'warn', problem: 'database: the database file is gone (ENOENT)' });
  });

  it('the data folder cannot be written: /readyz 503 naming storage; back: ready again', async () => {
    // A file where the temp folder should be fails every write, even for root (CI).
    const tmp = join(s.dataDir, 'tmp');
    await rename(tmp, `${tmp}.away`);
    await writeFile(tmp, 'in the way');
    try {
      const down = await get('/readyz');
      expect(down.status).toBe(503);
      const { error } = down.json as unknown as ErrorBody;
      expect(error.details[0]).toEqual({ path: 'storage', message: 'unavailable' });
      expect(error.details.map((d) => d.path)).not.toContain('database');
    } finally {
      await rm(tmp);
      await rename(`${tmp}.away`, tmp);
    }
    expect((await get('/readyz')).status).toBe(200);
  });
});
