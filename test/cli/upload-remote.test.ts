// contentlib upload against a server reached as a remote, each command line run in-process as
// the binary would run it (test/support/cli-in-process.ts): the first PUTs are dropped mid-body
// by a proxy in front of the server's storage route (test/support/put-dropping-proxy.ts) and
// every item is still created exactly once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { cli } from '../support/cli-in-process.js';
import { ROOT } from '../support/paths.js';
import { type PutDroppingProxy, startPutDroppingProxy } from '../support/put-dropping-proxy.js';

let dir: string | undefined;
let server: RunningServer | undefined;
let proxy: PutDroppingProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('contentlib upload against a remote', () => {
  it('PUTs dropped mid-body are retried from byte 0; every item is created once', async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-remote-'));
    const dataDir = join(dir, 'server');
    let upstream = '';
    proxy = await startPutDroppingProxy(() => upstream, { afterBytes: 1000, count: 3 });
    server = await startServer({
      dataDir,
      host: '127.0.0.1',
      port: 0,
      publicUrl: proxy.url,
      previews: { enabled: false },
    });
    upstream = server.url;
    const { key } = await createApiKey(dataDir, 'ci');
    const home = join(dir, 'home');
    const env = { CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: key, NO_COLOR: '1' };
    const r = await cli(home, ['upload', 'fixtures/demo'], { cwd: ROOT, env });
    expect(r.exitCode, r.stderr).toBe(0);
    // Exactly the 3 faults: each drops one PUT whose body reaches 1000 bytes (2.png, 367 bytes,
    // never spends one, whenever it arrives), and each drop is one retry said as a reset.
    expect(r.stderr.match(/^retry /gm)).toHaveLength(3);
    expect(r.stderr.match(/^retry .*connection reset/gm)).toHaveLength(3);
    expect(r.stderr).toContain('3 items created');
    const ls = await cli(home, ['--json', 'ls', '--all'], { cwd: ROOT, env });
    const items = JSON.parse(ls.stdout) as Array<{ type: string; title: string }>;
    expect(items.map((i) => i.title).sort()).toEqual(['Demo carousel', 'Intro to the demo library', 'teaser']);

    const again = await cli(home, ['upload', 'fixtures/demo'], { cwd: ROOT, env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing new to upload: 3 items (5 files) already uploaded');
  });
});
