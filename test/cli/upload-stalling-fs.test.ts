// `contentlib upload` of a folder on a share that may stall (src/fs/stalling-fs.ts), here a real
// FUSE mount (bindfs): planning walks and inspects it, and hashing reads it, only through the
// thread pool (the share's waits overlap, the event loop turns); the same folder on the local
// disk is planned with synchronous calls, as fast as before. The items are the same.
import fs from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { cli } from '../support/cli-in-process.js';
import { type FuseMount, HAS_BINDFS, fuseMount } from '../support/fuse-mount.js';
import { skipWithout } from '../support/needs.js';
import { ROOT } from '../support/paths.js';

/** The synchronous calls planning and hashing make with a path (a read's descriptor comes from openSync). */
const SYNC_CALLS = ['readdirSync', 'statSync', 'openSync', 'realpathSync'] as const;

/**
 * Counts the synchronous fs calls whose path starts with `under` while `run` runs. Node's ES
 * module bindings of node:fs follow the CommonJS object once `syncBuiltinESMExports` is called.
 */
async function syncCallsUnder(under: string, run: () => Promise<void>): Promise<number> {
  const saved = SYNC_CALLS.map((name) => [name, fs[name]] as const);
  const nativeRealpath = fs.realpathSync.native;
  let count = 0;
  const counted = <F extends (...args: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      if (String(args[0]).startsWith(under)) count++;
      return f(...args);
    }) as F;
  for (const [name, f] of saved) Object.assign(fs, { [name]: counted(f as (...args: never[]) => unknown) });
  fs.realpathSync.native = counted(nativeRealpath);
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    for (const [name, f] of saved) Object.assign(fs, { [name]: f });
    fs.realpathSync.native = nativeRealpath;
    syncBuiltinESMExports();
  }
  return count;
}

describe.skipIf(skipWithout('bindfs', HAS_BINDFS, 'apt-get install bindfs'))(
  'contentlib upload of a folder on a FUSE mount',
  () => {
    let dir: string;
    let fuse: FuseMount;
    let server: RunningServer;
    let env: Record<string, string>;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'contentlib-stalling-'));
      fuse = await fuseMount();
      await cp(join(ROOT, 'fixtures/demo'), join(fuse.source, 'demo'), { recursive: true });
      server = await startServer({
        dataDir: join(dir, 'server'),
        host: '127.0.0.1',
        port: 0,
        previews: { enabled: false },
      });
      env = { CONTENTLIB_BASE_URL: server.url, NO_COLOR: '1' };
    });
    afterAll(async () => {
      await server?.close();
      await fuse?.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it('plans and hashes it without a synchronous call there; locally with them; the same three items', async () => {
      const titles: Record<string, string[]> = {};
      const calls: Record<string, number> = {};
      for (const [where, folder] of [
        ['mounted', join(fuse.mountpoint, 'demo')],
        ['local', join(fuse.source, 'demo')],
      ] as const) {
        // A brand of its own each: the second is not found in the library as the first's copy.
        const { key } = await createApiKey(join(dir, 'server'), where);
        const home = join(dir, `home-${where}`);
        calls[where] = await syncCallsUnder(folder, async () => {
          const r = await cli(home, ['--json', 'upload', folder], { env: { ...env, CONTENTLIB_API_KEY: key } });
          expect(r.exitCode, r.stderr).toBe(0);
        });
        const ls = await cli(home, ['--json', 'ls', '--all'], { env: { ...env, CONTENTLIB_API_KEY: key } });
        titles[where] = (JSON.parse(ls.stdout) as Array<{ title: string }>).map((i) => i.title).sort();
      }
      expect(calls.mounted).toBe(0);
      expect(calls.local).toBeGreaterThan(5);
      expect(titles.mounted).toEqual(['Demo carousel', 'Intro to the demo library', 'teaser']);
      expect(titles.local).toEqual(titles.mounted);
    });
  },
);
