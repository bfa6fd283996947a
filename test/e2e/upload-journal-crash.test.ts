// The upload journal survives kill -9 of the CLI: killed mid-run (once with PUTs and completes in
// flight, once just after a complete), each re-run goes on from where the journal says, and in the
// end every video is one item and every folder one carousel with exactly its images, in order —
// nothing twice, nothing missing. Runs the built CLI against `contentlib serve`.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { libraryItems } from '../support/library-items.js';
import { albumsAndClips } from '../support/tree.js';
import type { ServeProcess } from '../support/serve-process.js';
import { BIN, ROOT } from '../support/paths.js';
import { childEnv, startServe } from '../support/serve-process.js';

let dir: string;
let server: ServeProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Runs `upload --json` and kill -9s it at the `count`-th event of `type`; resolves with the events seen. */
function uploadUntilKilled(args: string[], env: Record<string, string>, type: string, count: number) {
  return new Promise<{ killed: boolean; events: string[] }>((resolve, reject) => {
    const child = spawn('node', [BIN, '--json', 'upload', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const seen: string[] = [];
    let rest = '';
    let n = 0;
    child.stdout.on('data', (c: Buffer) => {
      const lines = (rest + c.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const e = JSON.parse(line) as { type: string };
        seen.push(e.type);
        if (e.type === type && ++n === count) child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve({ killed: signal === 'SIGKILL', events: seen }));
  });
}

describe('kill -9 of the CLI mid-upload', () => {
  it('each re-run finishes the job: nothing twice, nothing missing', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-killed-'));
    const dataDir = join(dir, 'server');
    server = await startServe(dataDir, join(dir, 'serve-home'));
    const { key } = await createApiKey(dataDir, 'acme');
    const input = join(dir, 'in');
    await albumsAndClips(input, 6, 4);
    const env = childEnv({
      CONTENTLIB_HOME: join(dir, 'home'),
      CONTENTLIB_BASE_URL: server.url,
      CONTENTLIB_API_KEY: key,
    });

    // With PUTs in flight and completes waiting for their turn.
    const first = await uploadUntilKilled([input, '--concurrency', '3'], env, 'uploaded', 5);
    expect(first.killed).toBe(true);
    // Just after a complete answered (the journal may or may not have recorded it).
    const second = await uploadUntilKilled([input, '--concurrency', '3'], env, 'completed', 4);
    expect(second.killed).toBe(true);

    const last = await execa('node', [BIN, 'upload', input], { cwd: ROOT, env, reject: false });
    expect(last.exitCode, last.stderr).toBe(0);

    const items = await libraryItems(server.url, key);
    expect(items.filter((i) => i.type === 'shortform').map((i) => i.title)).toEqual([
      'clip-0',
      'clip-1',
      'clip-2',
      'clip-3',
    ]);
    const carousels = items.filter((i) => i.type === 'carousel');
    expect(carousels).toHaveLength(6);
    for (const c of carousels) expect(c.files, c.title).toEqual(['1.jpg', '2.png', '3.webp']);
    const again = await execa('node', [BIN, 'upload', input], { cwd: ROOT, env, reject: false });
    expect(again.stderr).toContain('Nothing new to upload: 10 items (22 files) already uploaded');
  });
});
