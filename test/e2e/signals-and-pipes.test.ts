// How the built CLI ends when its reader goes away (`| head`) or a person presses Ctrl-C during
// a command that is not an upload: quietly for the first, with exit 130 and a message for the
// second, never as an "Unexpected error".
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cleanEnv, cli, tempHome } from '../support/cli.js';
import { BIN } from '../support/paths.js';
import { seedItems } from '../support/seed.js';

/** Runs the CLI with its stdout closed before it writes a byte, so every write fails with EPIPE. */
function runWithClosedStdout(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that goes away', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  beforeAll(async () => {
    home = await tempHome();
    const up = await cli(home.dir, ['upload', 'fixtures/demo'], { env: {} });
    expect(up.exitCode).toBe(0);
  });
  afterAll(() => home.remove());

  it.each([['ls'], ['ls', '--json'], ['show', '--json', '00000000-0000-4000-8000-000000000000'], ['ls', '--all']])(
    'contentlib %s | (closed) ends quietly',
    async (...args) => {
      const r = await runWithClosedStdout(args, cleanEnv(home.dir));
      expect(r.stderr).not.toMatch(/Unexpected|EPIPE/);
      // show of an unknown id still reports its own outcome (5); listing ends as a success.
      expect(r.code).toBe(args[0] === 'show' ? 5 : 0);
    },
  );
});

describe('a reader that reads everything (a pipe)', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  afterAll(() => home?.remove());

  it('ls --all --json | cat gets the whole array every time: the CLI exits only once its output is flushed', async () => {
    home = await tempHome();
    // 300 items of the embedded library's brand: ~250 KB of JSON, several times a pipe's buffer.
    const made = await cli(home.dir, ['keys', 'create', '--brand', 'local', '--data-dir', join(home.dir, 'data')]);
    const key = /cl_[A-Za-z0-9_-]{20,}/.exec(made.stdout)![0];
    seedItems(join(home.dir, 'data'), key, 300);
    // Before, about one run in twenty lost the end of its output (process.exit() dropped what the
    // pipe had not taken yet): twenty runs.
    for (let i = 0; i < 20; i++) {
      const r = await execa('bash', ['-c', `node "${BIN}" ls --all --json | cat`], { env: cleanEnv(home.dir) });
      expect((JSON.parse(r.stdout) as unknown[]).length, `run ${i + 1}`).toBe(300);
    }
  });
});

describe('Ctrl-C during a command that waits on the service', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  let silent: Server;
  let url = '';
  beforeAll(async () => {
    home = await tempHome();
    // A service that accepts the connection and never answers: the request is in flight when
    // Ctrl-C comes, so the abort has to unwind through the HTTP client before anything is said.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    await home.remove();
  });

  it.each([
    ['ls'],
    ['show', '3c498874-27ab-421b-828d-4868bf1c92fe'],
    ['rm', '--yes', '3c498874-27ab-421b-828d-4868bf1c92fe'],
  ])('contentlib %s exits 130 with its own message, not an unexpected error', async (...args) => {
    const child = execa('node', [BIN, '--verbose', ...args], {
      env: cleanEnv(home.dir, { CONTENTLIB_BASE_URL: url, CONTENTLIB_API_KEY: `cl_${'a'.repeat(43)}` }),
      extendEnv: false,
      reject: false,
    });
    let stderr = '';
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        if (/→ (GET|DELETE)/.test(stderr)) resolve();
      }),
    );
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toMatch(/Interrupted/);
    expect(String(r.stderr)).not.toMatch(/Unexpected/);
  });
});
