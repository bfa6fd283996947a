// Against a remote: a server on 127.0.0.1 as `contentlib serve` runs it, keys as `contentlib
// keys create` makes them, and the CLI in its own temp home reaching it by environment, flags or
// a saved profile, each command line run in-process as the binary would run it
// (test/support/cli-in-process.ts).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { ContentItem } from '../../src/api/schemas.js';
import { apiClient, cli, createKey, fileMode, readConfig, seedShortform, upload } from '../support/cli-in-process.js';
import { type RemoteLibrary, startRemoteLibrary } from '../support/remote-library.js';

let lib: RemoteLibrary;
let otherKey: string;
let otherClient: ApiClient;
let mine: ContentItem;
let theirs: ContentItem;
const BULK = 105;

/** Runs the CLI against the remote through the environment. */
const run = (args: string[], env: Record<string, string | undefined> = {}, input?: string) =>
  cli(lib.home, args, { env: { ...lib.env, ...env }, input });

beforeAll(async () => {
  lib = await startRemoteLibrary();
  otherKey = await createKey(lib.serverHome, 'globex');
  otherClient = apiClient(lib.url, otherKey);
  // Real uploads, a few at a time: BULK small clips for paging, one named item per brand.
  for (let i = 0; i < BULK; i += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, BULK - i) }, (_, k) =>
        upload(lib.client, 'video/clip-5s.mp4', { fileName: `bulk-${String(i + k).padStart(3, '0')}.mp4` }),
      ),
    );
  }
  mine = await seedShortform(lib.client, 'Acme launch');
  theirs = await seedShortform(otherClient, 'Globex secret');
}, 120_000);

afterAll(async () => {
  await otherClient?.close();
  await lib?.dispose();
});

