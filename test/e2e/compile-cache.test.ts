// The built CLI run twice in one home: the second run of each command loads the bundle from the
// code cache the first one wrote (src/launch/compile-cache.ts) and must behave exactly the same.
// Every other end-to-end test uses a fresh home, so only these runs exercise cached code.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, createKey, startRemote, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

let home: { dir: string; remove: () => Promise<void> };
beforeEach(async () => {
  home = await tempHome();
});
afterEach(() => home.remove());

const cacheFiles = async () => (await readdir(join(home.dir, 'cache', 'v8')).catch(() => [])).sort();

describe('the code cache', () => {
  it('serves a remote upload run from the cache of the first one', async () => {
    const server = await startRemote(home.dir);
    try {
      const remote = { CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: await createKey(home.dir, 'cached') };
      const first = await cli(home.dir, ['upload', join(FIXTURES, 'demo'), '--json'], { env: remote });
      expect(first.exitCode).toBe(0);
      // Cached: an upload to a remote loads Node's crypto on first use (the journal's key), which
      // is where a bundle compiled from the cache once failed: "A dynamic import callback was
      // not specified" (scripts/build.js).
      const again = await cli(home.dir, ['upload', join(FIXTURES, 'demo'), '--json', '--force'], { env: remote });
      expect(again.stderr).not.toMatch(/bug|import/i);
      expect(again.exitCode).toBe(0);
      expect(again.stderr).toBe(first.stderr);
    } finally {
      await server.stop();
    }
  });

  it('is written by the first run of a command and used by the next, with the same results', async () => {
    const first = await cli(home.dir, ['upload', join(FIXTURES, 'demo'), '--json']);
    expect(first.exitCode).toBe(0);
    expect((await cacheFiles()).map((f) => f.replace(/^[^-]+-/, ''))).toEqual(['upload-embedded.bin']);
    const again = await cli(home.dir, ['upload', join(FIXTURES, 'demo'), '--json', '--force']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('"type":"summary"');

    const ls1 = await cli(home.dir, ['ls', '--json']);
    const ls2 = await cli(home.dir, ['ls', '--json']);
    // The same items; only the embedded server's port in their URLs differs between runs.
    const items = (r: { stdout: string }) =>
      (JSON.parse(r.stdout) as Array<{ id: string; title: string; updatedAt: string }>).map(
        ({ id, title, updatedAt }) => ({ id, title, updatedAt }),
      );
    expect(ls1.exitCode).toBe(0);
    expect(ls2.exitCode).toBe(0);
    expect(ls2.stderr).toBe(ls1.stderr);
    expect(items(ls1)).toHaveLength(6);
    expect(items(ls2)).toEqual(items(ls1));
    expect((await cacheFiles()).map((f) => f.replace(/^[^-]+-/, ''))).toEqual([
      'ls-embedded.bin',
      'upload-embedded.bin',
    ]);
  });

  it('keeps one cache per kind of target, so `ls` on a remote and on the embedded library do not share one', async () => {
    const server = await startRemote(home.dir);
    try {
      const remote = { CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: await createKey(home.dir, 'kinds') };
      // (createKey ran `keys` here too.)
      const names = async () =>
        (await cacheFiles())
          .map((f) => f.replace(/^[^-]+-/, ''))
          .filter((f) => f.startsWith('ls') || f.startsWith('show'));
      const lsRemote = await cli(home.dir, ['ls', '--json'], { env: remote });
      expect(lsRemote.exitCode).toBe(0);
      expect(await names()).toEqual(['ls-remote.bin']);
      // The embedded run after it writes its own cache instead of running from the remote's.
      const lsEmbedded = await cli(home.dir, ['ls', '--json', '--embedded'], { env: remote });
      expect(lsEmbedded.exitCode).toBe(0);
      expect(await names()).toEqual(['ls-embedded.bin', 'ls-remote.bin']);
      // Help writes no cache (one per page read had made the folder grow), nor does a run that fails.
      expect((await cli(home.dir, ['ls', '--help'], { env: remote })).exitCode).toBe(0);
      expect((await cli(home.dir, ['--help'], { env: remote })).exitCode).toBe(0);
      expect((await cli(home.dir, ['show', 'not-an-id'], { env: remote })).exitCode).not.toBe(0);
      expect(await names()).toEqual(['ls-embedded.bin', 'ls-remote.bin']);
      // Each kind again, from its own cache, with the same results.
      const again = await cli(home.dir, ['ls', '--json'], { env: remote });
      expect(again.stdout).toBe(lsRemote.stdout);
      expect(again.stderr).toBe(lsRemote.stderr);
      const againEmbedded = await cli(home.dir, ['ls', '--json', '--embedded'], { env: remote });
      expect(againEmbedded.exitCode).toBe(0);
      expect(againEmbedded.stderr).toBe(lsEmbedded.stderr);
      expect(await names()).toEqual(['ls-embedded.bin', 'ls-remote.bin']);
    } finally {
      await server.stop();
    }
  });

  it('is not written with NODE_DISABLE_COMPILE_CACHE', async () => {
    const r = await cli(home.dir, ['ls'], { env: { NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(r.exitCode).toBe(0);
    expect(await cacheFiles()).toEqual([]);
  });
});
