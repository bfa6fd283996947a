// `contentlib upload` of a folder while the service is killed (SIGKILL, as a crash or an
// orchestrator would) and comes back 15 s later on the same address: with its default
// --retry-for of 60 s the CLI rides the outage out and finishes in the same run, exit 0, every
// file exactly once, saying once that it waits and why. Real processes, the built binary, no
// test knob for retries (CONTENTLIB_RETRY_BASE_MS is left unset).
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { apiClient } from '../support/cli.js';
import { BIN, ROOT } from '../support/paths.js';
import { type ServeProcess, childEnv, startServe } from '../support/serve-process.js';

const FILES = 30;
const DOWN_MS = 15_000;

let root: string;
let server: ServeProcess | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'contentlib-outage-'));
});
afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('upload through a restart of the service', () => {
  it('killed, back 15 s later: one run, exit 0, every file once', { timeout: 120_000 }, async () => {
    const dataDir = join(root, 'data');
    const folder = join(root, 'clips');
    await mkdir(folder, { recursive: true });
    for (let i = 0; i < FILES; i++)
      await copyFile(join(ROOT, 'fixtures/video/clip-5s.mp4'), join(folder, `clip-${String(i).padStart(2, '0')}.mp4`));
    const apiKey = (await createApiKey(dataDir, 'acme')).key;
    server = await startServe(dataDir, join(root, 'serve-home'));
    const { port } = server;

    const cli = spawn('node', [BIN, 'upload', folder, '--json', '--concurrency', '2'], {
      // No CONTENTLIB_RETRY_BASE_MS or CONTENTLIB_RETRY_FOR: the defaults people get.
      env: childEnv({
        CONTENTLIB_HOME: join(root, 'cli-home'),
        CONTENTLIB_BASE_URL: server.url,
        CONTENTLIB_API_KEY: apiKey,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    cli.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    let killedAt: number | undefined;
    const restarted = new Promise<void>((resolve, reject) => {
      cli.stdout!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        const completed = out.split('\n').filter((l) => l.includes('"type":"completed"')).length;
        if (killedAt === undefined && completed >= 3) {
          killedAt = Date.now();
          void server!
            .kill9()
            .then(() => sleep(DOWN_MS))
            .then(() => startServe(dataDir, join(root, 'serve-home'), { port }))
            .then((s) => {
              server = s;
              resolve();
            }, reject);
        }
      });
    });
    const exit = await new Promise<number>((resolve) => cli.once('exit', (code) => resolve(code ?? -1)));
    await restarted;
    expect(killedAt).toBeDefined();
    expect(exit, err).toBe(0);

    // One line said it waits, and why; not one per try.
    const waiting = err.split('\n').filter((l) => l.startsWith('Waiting for '));
    expect(waiting, err).toHaveLength(1);
    expect(waiting[0]).toMatch(/connection (refused|reset)\. Retrying for up to \d+ s \(--retry-for to change\)\.$/);

    // Every file exactly once.
    const client = apiClient(server.url, apiKey);
    const items = (await client.list({ limit: 100 })).items;
    await client.close();
    expect(items.map((i) => i.title).sort()).toEqual(
      Array.from({ length: FILES }, (_, i) => `clip-${String(i).padStart(2, '0')}`),
    );
  });
});