describe('remote by environment', () => {
  it('ls talks to the remote, never starts the embedded library', async () => {
    const r = await run(['ls', '--limit', '3']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split('\n')[0]!.split('\t')[3]).toBe('Acme launch');
    expect(r.stdout).not.toContain('Globex');
    await expect(fileMode(join(lib.home, 'data'))).rejects.toThrow(); // no embedded data dir
  });

  it('--limit above 100 is served by several pages; --all --json is one valid array of everything', async () => {
    const many = await run(['ls', '--limit', '103', '--verbose']);
    expect(many.exitCode).toBe(0);
    expect(many.stdout.trim().split('\n')).toHaveLength(103);
    expect(many.stderr).toMatch(/GET [^\n]*limit=100&offset=0/);
    // The next page by the first one's cursor (keyset paging, docs/api.md).
    expect(many.stderr).toMatch(/GET [^\n]*limit=3&cursor=[A-Za-z0-9_-]+/);
    const all = await run(['ls', '--all', '--json']);
    expect(all.exitCode).toBe(0);
    const items = JSON.parse(all.stdout) as ContentItem[];
    expect(items).toHaveLength(BULK + 1);
    expect(new Set(items.map((i) => i.id)).size).toBe(BULK + 1);
    expect(items.every((i) => i.title !== 'Globex secret')).toBe(true);
  });

  it('--verbose traces method, URL, status and time with the key redacted', async () => {
    const r = await run(['show', mine.id, '--verbose']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`→ GET ${lib.url}/api/v1/content/${mine.id} \\(Authorization: Bearer cl_....…; x-request-id \\S+\\)`),
    );
    expect(r.stderr).toMatch(/← 200 GET \S+ in \d+ ms/);
    expect(r.stderr).not.toContain(lib.key);
    expect(r.stderr).not.toContain(lib.key.slice(8));
  });

  it('a wrong key: exit 4, names the base URL and how to log in, never the key', async () => {
    const wrong = `cl_${'x'.repeat(43)}`;
    const r = await run(['ls'], { CONTENTLIB_API_KEY: wrong });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${lib.url} rejected the API key`);
    expect(r.stderr).toContain('contentlib login');
    expect(r.stderr).not.toContain(wrong);
  });

  it("another brand's id is not found (exit 5) for show, edit and rm, and stays intact", async () => {
    expect((await run(['show', theirs.id])).exitCode).toBe(5);
    expect((await run(['edit', theirs.id, '--title', 'pwned'])).exitCode).toBe(5);
    const rm = await run(['rm', '--yes', theirs.id]);
    expect(rm.exitCode).toBe(5);
    expect(rm.stderr).toContain("not in this brand's library");
    expect((await otherClient.get(theirs.id)).item.title).toBe('Globex secret');
  });

  it('a refused connection: exit 1 naming the URL and suggesting --embedded', async () => {
    const r = await run(['ls'], { CONTENTLIB_BASE_URL: 'http://127.0.0.1:9' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('Could not reach http://127.0.0.1:9: connection refused');
    expect(r.stderr).toContain('--embedded');
  });

  it('half a target: no key is an authentication error (exit 4, a missing secret), no base URL a usage error (2)', async () => {
    const noKey = await run(['ls'], { CONTENTLIB_API_KEY: undefined });
    expect(noKey.exitCode).toBe(4);
    expect(noKey.stderr).toContain('without an API key');
    const noUrl = await run(['ls'], { CONTENTLIB_BASE_URL: undefined });
    expect(noUrl.exitCode).toBe(2);
    expect(noUrl.stderr).toContain('without a base URL');
    expect(noUrl.stderr).not.toContain(lib.key);
  });

  it('flags work too, and --embedded overrides a configured remote', async () => {
    const r = await cli(lib.home, ['--base-url', lib.url, '--api-key', lib.key, 'show', mine.id, '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('Acme launch');
    // The environment names the remote, but --embedded forces the library on this machine.
    const embedded = await run(['ls', '--embedded', '--json']);
    expect(embedded.exitCode).toBe(0);
    expect(JSON.parse(embedded.stdout)).toEqual([]);
    // Flags that name a remote together with --embedded are a contradiction.
    expect((await cli(lib.home, ['ls', '--embedded', '--base-url', lib.url, '--api-key', lib.key])).exitCode).toBe(2);
  });
});

describe('profiles: login, config, logout', () => {
  it('login --with-token checks the key, saves a 0600 profile and makes it active', async () => {
    const r = await cli(lib.home, ['login', '--with-token', '--base-url', `${lib.url}/`], { input: `${lib.key}\n` });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`Logged in to ${lib.url} as profile "default" (key ${lib.key.slice(0, 7)}…)`);
    expect(r.stderr + r.stdout).not.toContain(lib.key);
    const config = await readConfig(lib.home);
    expect(config.activeProfile).toBe('default');
    expect(config.profiles.default).toEqual({ baseUrl: lib.url, apiKey: lib.key });
    expect(await fileMode(join(lib.home, 'config', 'config.json'))).toBe(0o600);
    // Now plain commands use the profile.
    const ls = await cli(lib.home, ['ls', '--search', 'acme launch']);
    expect(ls.exitCode).toBe(0);
    expect(ls.stdout).toContain(mine.id);
  });

  it('login with a wrong key: exit 4 and nothing saved', async () => {
    const r = await cli(lib.home, ['login', '--with-token', '--base-url', lib.url, '--profile', 'bad'], {
      input: `cl_${'y'.repeat(43)}`,
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('nothing was saved');
    expect((await readConfig(lib.home)).profiles.bad).toBeUndefined();
  });

  it('login without a terminal and without --with-token refuses (exit 2)', async () => {
    const r = await cli(lib.home, ['login', '--base-url', lib.url]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--with-token');
  });

  it('a second profile; --profile and CONTENTLIB_PROFILE pick it; config get/set/list', async () => {
    expect(
      (
        await cli(lib.home, ['login', '--with-token', '--base-url', lib.url, '--profile', 'globex'], {
          input: otherKey,
        })
      ).exitCode,
    ).toBe(0);
    expect((await cli(lib.home, ['config', 'get', 'active-profile'])).stdout).toBe('globex');
    expect((await cli(lib.home, ['config', 'set', 'active-profile', 'default'])).exitCode).toBe(0);
    expect((await cli(lib.home, ['show', theirs.id])).exitCode).toBe(5);
    expect((await cli(lib.home, ['show', theirs.id, '--profile', 'globex'])).exitCode).toBe(0);
    expect((await cli(lib.home, ['show', theirs.id], { env: { CONTENTLIB_PROFILE: 'globex' } })).exitCode).toBe(0);
    const got = await cli(lib.home, ['config', 'get', 'api-key', '--profile', 'globex']);
    expect(got.stdout).toBe(`${otherKey.slice(0, 7)}…`);
    const list = await cli(lib.home, ['config', 'list', '--json']);
    const entries = JSON.parse(list.stdout) as Record<string, string>;
    expect(entries['profiles.globex.base-url']).toBe(lib.url);
    expect(list.stdout).not.toContain(lib.key);
    expect(list.stdout).not.toContain(otherKey);
    expect((await cli(lib.home, ['config', 'set', 'api-key', 'cl_x'])).exitCode).toBe(2);
    expect((await cli(lib.home, ['config', 'set', 'active-profile', 'nope'])).exitCode).toBe(2);
    expect((await cli(lib.home, ['config', 'get', 'colour'])).exitCode).toBe(2);
    const unknown = await cli(lib.home, ['ls', '--profile', 'nope']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Known profiles: default, globex');
  });

  it('config set base-url to a dead port gives the refused-connection error through the profile', async () => {
    expect(
      (await cli(lib.home, ['config', 'set', 'base-url', 'http://127.0.0.1:9', '--profile', 'globex'])).exitCode,
    ).toBe(0);
    const r = await cli(lib.home, ['ls', '--profile', 'globex']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('Could not reach http://127.0.0.1:9');
    expect((await cli(lib.home, ['config', 'set', 'base-url', 'not a url', '--profile', 'globex'])).exitCode).toBe(2);
  });

  it('logout forgets the active profile; commands fall back to the embedded library', async () => {
    const r = await cli(lib.home, ['logout']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('profile "default"');
    const config = await readConfig(lib.home);
    expect(config.profiles.default).toBeUndefined();
    expect(config.activeProfile).toBeUndefined();
    expect(JSON.stringify(config)).not.toContain(lib.key);
    const ls = await cli(lib.home, ['ls', '--json']);
    expect(ls.exitCode).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
    expect((await cli(lib.home, ['logout', '--profile', 'globex'])).exitCode).toBe(0);
    expect((await cli(lib.home, ['logout'])).stderr).toContain('Not logged in');
  });
});
