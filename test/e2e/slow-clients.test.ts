// 200 storage PUTs that send a byte a second, against `contentlib serve` on its own disk store
// running under `ulimit -n 256` (a container's default on some platforms): what once held 424
// descriptors for ever and took the instance down for everyone. Now each slow PUT is cut (408)
// within the stated bound (two --put-min-rate windows), or refused at once (503) when it would
// eat the descriptors kept for others or pass its key's cap on PUTs in flight; and throughout,
// /healthz and the API answer. Real process, raw sockets.
import { connect, type Socket } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { call, image, presign, uploadItem } from '../support/server.js';

const SLOW_PUTS = 200;
const KEYS = 4;
/** --put-min-rate 1024/WINDOW_S: a PUT bringing less than 1 KiB a second over a window is cut. */
const WINDOW_S = 3;
/** The stated bound is two windows; 5 s more for a loaded machine. */
const BOUND_MS = 2 * WINDOW_S * 1000 + 5000;
const FILE_SIZE = 1000;

let root: string;
let server: ServeProcess;
let keys: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'contentlib-slow-'));
  const dataDir = join(root, 'data');
  keys = [];
  for (let k = 0; k < KEYS; k++) keys.push((await createApiKey(dataDir, 'acme')).key);
  server = await startServe(dataDir, join(root, 'home'), {
    args: ['--put-min-rate', `1024/${WINDOW_S}`],
    fileLimit: 256,
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

interface SlowPut {
  /** When the PUT's answer (or the close of its connection) came, after it started. */
  endedMs?: number;
  status?: number;
}

/** A PUT of FILE_SIZE bytes sent one byte a second on a raw socket. */
function slowPut(url: string, started: number): { result: SlowPut; socket: Socket } {
  const u = new URL(url);
  const result: SlowPut = {};
  const socket = connect(Number(u.port), u.hostname);
  let timer: NodeJS.Timeout | undefined;
  const end = () => {
    clearInterval(timer);
    result.endedMs ??= performance.now() - started;
  };
  socket.on('connect', () => {
    socket.write(
      `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: image/jpeg\r\nContent-Length: ${FILE_SIZE}\r\n\r\n`,
    );
    timer = setInterval(() => socket.write('A'), 1000);
  });
  socket.on('data', (chunk: Buffer) => {
    const m = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'));
    if (m && result.status === undefined) result.status = Number(m[1]);
    end();
    socket.destroy();
  });
  socket.on('error', end).on('close', end);
  return { result, socket };
}

describe('slow clients under ulimit -n 256', () => {
  it(
    '200 PUTs at 1 byte/s are cut or refused within the bound; /healthz and the API answer throughout',
    { timeout: 90_000 },
    async () => {
      const urls: string[] = [];
      for (let n = 0; n < SLOW_PUTS; n++) {
        const p = await presign(server, keys[n % KEYS]!, { ...image(`slow-${n}.jpg`), bytes: Buffer.alloc(FILE_SIZE) });
        expect(p.status).toBe(200);
        urls.push(p.body.presignedUrl);
      }
      const started = performance.now();
      const puts = urls.map((u) => slowPut(u, started));

      // Probes and API calls while the slow PUTs hold their sockets.
      const probes: number[] = [];
      const probing = (async () => {
        // At least six rounds: when the server refuses every slow PUT at once (it may, by its
        // descriptor headroom), they end within a second and the probes still run.
        for (
          let round = 0;
          (round < 6 || puts.some((p) => p.result.endedMs === undefined)) &&
          performance.now() - started < BOUND_MS + 5000;
          round++
        ) {
          probes.push((await call('GET', `${server.url}/healthz`).catch(() => ({ status: 0 }))).status);
          probes.push(
            (await call('GET', `${server.url}/api/v1/content`, { key: keys[0] }).catch(() => ({ status: 0 }))).status,
          );
          await sleep(200);
        }
      })();
      await probing;

      const results = puts.map((p) => p.result);
      // Each cut (408) or refused before its body (503), within the bound.
      expect(results.filter((r) => r.endedMs === undefined)).toEqual([]);
      expect(Math.max(...results.map((r) => r.endedMs!))).toBeLessThan(BOUND_MS);
      const statuses = new Map<number | undefined, number>();
      for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect(
        [...statuses.keys()].every((st) => st === 408 || st === 503),
        JSON.stringify([...statuses]),
      ).toBe(true);
      // How many are cut (408) rather than refused (503) depends on how fast the 200 connections
      // arrive against the descriptor headroom (on Node 24 all can be refused): the cut by pace is
      // proven on its own in test/server/put-gate.test.ts.
      // Everyone else was answered all along.
      expect(probes.length).toBeGreaterThan(10);
      expect(probes.filter((st) => st !== 200)).toEqual([]);

      // Afterwards: a normal upload works, nothing of the slow ones was kept, nothing broke.
      const done = await uploadItem(server, keys[1]!, image('after.jpg'));
      expect(done.item.title).toBe('after');
      expect(await readdir(join(root, 'data', 'tmp'))).toEqual([]);
      expect(server.stderr()).not.toMatch(/internal error|EMFILE/);
      console.info(
        `slow PUTs: ${JSON.stringify(Object.fromEntries(statuses))}, last ended after ${Math.round(Math.max(...results.map((r) => r.endedMs!)))} ms, ${probes.length} probes all 200`,
      );
    },
  );
});
