// gh-grade conventions, each command line run in-process as the binary would run it
// (test/support/cli-in-process.ts) against a real server on 127.0.0.1: no silent embedded
// fallback when a script writes, the target named once, one item shape across ls/show/edit,
// --json FIELDS, --jq, rm - and rm --yes with nothing, auth status, global flags in every help,
// the man page, and heartbeat lines in a log while a slow upload runs. (As execa does, the
// runner strips the output's final newline.)
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { ContentItem } from '../../src/api/schemas.js';
import {
  type InProcessRemote,
  apiClient,
  cli,
  createKey,
  seedCarousel,
  seedShortform,
  startRemote,
  tempHome,
} from '../support/cli-in-process.js';
import { sparseVideo } from '../support/library.js';
import { FIXTURES, ROOT } from '../support/paths.js';
import type { ThrottleProxy } from '../support/throttle-proxy.js';
import { startThrottleProxy } from '../support/throttle-proxy.js';

const DEMO = join(FIXTURES, 'demo');
/** No choice of library in the environment: what a CI job with missing secrets has. */
const UNCHOSEN = { CONTENTLIB_EMBEDDED: undefined };

const lines = (text: string) => text.trim().split('\n').filter(Boolean);
const ndjson = (text: string) => lines(text).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('with no remote configured, a write in automation is refused', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  beforeAll(async () => {
    home = await tempHome();
  });
  afterAll(() => home.remove());

  it('CI=1: upload exits 2, says how to configure a remote, and creates nothing', async () => {
    const r = await cli(home.dir, ['upload', '--json', DEMO], { env: { ...UNCHOSEN, CI: '1' } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No remote library is configured and CI is set');
    expect(r.stderr).toContain('CONTENTLIB_BASE_URL and CONTENTLIB_API_KEY');
    expect(r.stderr).toContain('--embedded');
    const ls = await cli(home.dir, ['ls', '--json'], { env: UNCHOSEN });
    expect(ls.exitCode).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });

  it('no terminal (and no CI): edit and rm are refused too, before any request', async () => {
    const id = '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11';
    const edit = await cli(home.dir, ['edit', id, '--title', 'x'], { env: { ...UNCHOSEN, CI: undefined } });
    expect(edit.exitCode).toBe(2);
    expect(edit.stderr).toContain('standard input is not a terminal');
    const rm = await cli(home.dir, ['rm', '--yes', id], { env: { ...UNCHOSEN, CI: 'true' } });
    expect(rm.exitCode).toBe(2);
    expect(rm.stderr).toContain('No remote library is configured');
  });

  it('reading is not refused: ls works and names the embedded library it read', async () => {
    const r = await cli(home.dir, ['ls'], { env: { ...UNCHOSEN, CI: '1' } });
    expect(r.exitCode).toBe(0);
    expect(lines(r.stderr)[0]).toBe(
      `→ embedded library at ${join(home.dir, 'data')} (no remote configured; see contentlib login)`,
    );
  });

  it.each([
    ['--embedded', ['--embedded'], {}],
    ['CONTENTLIB_EMBEDDED=1', [], { CONTENTLIB_EMBEDDED: '1' }],
  ])('chosen on purpose with %s, the upload runs', async (_how, flags, env) => {
    const h = await tempHome();
    try {
      const r = await cli(h.dir, [...flags, 'upload', '--json', DEMO], { env: { ...UNCHOSEN, CI: '1', ...env } });
      expect(r.exitCode, r.stderr).toBe(0);
      const events = ndjson(r.stdout);
      const target = { kind: 'embedded', dataDir: join(h.dir, 'data') };
      expect(events[0]).toMatchObject({ type: 'planned', target });
      expect(events.at(-1)).toMatchObject({ type: 'summary', target, created: 3 });
      // Named once on stderr, without "no remote configured": it was chosen.
      expect(r.stderr).toBe(`→ embedded library at ${join(h.dir, 'data')}`);
    } finally {
      await h.remove();
    }
  });

  it('chosen on purpose with contentlib config set embedded true, the upload runs', async () => {
    const h = await tempHome();
    try {
      const set = await cli(h.dir, ['config', 'set', 'embedded', 'true'], { env: UNCHOSEN });
      expect(set.exitCode, set.stderr).toBe(0);
      const r = await cli(h.dir, ['upload', DEMO], { env: { ...UNCHOSEN, CI: '1' } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('3 items created');
      const bad = await cli(h.dir, ['config', 'set', 'embedded', 'maybe'], { env: UNCHOSEN });
      expect(bad.exitCode).toBe(2);
    } finally {
      await h.remove();
    }
  });

  it("upload --jq runs on every NDJSON line, the plan's skipped files included", async () => {
    const h = await tempHome();
    try {
      const input = join(h.dir, 'in');
      await mkdir(input);
      await copyFile(join(FIXTURES, 'video/clip-5s.mp4'), join(input, 'clip.mp4'));
      await writeFile(join(input, '.DS_Store'), 'Bud1');
      const r = await cli(h.dir, ['upload', '--jq', '.type', input]);
      expect(r.exitCode, r.stderr).toBe(0);
      const types = lines(r.stdout);
      expect(types[0]).toBe('skipped'); // .DS_Store, said before anything is sent
      expect(types).toContain('planned');
      expect(types.at(-1)).toBe('summary');
      expect(r.stdout).not.toContain('{');
    } finally {
      await h.remove();
    }
  });

  it('-q: the refusal (an error) is still printed; nothing else is', async () => {
    const r = await cli(home.dir, ['-q', 'upload', DEMO], { env: { ...UNCHOSEN, CI: '1' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: No remote library is configured/);
  });
});

describe('against a remote', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  let remote: InProcessRemote;
  let key: string;
  let client: ApiClient;
  let clip: ContentItem;
  let carousel: ContentItem;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    home = await tempHome();
    remote = await startRemote(home.dir);
    key = await createKey(home.dir, 'acme');
    client = apiClient(remote.url, key);
    clip = await seedShortform(client, 'Teaser');
    carousel = await seedCarousel(client, 'Stills');
    // CI is set and CONTENTLIB_EMBEDDED is not: a remote is what makes writes fine.
    env = { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key, CI: '1', CONTENTLIB_EMBEDDED: undefined };
  });
  afterAll(async () => {
    await client?.close();
    await remote?.stop();
    await home?.remove();
  });

  it('every command names its target once on stderr; -q names nothing', async () => {
    const r = await cli(home.dir, ['ls'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`→ ${remote.url}`);
    const quiet = await cli(home.dir, ['ls', '--quiet'], { env });
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toContain(clip.id);
  });

  it('ls, show and edit print the same item object; a carousel has its files nested', async () => {
    const listed = JSON.parse((await cli(home.dir, ['ls', '--json'], { env })).stdout) as ContentItem[];
    for (const item of [clip, carousel]) {
      const fromLs = listed.find((i) => i.id === item.id)!;
      const show = await cli(home.dir, ['show', item.id, '--json'], { env });
      expect(show.exitCode, show.stderr).toBe(0);
      const shown = JSON.parse(show.stdout) as Record<string, unknown>;
      expect(shown.id).toBe(item.id);
      const { files, ...rest } = shown;
      // The same object as ls lists (signed URLs differ from call to call in their expiry).
      expect(Object.keys(rest).sort()).toEqual(Object.keys(fromLs).sort());
      expect({ ...rest, fileUrl: null, thumbnailUrl: null }).toEqual({ ...fromLs, fileUrl: null, thumbnailUrl: null });
      const edit = await cli(home.dir, ['edit', item.id, '--description', 'same shape', '--json'], { env });
      expect(edit.exitCode, edit.stderr).toBe(0);
      const edited = JSON.parse(edit.stdout) as Record<string, unknown>;
      expect(Object.keys(edited).sort()).toEqual(Object.keys(shown).sort());
      if (item.type === 'carousel') {
        expect((files as Array<{ sortOrder: number }>).map((f) => f.sortOrder)).toEqual([0, 1]);
        // Signed file URLs differ from call to call (their expiry); the rest is the same.
        const unsigned = (list: unknown) => (list as object[]).map((f) => ({ ...f, fileUrl: null }));
        expect(unsigned(edited.files)).toEqual(unsigned(files));
      } else {
        expect(files).toBeUndefined();
      }
    }
  });

  it('--json FIELDS prints only those fields, in that order', async () => {
    const ls = await cli(home.dir, ['ls', '--json', 'id,title'], { env });
    expect(ls.exitCode, ls.stderr).toBe(0);
    const rows = JSON.parse(ls.stdout) as Array<Record<string, unknown>>;
    expect(rows).toContainEqual({ id: clip.id, title: 'Teaser' });
    expect(rows.every((r) => Object.keys(r).join() === 'id,title')).toBe(true);
    const show = await cli(home.dir, ['show', '--json=title,status,id', clip.id], { env });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(Object.keys(JSON.parse(show.stdout) as object)).toEqual(['title', 'status', 'id']);
    // --json before the id: the id is not taken for a field list.
    const whole = await cli(home.dir, ['show', '--json', clip.id], { env });
    expect(JSON.parse(whole.stdout)).toMatchObject({ id: clip.id, type: 'shortform' });
  });

  it('an unknown field is a usage error listing the valid ones, with the nearest one', async () => {
    // A list, or one word a typo away from a field (not "too many arguments").
    for (const fields of ['id,titel', 'titel']) {
      const r = await cli(home.dir, ['ls', '--json', fields], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Error: Unknown JSON field for ls: titel (did you mean title?).');
      expect(r.stderr).toMatch(/Valid fields: id, type, title, .*files/);
    }
    const far = await cli(home.dir, ['ls', '--json', 'id,colour'], { env });
    expect(far.stderr).toContain('Unknown JSON field for ls: colour.');
  });

  it('--jq filters with jq: raw strings, select, and a syntax error is exit 2', async () => {
    const ids = await cli(home.dir, ['ls', '--jq', '.[] | select(.type == "carousel") | .id'], { env });
    expect(ids.exitCode, ids.stderr).toBe(0);
    expect(ids.stdout).toBe(carousel.id);
    const files = await cli(home.dir, ['show', carousel.id, '--jq', '[.files[].sortOrder] | add'], { env });
    expect(files.stdout).toBe('1');
    const bad = await cli(home.dir, ['ls', '--jq', '.[] | select('], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--jq');
    expect(bad.stderr).toContain('compile error');
  });

  it('rm - reads the ids from stdin (what ls --jq prints)', async () => {
    const a = await seedShortform(client, 'Delete me A');
    const b = await seedShortform(client, 'Delete me B');
    const ids = await cli(home.dir, ['ls', '--search', 'Delete me', '--jq', '.[].id'], { env });
    expect(lines(ids.stdout).sort()).toEqual([a.id, b.id].sort());
    const rm = await cli(home.dir, ['rm', '--yes', '--json', '-'], { env, input: ids.stdout });
    expect(rm.exitCode, rm.stderr).toBe(0);
    const results = JSON.parse(rm.stdout) as Array<{ id: string; deleted: boolean }>;
    expect(results.map((r) => r.deleted)).toEqual([true, true]);
    await expect(client.get(a.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.get(b.id)).rejects.toMatchObject({ status: 404 });
  });

  it('rm - without --yes refuses: stdin holds the ids, nobody can answer', async () => {
    const r = await cli(home.dir, ['rm', '-'], { env, input: `${clip.id}\n` });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await client.get(clip.id)).item.id).toBe(clip.id);
  });

  it('rm --yes with no ids (an empty xargs, an empty pipe) is a no-op with a note and exit 0', async () => {
    const none = await cli(home.dir, ['rm', '--yes'], { env });
    expect(none.exitCode, none.stderr).toBe(0);
    expect(none.stderr).toContain('Nothing to delete');
    const empty = await cli(home.dir, ['rm', '--yes', '--json', '-'], { env, input: '' });
    expect(empty.exitCode).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    // Without --yes, no ids is still a mistake.
    expect((await cli(home.dir, ['rm'], { env })).exitCode).toBe(2);
  });

  it('auth status: target, key prefix, checked against the service', async () => {
    const r = await cli(home.dir, ['auth', 'status'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`target\t${remote.url}`);
    expect(r.stdout).toContain(`key\t${key.slice(0, 7)}…`);
    expect(r.stdout).not.toContain(key);
    // Our own server says the brand (an extension); a service that does not leaves it null.
    expect(r.stdout).toContain('brand\tacme');
    const json = await cli(home.dir, ['auth', 'status', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({
      target: { kind: 'remote', baseUrl: remote.url },
      brand: 'acme',
      keyPrefix: `${key.slice(0, 7)}…`,
      ok: true,
    });
  });

  it('auth status with a revoked key: says so and exits 4', async () => {
    const created = await cli(home.dir, ['keys', 'create', '--brand', 'acme', '--json']);
    const { id, key: doomed } = JSON.parse(created.stdout) as { id: string; key: string };
    expect((await cli(home.dir, ['keys', 'revoke', id])).exitCode).toBe(0);
    const r = await cli(home.dir, ['auth', 'status', '--json'], { env: { ...env, CONTENTLIB_API_KEY: doomed } });
    expect(r.exitCode).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
    expect(r.stderr).toContain('rejected the API key');
  });

  it('auth status on the embedded library names its brand', async () => {
    const h = await tempHome();
    try {
      const r = await cli(h.dir, ['auth', 'status', '--json', 'brand,ok']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ brand: 'local', ok: true });
    } finally {
      await h.remove();
    }
  });
});

describe('help', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  beforeAll(async () => {
    home = await tempHome();
  });
  afterAll(() => home.remove());

  it.each([
    ['edit', '--help'],
    ['help', 'edit'],
    ['keys', 'create', '--help'],
    ['help', 'keys', 'create'],
  ])('%s %s lists the global flags in their own section', async (...args) => {
    const r = await cli(home.dir, args);
    expect(r.exitCode).toBe(0);
    const global = r.stdout.slice(r.stdout.indexOf('Global Options:'));
    expect(r.stdout).toContain('Global Options:');
    for (const flag of ['--json', '--jq', '--quiet', '--profile', '--verbose', '--embedded'])
      expect(global).toContain(flag);
  });

  it('help keys create is the help of keys create, not of keys', async () => {
    const r = await cli(home.dir, ['help', 'keys', 'create']);
    expect(r.stdout).toMatch(/^Usage: contentlib keys create/);
  });

  it('the man page is built from the same definitions: every command, its examples, exit codes', async () => {
    const page = await readFile(join(ROOT, 'man/contentlib.1'), 'utf8');
    expect(page).toMatch(/^\.TH CONTENTLIB 1/);
    for (const cmd of ['upload', 'ls', 'show', 'edit', 'rm', 'auth status', 'keys create', 'config set'])
      expect(page).toContain(`.SS contentlib ${cmd}\n`);
    expect(page).toContain('contentlib ls --status failed --json id,title');
    expect(page).toContain('CONTENTLIB_EMBEDDED');
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; man: string[] };
    expect(pkg.files).toContain('man');
    expect(pkg.man).toContain('./man/contentlib.1');
  });
});

describe('a long upload in a log', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  let remote: InProcessRemote;
  let proxy: ThrottleProxy;
  beforeAll(async () => {
    home = await tempHome();
    // 256 KiB/s in front of the server, which signs its URLs for the proxy (--public-url), so the PUT
    // takes the slow link too.
    proxy = await startThrottleProxy(() => remote.url, 256 * 1024);
    remote = await startRemote(home.dir, { publicUrl: proxy.url });
  });
  afterAll(async () => {
    await proxy?.close();
    await remote?.stop();
    await home?.remove();
  });

  it('prints a heartbeat line for the running transfer while a throttled PUT goes on', async () => {
    const key = await createKey(home.dir, 'slow');
    // 1 MiB through a 256 KiB/s link: seconds of transfer, many heartbeats of 200 ms.
    {
      const big = await sparseVideo(join(home.dir, 'in', 'keynote.mp4'), 1024 * 1024);
      const r = await cli(home.dir, ['upload', '--type', 'longform', big], {
        env: {
          CONTENTLIB_BASE_URL: proxy.url,
          CONTENTLIB_API_KEY: key,
          CONTENTLIB_HEARTBEAT_MS: '200',
        },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const beats = lines(r.stderr).filter((l) => l.startsWith('sending  '));
      expect(beats.length, r.stderr).toBeGreaterThan(0);
      for (const beat of beats)
        expect(beat).toMatch(/^sending {2}keynote\.mp4 [\d.]+ (B|KB|MB)\/1(\.0)? MB( [\d.]+ (B|KB|MB)\/s)?$/);
      // Heartbeats stop with the transfer: none after its done line.
      const all = lines(r.stderr);
      const done = all.findIndex((l) => l.startsWith('done     keynote.mp4'));
      expect(done).toBeGreaterThan(0);
      expect(all.slice(done).some((l) => l.startsWith('sending'))).toBe(false);
    }
  });
});
