// serve's logs in-process: pino's JSON lines and the pretty format for a terminal, and an
// embedded server (no log options) that writes nothing at all.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { createLogger, formatPretty, pathOnly } from '../../src/server/ops/logging.js';

const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function dataDir() {
  const d = await mkdtemp(join(tmpdir(), 'contentlib-logging-'));
  dirs.push(d);
  return d;
}

describe('log lines', () => {
  it('pathOnly drops the query string', () => {
    expect(pathOnly('/storage/u/f/a.jpg?expires=1&signature=abc')).toBe('/storage/u/f/a.jpg');
    expect(pathOnly('/api/v1/content')).toBe('/api/v1/content');
  });

  it('pretty: a request in one short line; other entries as message and key=value', () => {
    const line = formatPretty(
      {
        level: 'info',
        time: '2026-01-01T10:20:30.456Z',
        pid: 1,
        hostname: 'h',
        requestId: 'r1',
        method: 'PUT',
        route: '/storage/*',
        path: '/storage/u/f/a.jpg',
        status: 200,
        durationMs: 12.5,
        bytesIn: 4096,
        bytesOut: 0,
        brandId: null,
        msg: 'request',
      },
      false,
    );
    expect(line).toBe('10:20:30.456 INFO  200 PUT /storage/u/f/a.jpg 12.5 ms bytesIn=4096 req=r1');
    expect(
      formatPretty({ level: 'warn', time: '2026-01-01T10:20:30.456Z', msg: 'not ready', problem: 'x' }, false),
    ).toBe('10:20:30.456 WARN  not ready problem=x');
  });

  it('JSON: one object per line with a level name and an ISO time', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', format: 'json', destination: { write: (l: string) => lines.push(l) } });
    log.info({ a: 1 }, 'hello');
    log.debug('not shown at info');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      msg: 'hello',
      a: 1,
      time: expect.stringMatching(/Z$/),
    });
  });
});

describe('the embedded server (no log options)', () => {
  it('writes nothing to stdout or stderr, requests and errors included', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const server = await startServer({ dataDir: await dataDir() });
    for (const path of ['/api/v1/content', '/readyz', '/nope']) {
      const res = await request(`${server.url}${path}`);
      await res.body.dump();
    }
    await server.close();
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
  });
});
