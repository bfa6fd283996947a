// SQLite must never end a process with a signal. better-sqlite3 12 compiled against Node
// 24.19+'s headers (as npm built it on users' machines; now node:sqlite, src/sqlite/) aborted ("Assertion failed: (env) != nullptr" in Statement::~Statement,
// exit 134) as soon as the garbage collector freed a prepared statement, so the README's first
// command died on the Node most users run. Every request prepares its statements afresh, so a
// few thousand requests against the built `serve` and an embedded upload make and drop thousands
// of statements; the processes must then exit by themselves, with 0. .ci/run runs this file on
// Node 22, 24 and 26, each installed by npm as a user's is.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, createKey } from '../support/cli.js';
import { ROOT } from '../support/paths.js';
import { startServe } from '../support/serve-process.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-statements-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('SQLite statements made and dropped by the thousand', () => {
  it('serve answers 3,000 requests, each preparing its own statements, then exits 0 on SIGTERM', async () => {
    const server = await startServe(join(home, 'data'), home, {
      // A small young generation: the garbage collector runs, and frees statements, many times.
      env: { NODE_OPTIONS: '--max-semi-space-size=1' },
    });
    try {
      const key = await createKey(home, 'acme');
      const headers = { authorization: `Bearer ${key}` };
      let ok = 0;
      const worker = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const r = await fetch(`${server.url}/api/v1/content?limit=5&offset=${i}&search=x${i}`, { headers });
          await r.arrayBuffer();
          if (r.status === 200) ok++;
        }
      };
      await Promise.all(Array.from({ length: 6 }, () => worker(500)));
      expect(ok).toBe(3000);
    } finally {
      await server.stop();
    }
    expect(server.child.signalCode).toBeNull();
    expect(server.exitCode()).toBe(0);
  }, 120_000);

  it("the README's first command on the embedded library, then ls and rm, each exit 0", async () => {
    // NODE_NO_WARNINGS unset, as on a user's machine: Node 22 calls node:sqlite experimental, and
    // that warning must not reach the user (src/sqlite/database.ts).
    const env = { CONTENTLIB_EMBEDDED: '1', NODE_OPTIONS: '--max-semi-space-size=1', NODE_NO_WARNINGS: undefined };
    const up = await cli(home, ['upload', join(ROOT, 'fixtures/demo')], { env });
    expect(up.stderr).not.toMatch(/Assertion failed|Warning/);
    expect(up.exitCode).toBe(0);
    const ls = await cli(home, ['ls', '--json'], { env });
    expect(ls.stderr).not.toMatch(/Warning/);
    expect(ls.exitCode).toBe(0);
    const ids = (JSON.parse(ls.stdout) as { id: string }[]).map((i) => i.id);
    expect(ids).toHaveLength(3);
    const removed = await cli(home, ['rm', '--yes', ...ids], { env });
    expect(removed.exitCode).toBe(0);
  }, 120_000);
});
