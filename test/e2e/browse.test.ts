// `contentlib browse` and `show ID --web` as people run them (the built binary): the URL on
// the first line, the embedded library's file URLs alive while browse runs, Ctrl-C to stop,
// the browser opened through $BROWSER, and a remote edited through the page and read back by
// `contentlib show`.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, FIXTURES } from '../support/paths.js';
import { cleanEnv, cli, tempHome } from '../support/cli.js';
import { type RemoteLibrary, startServedLibrary } from '../support/remote-library.js';

interface BrowseProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number | null>;
}

/** Runs the binary with these arguments until its first line of stdout (the URL). */
async function startBrowseProcess(
  home: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<BrowseProcess> {
  const child = spawn('node', [BIN, ...args], { env: cleanEnv(home, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`no URL in 20 s: ${err}`)), 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) {
        clearTimeout(timer);
        res(out.split('\n')[0]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`exited (${code}) before printing a URL: ${err}`));
    });
  });
  return {
    child,
    url,
    stderr: () => err,
    interrupt: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Follows the printed URL once: the cookie it sets, and fetches with it. */
async function session(url: string) {
  const first = await request(url);
  await first.body.text();
  expect(first.statusCode).toBe(303);
  const cookie = String(first.headers['set-cookie']).split(';')[0]!;
  const origin = new URL(url).origin;
  return {
    async get(path: string) {
      const r = await request(`${origin}${path}`, { headers: { cookie } });
      return { status: r.statusCode, text: await r.body.text() };
    },
    async post(path: string, form: Record<string, string>) {
      const r = await request(`${origin}${path}`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      await r.body.text();
      return r.statusCode;
    },
  };
}

describe('on the embedded library', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  beforeAll(async () => {
    home = await tempHome();
    const up = await cli(home.dir, ['upload', join(FIXTURES, 'demo')]);
    expect(up.exitCode, up.stderr).toBe(0);
  });
  afterAll(async () => home.remove());

  it('prints the URL first, keeps the file URLs working while it runs, and stops on Ctrl-C', async () => {
    const b = await startBrowseProcess(home.dir, ['browse', '--no-open']);
    expect(b.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    const s = await session(b.url);
    const grid = await s.get('/');
    expect(grid.text).toContain('Demo carousel');
    const list = JSON.parse((await s.get('/?format=json')).text) as { items: Array<{ type: string; fileUrl: string }> };
    const video = list.items.find((i) => i.type !== 'carousel')!;
    // The embedded server's signed URL answers, ranges included, for as long as browse runs.
    const ranged = await request(video.fileUrl, { headers: { range: 'bytes=0-15' } });
    expect(ranged.statusCode).toBe(206);
    expect((await ranged.body.arrayBuffer()).byteLength).toBe(16);
    expect(await b.interrupt()).toBe(0);
    expect(b.stderr()).toContain('contentlib browse: stopped');
  });

  it('show ID --web (a short id too) opens the item page through $BROWSER; an unknown id is show’s error, with no URL', async () => {
    const ls = await cli(home.dir, ['ls', '--json', 'id,title']);
    const item = (JSON.parse(ls.stdout) as Array<{ id: string; title: string }>).find(
      (i) => i.title === 'Demo carousel',
    )!;
    const opened = join(home.dir, 'opened.txt');
    const fakeBrowser = join(home.dir, 'fake-browser.sh');
    await writeFile(fakeBrowser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    await chmod(fakeBrowser, 0o755);
    // A short id opens the page of the whole id it stands for.
    const b = await startBrowseProcess(home.dir, ['show', item.id.slice(0, 8), '--web'], { BROWSER: fakeBrowser });
    expect(b.url).toMatch(new RegExp(`/items/${item.id}\\?token=`));
    await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(b.url);
    const page = await (await session(b.url)).get(`/items/${item.id}`);
    expect(page.text).toContain('Demo carousel');
    expect(await b.interrupt()).toBe(0);

    const unknown = await cli(home.dir, ['show', '00000000-0000-4000-8000-000000000000', '--web'], {
      env: { BROWSER: 'none' },
    });
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stdout).toBe('');
  });
});

describe('on a remote (contentlib serve)', () => {
  let lib: RemoteLibrary;
  beforeAll(async () => (lib = await startServedLibrary()));
  afterAll(async () => lib?.dispose());

  it('a title edited in the page is what contentlib show prints; the key never reaches the page', async () => {
    const env = lib.env;
    const up = await cli(lib.home, ['upload', join(FIXTURES, 'video', 'clip-5s.mp4')], { env });
    expect(up.exitCode, up.stderr).toBe(0);
    const id = (await cli(lib.home, ['ls', '--json', 'id'], { env })).stdout.match(/[0-9a-f-]{36}/)![0];
    const b = await startBrowseProcess(lib.home, ['browse', '--no-open'], env);
    const s = await session(b.url);
    const page = await s.get(`/items/${id}`);
    expect(page.text).toContain('clip-5s');
    expect(page.text).not.toContain(lib.key);
    expect(b.url).not.toContain(lib.key);
    const status = await s.post(`/items/${id}/edit`, {
      title: 'Renamed in the browser',
      description: '',
      hashtags: '',
      status: 'draft',
      platformSettings: '{}',
    });
    expect(status).toBe(303);
    const shown = await cli(lib.home, ['show', id, '--json', 'title'], { env });
    expect(JSON.parse(shown.stdout)).toEqual({ title: 'Renamed in the browser' });
    expect(await b.interrupt()).toBe(0);
  });
});
