// End to end through the built binary: `contentlib serve` as users run it (execa on
// bin/contentlib.js; `npm test` builds dist first). `contentlib keys`: test/cli/keys.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../support/paths.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { call, image, presign, put } from '../support/server.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-cli-server-'));
});
afterEach(async () => rm(home, { recursive: true, force: true }));

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CONTENTLIB_') && !k.startsWith('XDG_')) out[k] = v;
  return { ...out, CONTENTLIB_HOME: home, NODE_NO_WARNINGS: '1', NO_COLOR: '1' };
}

const run = (args: string[]) =>
  execa('node', [BIN, ...args], { env: env(), extendEnv: false, reject: false, input: '' });

/** `contentlib serve` on this test's home, with these flags (the first must be --data-dir DIR). */
function serve(args: [string, string, ...string[]]): Promise<ServeProcess> {
  const [, dataDir, ...rest] = args;
  return startServe(dataDir, home, { args: rest });
}

describe('contentlib serve', () => {
  it('prints the URL first, serves keys created beside it, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(home, 'lib');
    const server = await serve(['--data-dir', dataDir]);
    const { url } = server;
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const key = String((await run(['keys', 'create', '--brand', 'acme', '--data-dir', dataDir])).stdout).trim();
      const f = image('live.jpg');
      const p = await presign({ url }, key, f);
      expect(p.status).toBe(200);
      expect((await put(p.body.presignedUrl, f)).status).toBe(200);
      expect((await call('GET', `${url}/api/v1/content`, { key })).status).toBe(200);
    } finally {
      await server.stop();
    }
    // Stopping is how a server ends: a clean stop on a signal exits 0 (what service managers expect).
    expect(server.exitCode()).toBe(0);
    expect(server.stderr()).toMatch(/stopped/);
  });

  it('passes the hidden test flags to the server (--url-ttl, --quota)', async () => {
    const dataDir = join(home, 'lib');
    const server = await serve(['--data-dir', dataDir, '--url-ttl', '60', '--quota', '100']);
    const { url } = server;
    try {
      const key = String((await run(['keys', 'create', '--brand', 'acme', '--data-dir', dataDir])).stdout).trim();
      const over = await call('POST', `${url}/api/v1/upload/presign`, {
        key,
        json: { fileName: 'a.jpg', contentType: 'image/jpeg', fileSize: 101 },
      });
      expect(over.status).toBe(403);
      const ok = await presign({ url }, key, image('a.jpg', 100));
      const expires = Number(new URL(ok.body.presignedUrl).searchParams.get('expires'));
      expect(expires - Date.now() / 1000).toBeLessThanOrEqual(61);
    } finally {
      await server.stop();
    }
  });

  it('refuses a bad port with exit 2', async () => {
    const r = await run(['serve', '--port', '70000']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/--port must be a whole number/);
  });
});
