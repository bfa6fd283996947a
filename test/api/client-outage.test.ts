// The client riding out a service that is down (src/api/retry.ts, rideOutMs): concurrent calls
// meeting one outage are told about it once, through the policy's OutageWatch; each call still
// succeeds once the service answers again; a later outage is told again. A bare node:http server on 127.0.0.1 plays
// a service answering 503 with Retry-After (what `serve` answers while its database is down).
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { outageReason } from '../../src/api/errors.js';
import { DEFAULT_RETRY, createOutageWatch } from '../../src/api/retry.js';
import { retryPolicy } from '../../src/cli/api.js';
import { UsageError } from '../../src/cli/errors.js';
import { listenLocal } from '../support/listen.js';

let down = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (down > 0) {
      down--;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(
        JSON.stringify({
          error: { code: 'unavailable', message: "the service's database is not answering", details: [] },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items: [], limit: 50, offset: 0, hasMore: false }));
  });
});
let base = '';
let close: () => Promise<void>;
beforeAll(async () => ({ url: base, close } = await listenLocal(server)));
afterAll(() => close());

describe('riding out an outage', () => {
  it('eight calls meeting one outage: told once, all succeed; a second outage is told again', async () => {
    const told: Array<{ reason: string; forMs: number }> = [];
    const watch = createOutageWatch(({ error, forMs }) => told.push({ reason: outageReason(error), forMs }));
    const client = createApiClient({
      baseUrl: base,
      apiKey: 'cl_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
      retry: { ...DEFAULT_RETRY, watch },
      // Retry-After says a second; the test need not wait it.
      sleep: async () => {},
    });
    // More 503s than the attempt limit: only riding out gets every call through.
    down = 8 * DEFAULT_RETRY.attempts;
    const pages = await Promise.all(Array.from({ length: 8 }, () => client.list({})));
    expect(pages.every((p) => p.items.length === 0)).toBe(true);
    expect(told).toHaveLength(1);
    expect(told[0]!.reason).toMatch(/^503 unavailable: the service's database is not answering/);
    expect(told[0]!.forMs).toBeGreaterThan(55_000);
    down = 2;
    await client.list({});
    expect(told).toHaveLength(2);
    await client.close();
  });
});

describe('retryPolicy (CONTENTLIB_RETRY_FOR, CONTENTLIB_RETRY_BASE_MS)', () => {
  it.each([
    [{}, 60_000],
    [{ CONTENTLIB_RETRY_FOR: '120' }, 120_000],
    [{ CONTENTLIB_RETRY_FOR: '0' }, 0],
    // The tests' knob for failing at once turns riding out off, unless asked for.
    [{ CONTENTLIB_RETRY_BASE_MS: '0' }, 0],
    [{ CONTENTLIB_RETRY_BASE_MS: '0', CONTENTLIB_RETRY_FOR: '30' }, 30_000],
  ])('%j → rides out %d ms', (env, rideOutMs) => {
    expect(retryPolicy(env).rideOutMs).toBe(rideOutMs);
  });

  it('refuses a CONTENTLIB_RETRY_FOR that is not whole seconds up to an hour', () => {
    for (const bad of ['1m', '-1', '3601', 'soon'])
      expect(() => retryPolicy({ CONTENTLIB_RETRY_FOR: bad })).toThrow(UsageError);
  });
});
