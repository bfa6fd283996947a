// The built CLI against `contentlib serve` in another process, as against a remote service: the
// server drops the first PUTs mid-body (its test-only fault flags) and every item is still
// created exactly once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { BIN, ROOT } from '../support/paths.js';

let dir: string | undefined;
let server: ResultPromise | undefined;
afterEach(async () => {
  server?.kill('SIGTERM');
  await server?.catch(() => {});
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function serve(dataDir: string, flags: string[]): Promise<string> {
  server = execa('node', [BIN, 'serve', '--data-dir', dataDir, ...flags], { cwd: ROOT, reject: false });
  return new Promise((resolve, reject) => {
    let out = '';
    server!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0]!;
      if (out.includes('\n')) resolve(line.trim());
    });
    void server!.then((r) => reject(new Error(`serve exited: ${String(r.stderr)}`)));
  });
}

describe('contentlib upload against contentlib serve', () => {
  it('PUTs dropped mid-body are retried from byte 0; every item is created once', async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-remote-'));
    const dataDir = join(dir, 'server');
    const url = await serve(dataDir, ['--fault-drop-put-after', '1000', '--fault-count', '3']);
    const { key } = await createApiKey(dataDir, 'ci');
    const env = {
      CONTENTLIB_HOME: join(dir, 'home'),
      CONTENTLIB_BASE_URL: url,
      CONTENTLIB_API_KEY: key,
      NO_COLOR: '1',
    };
    const r = await execa('node', [BIN, 'upload', 'fixtures/demo'], { cwd: ROOT, reject: false, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Exactly the 3 faults: each drops one PUT whose body reaches 1000 bytes (2.png, 367 bytes,
    // never spends one, whenever it arrives), and each drop is one retry said as a reset.
    expect(r.stderr.match(/^retry /gm)).toHaveLength(3);
    expect(r.stderr.match(/^retry .*connection reset/gm)).toHaveLength(3);
    expect(r.stderr).toContain('3 items created');
    const ls = await execa('node', [BIN, '--json', 'ls', '--all'], { cwd: ROOT, reject: false, env });
    const items = JSON.parse(ls.stdout) as Array<{ type: string; title: string }>;
    expect(items.map((i) => i.title).sort()).toEqual(['Demo carousel', 'Intro to the demo library', 'teaser']);

    const again = await execa('node', [BIN, 'upload', 'fixtures/demo'], { cwd: ROOT, reject: false, env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing new to upload: 3 items (5 files) already uploaded');
  });
});
