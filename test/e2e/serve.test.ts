// End to end through the built binary: `contentlib serve` and `contentlib keys` as users run
// them (execa on bin/contentlib.js; `npm test` builds dist first).
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

describe('contentlib keys', () => {
  it('create prints the key alone on stdout, list never shows it, revoke stops it', async () => {
    const created = await run(['keys', 'create', '--brand', 'acme']);
    expect(created.exitCode).toBe(0);
    const key = String(created.stdout).trim();
    expect(key).toMatch(/^cl_[A-Za-z0-9_-]{43}$/);
    expect(String(created.stderr)).toMatch(/will not be shown again/);

    const listed = await run(['keys', 'list', '--json']);
    expect(listed.exitCode).toBe(0);
    expect(String(listed.stdout)).not.toContain(key);
    const rows = JSON.parse(String(listed.stdout)) as Array<{
      id: string;
      brand: string;
      prefix: string;
      revokedAt: string | null;
    }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ brand: 'acme', prefix: key.slice(0, 7), revokedAt: null });

    const plain = await run(['keys', 'list']);
    expect(String(plain.stdout).split('\t').slice(0, 3)).toEqual([rows[0]!.id, `${key.slice(0, 7)}…`, 'acme']);

    expect((await run(['keys', 'revoke', rows[0]!.id])).exitCode).toBe(0);
    // Revoking again (a script re-run) is done, not an error; an unknown id is not found.
    const again = await run(['keys', 'revoke', rows[0]!.id]);
    expect(again.exitCode).toBe(0);
    expect(String(again.stderr)).toMatch(/was already revoked \(\d{4}-.*\); nothing to do/);
    const unknown = await run(['keys', 'revoke', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.exitCode).toBe(5);
    expect(String(unknown.stderr)).toMatch(/No key with id/);
  });

  it('create without --brand is a usage error', async () => {
    const r = await run(['keys', 'create']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stdout)).toBe('');
  });
});

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
