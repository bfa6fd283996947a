// A large file sent as parts by the built CLI through a throttling proxy that counts the bytes
// (issue 28): SIGINT at about half, then a re-run; kill -9 at about half, then a re-run. Each
// re-run sends at most 60 % of the file (the proxy counts it), the item is byte-identical to the
// file, and there is one item. Runs `contentlib serve` whose storage URLs name the proxy.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { createApiKey } from '../../src/server/admin.js';
import { journalParts } from '../support/journal-parts.js';
import { sparseVideo } from '../support/library.js';
import { libraryItems } from '../support/library-items.js';
import { BIN, ROOT } from '../support/paths.js';
import { type ServeProcess, childEnv, startServe } from '../support/serve-process.js';
import { type ThrottleProxy, startThrottleProxy } from '../support/throttle-proxy.js';

const MIB = 1024 * 1024;
/** 8 parts of 8 MiB. */
const SIZE = 64 * MIB;
const PARTS = 8;

let dir: string;
let proxy: ThrottleProxy;
let server: ServeProcess;
let key: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-parts-e2e-'));
  const dataDir = join(dir, 'server');
  let url = '';
  // 4 MiB/s per connection, 2 parts at once: the file takes about 8 s.
  proxy = await startThrottleProxy(() => url, 4 * MIB);
  server = await startServe(dataDir, join(dir, 'serve-home'), { args: ['--public-url', proxy.url] });
  url = server.url;
  ({ key } = await createApiKey(dataDir, 'parts'));
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const envFor = (home: string) =>
  childEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: proxy.url, CONTENTLIB_API_KEY: key });

/** A valid video of SIZE bytes with bytes of its own. */
async function bigVideo(name: string): Promise<string> {
  const path = await sparseVideo(join(dir, name), SIZE);
  const handle = await open(path, 'r+');
  try {
    for (let at = SIZE / 8; at < SIZE; at += SIZE / 8) await handle.write(randomBytes(4096), 0, 4096, at);
  } finally {
    await handle.close();
  }
  return path;
}

/** Runs the upload and sends `signal` once half the parts are stored; resolves with its exit. */
async function stopAtHalf(path: string, home: string, signal: NodeJS.Signals) {
  const child: ChildProcess = spawn('node', [BIN, 'upload', '--part-concurrency', '2', path], {
    cwd: ROOT,
    env: envFor(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  const deadline = Date.now() + 90_000;
  let sent = false;
  while (!sent) {
    if ((await journalParts(home)) >= PARTS / 2) {
      child.kill(signal);
      sent = true;
    } else if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`half the parts were not stored in 90 s: ${stderr}`);
    } else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { ...(await exited), stderr: () => stderr };
}

/** Waits until the proxy has received nothing new for a second. */
async function settled(): Promise<void> {
  let last = -1;
  while (proxy.received() !== last) {
    last = proxy.received();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The re-run: the bytes it sent through the proxy, and the item's stored bytes equal to the file's. */
async function rerunAndCheck(path: string, home: string, title: string) {
  // The stopped run's last bytes may still be in its sockets' buffers, read by the proxy at its
  // pace after the process is gone: counted only once nothing more arrives.
  await settled();
  proxy.resetCount();
  const again = await execa('node', [BIN, 'upload', path], { cwd: ROOT, env: envFor(home), reject: false });
  expect(again.exitCode, again.stderr).toBe(0);
  const sent = proxy.received();
  // Only the missing parts (about half), and a few requests: at most 60 % of the file.
  expect(sent).toBeLessThanOrEqual(0.6 * SIZE);
  const items = (await libraryItems(server.url, key)).filter((i) => i.title.startsWith(title));
  expect(items).toHaveLength(1);
  const api = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
  const { item } = await api.get(items[0]!.id).finally(() => api.close());
  expect(item.fileSize).toBe(SIZE);
  const stored = Buffer.from(await (await fetch(item.fileUrl!)).arrayBuffer());
  expect(sha256(stored)).toBe(sha256(await readFile(path)));
  return sent;
}

describe('a large file, stopped at about half and run again', () => {
  it('SIGINT: the re-run sends at most 60 % of the file; one item, the exact bytes', { timeout: 240_000 }, async () => {
    const path = await bigVideo('sigint.mp4');
    const home = join(dir, 'home-sigint');
    const first = await stopAtHalf(path, home, 'SIGINT');
    expect(first.code, first.stderr()).toBe(130);
    expect(first.stderr()).toMatch(/Kept for the next run: \d/);
    await rerunAndCheck(path, home, 'sigint');
  });

  it(
    'kill -9: the re-run sends at most 60 % of the file; one item, the exact bytes',
    { timeout: 240_000 },
    async () => {
      const path = await bigVideo('killed.mp4');
      const home = join(dir, 'home-killed');
      const first = await stopAtHalf(path, home, 'SIGKILL');
      expect(first.signal).toBe('SIGKILL');
      await rerunAndCheck(path, home, 'killed');
    },
  );
});
