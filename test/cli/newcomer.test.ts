// What a newcomer runs into, each command line run in-process as the binary would run it
// (test/support/cli-in-process.ts): each answer says what went wrong and what to
// do, with the documented exit code, and nothing half-created. One test per fix from trying
// every command by hand (see issue 6).
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { describeError } from '../../src/cli/error-messages.js';
import { run } from '../../src/cli/main.js';
import { resolvePaths } from '../../src/config/paths.js';
import { cli, createKey, startRemote, tempHome } from '../support/cli-in-process.js';
import { FIXTURES } from '../support/paths.js';
import { bufferIO } from '../support/io.js';

const homes: Array<{ remove: () => Promise<void> }> = [];
async function home(): Promise<string> {
  const h = await tempHome();
  homes.push(h);
  return h.dir;
}
afterAll(async () => {
  await Promise.all(homes.map((h) => h.remove()));
});

/** No stack trace, no "this is a bug": the message is for a person. */
function expectNoLeak(stderr: string): void {
  expect(stderr).not.toMatch(/Unexpected error|This is a bug|\n\s+at /);
}

describe('the embedded data folder cannot be used', () => {
  it('a file where the data folder should be is named, with what to do (exit 1)', async () => {
    const h = await home();
    await writeFile(join(h, 'data'), 'not a folder');
    const r = await cli(h, ['ls']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `Cannot use ${join(h, 'data')} for the embedded library: a file is in the way where a folder should be`,
    );
    expect(r.stderr).toContain('CONTENTLIB_HOME');
    expectNoLeak(r.stderr);
  });

  // Node's own recursive mkdir spins forever there (ENOENT under an existing /proc/1), deaf to
  // Ctrl-C: contentlib must answer, at once.
  it.runIf(existsSync('/proc/1'))(
    'CONTENTLIB_HOME where no folder can be made (/proc/1/…) is an error, not a hang',
    async () => {
      const h = await home();
      const started = Date.now();
      const r = await cli(h, ['ls'], { env: { CONTENTLIB_HOME: '/proc/1/contentlib-nope' } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('Could not create the config folder /proc/1/contentlib-nope');
      expect(r.stderr).toContain('set CONTENTLIB_HOME');
      expect(Date.now() - started).toBeLessThan(30_000);
      expectNoLeak(r.stderr);
    },
  );

  it('serve and keys with a --data-dir that cannot be a folder say which and why (exit 1, not "a bug")', async () => {
    const h = await home();
    const file = join(h, 'a-file');
    await writeFile(file, 'x');
    const serve = await cli(h, ['serve', '--data-dir', join(file, 'sub')]);
    expect(serve.exitCode).toBe(1);
    expect(serve.stderr).toContain(
      `Cannot use ${join(file, 'sub')} as the data folder: a file is in the way where a folder should be (ENOTDIR).`,
    );
    expect(serve.stderr).toContain('choose another folder with --data-dir');
    expectNoLeak(serve.stderr);
    for (const args of [
      ['keys', 'list'],
      ['keys', 'create', '--brand', 'acme'],
      ['keys', 'revoke', 'some-id'],
    ]) {
      const r = await cli(h, [...args, '--data-dir', file]);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(
        `Cannot use ${file} as the data folder: a file is in the way where a folder should be (EEXIST).`,
      );
      expectNoLeak(r.stderr);
    }
  });

  it('keys list / revoke with a --data-dir where there is no library create nothing there', async () => {
    const h = await home();
    const typo = join(h, 'libary');
    const list = await cli(h, ['keys', 'list', '--data-dir', typo]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toBe('');
    const revoke = await cli(h, ['keys', 'revoke', 'some-id', '--data-dir', typo]);
    expect(revoke.exitCode).toBe(5);
    expect(revoke.stderr).toContain(`No key with id some-id in ${typo}.`);
    expect(existsSync(typo)).toBe(false);
  });

  it('a folder where the database file should be: upload refuses before sending anything', async () => {
    const h = await home();
    await mkdir(join(h, 'data', 'contentlib.db'), { recursive: true });
    const r = await cli(h, ['upload', join(FIXTURES, 'demo')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the database cannot be opened there');
    expect(r.stdout).toBe('');
    expectNoLeak(r.stderr);
  });
});

describe('against a remote (contentlib serve)', () => {
  let serverHome: string;
  let remote: Awaited<ReturnType<typeof startRemote>>;
  beforeAll(async () => {
    serverHome = await home();
    remote = await startRemote(serverHome);
  }, 30_000);
  afterAll(async () => {
    await remote.stop();
  });

  it('upload with a revoked key exits 4 and says to log in again, like every other command', async () => {
    const key = await createKey(serverHome, 'acme');
    const list = await cli(serverHome, ['keys', 'list']);
    const id = list.stdout
      .split('\n')
      .find((l) => l.includes('acme'))!
      .split('\t')[0]!;
    expect((await cli(serverHome, ['keys', 'revoke', id])).exitCode).toBe(0);

    const h = await home();
    const env = { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key };
    const r = await cli(h, ['upload', join(FIXTURES, 'demo')], { env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`${remote.url} rejected the API key`);
    expect(r.stderr).toContain(`contentlib login --base-url ${remote.url}`);
    expect(r.stderr).not.toContain(key);
    expect((await cli(h, ['ls'], { env })).exitCode).toBe(4);
  });
});

describe('ids and flags a newcomer gets wrong', () => {
  it('rm of ids that do not exist says so in words, not in HTTP routes (exit 5)', async () => {
    const h = await home();
    const r = await cli(h, ['rm', '--yes', 'abcdef', '00000000-0000-4000-8000-000000000000']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('Not deleted abcdef: No item id starts with abcdef in the embedded library');
    expect(r.stderr).toContain(
      'Not deleted 00000000-0000-4000-8000-000000000000: no such item in this library (404 not_found)',
    );
    expect(r.stderr).toContain('Check the ids with: contentlib ls');
    expect(r.stderr).not.toContain('/api/v1');
  });

  it('upload --to a carousel that is not there names the id and what to fix, once (exit 2, nothing sent)', async () => {
    const h = await home();
    const id = '00000000-0000-4000-8000-000000000000';
    const r = await cli(h, ['upload', '--to', id, join(FIXTURES, 'image/photo.jpg')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      `carousel ${id} is not in this library; find its id with: contentlib ls --type carousel`,
    );
    expect(r.stderr).toContain('Fix the carousel id (--to');
    expect(r.stderr.match(/nothing was uploaded/gi)).toHaveLength(1);
    expect((await cli(h, ['ls', '--json'])).stdout.trim()).toBe('[]');
  });

  it('ls --offset -1 and --limit 0 say the lower bound, with an example (exit 2)', async () => {
    const h = await home();
    const offset = await cli(h, ['ls', '--offset', '-1']);
    expect(offset.exitCode).toBe(2);
    expect(offset.stderr).toContain('--offset must be a whole number, 0 or more, got "-1".');
    expect(offset.stderr).toContain('For example: --offset 20');
    const limit = await cli(h, ['ls', '--limit', '0']);
    expect(limit.exitCode).toBe(2);
    expect(limit.stderr).toContain('--limit must be a whole number, 1 or more, got 0.');
  });

  it('edit --platform-json of a missing file or a folder says so in words (exit 2)', async () => {
    const h = await home();
    const id = '00000000-0000-4000-8000-000000000000';
    const missing = await cli(h, ['edit', id, '--platform-json', join(h, 'nope.json')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`Cannot read --platform-json ${join(h, 'nope.json')}: no such file.`);
    const folder = await cli(h, ['edit', id, '--platform-json', h]);
    expect(folder.stderr).toContain(': it is a folder.');
  });

  it('upload with no paths says what to type, not "1 problem found" (exit 2)', async () => {
    const r = await cli(await home(), ['upload']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'Error: Nothing to upload: name files, folders or globs (or --manifest FILE).\nFor example: contentlib upload fixtures/demo   (more in contentlib upload --help)',
    );
  });

  it('edit with no change lists every flag that changes something, --thumbnail too (exit 2)', async () => {
    const h = await home();
    const r = await cli(h, ['edit', '00000000-0000-4000-8000-000000000000']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Nothing to change.');
    expect(r.stderr).toContain('--platform-json, --thumbnail;');
  });
});

describe('second round of trying every command (issue 6)', () => {
  it('help of a command that does not exist says so, with a suggestion (exit 2)', async () => {
    const h = await home();
    const typo = await cli(h, ['help', 'uplod']);
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain("Error: Unknown command 'uplod'");
    expect(typo.stderr).toContain('Did you mean upload?');
    const nope = await cli(h, ['help', 'nope']);
    expect(nope.exitCode).toBe(2);
    expect(nope.stderr).toContain("Error: Unknown command 'nope'");
    // A real command's help is unchanged.
    const ls = await cli(h, ['help', 'ls']);
    expect(ls.exitCode).toBe(0);
    expect(ls.stdout).toContain('Usage: contentlib ls');
  });

  it('edit --hashtags "###" is refused, and the hashtags are kept (exit 2)', async () => {
    const h = await home();
    const up = await cli(h, ['upload', join(FIXTURES, 'video/clip-5s.mp4'), '--hashtags', 'summer', '--json']);
    expect(up.exitCode).toBe(0);
    const id = (JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> }).items[0]!.id;
    const r = await cli(h, ['edit', id, '--hashtags', '###']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--hashtags "###" holds no hashtag.');
    expect(r.stderr).toContain('to remove every hashtag, pass --hashtags ""');
    const shown = JSON.parse((await cli(h, ['show', id, '--json'])).stdout) as { hashtags: string[] };
    expect(shown.hashtags).toEqual(['summer']);
    // upload takes the same flag the same way: refused before anything is sent.
    const refused = await cli(h, ['upload', join(FIXTURES, 'video/clip-5s.mov'), '--hashtags', '#']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--hashtags "#" holds no hashtag.');
    expect(JSON.parse((await cli(h, ['ls', '--json'])).stdout)).toHaveLength(1);
  });

  it('edit --thumbnail with a video says the item was not changed, not "nothing was uploaded" (exit 2)', async () => {
    const h = await home();
    const r = await cli(h, [
      'edit',
      '00000000-0000-4000-8000-000000000000',
      '--thumbnail',
      join(FIXTURES, 'video/clip-2s.mp4'),
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('1 problem found; the item was not changed:');
    expect(r.stderr).toContain('Choose a jpeg, png or webp image of at most 20 MB for --thumbnail.');
    expect(r.stderr).not.toContain('nothing was uploaded');
  });

  it('login to a URL where nothing listens: nothing saved, and no hint about --embedded (exit 1)', async () => {
    const h = await home();
    const r = await cli(h, ['login', '--with-token', '--base-url', 'http://127.0.0.1:1'], { input: 'cl_whatever' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('Could not reach http://127.0.0.1:1: connection refused; nothing was saved.');
    expect(r.stderr).toContain('then run contentlib login again');
    expect(r.stderr).not.toContain('--embedded');
    expect((await cli(h, ['config', 'list'])).stdout).not.toContain('127.0.0.1:1');
  });
});

describe('contentlib serve where it cannot listen', () => {
  it('a port already in use is named, with what to do (exit 1, not "a bug")', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, '127.0.0.1', res));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await cli(await home(), ['serve', '--port', String(port)]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`Cannot listen: 127.0.0.1:${port} is already in use`);
      expect(r.stderr).toContain('--port 0 takes any free port');
      expectNoLeak(r.stderr);
    } finally {
      await new Promise((res) => taken.close(res));
    }
  });

  it.each([
    [
      { syscall: 'listen', code: 'EADDRNOTAVAIL', address: '10.9.9.9', port: 0 },
      'Cannot listen: 10.9.9.9 is not an address of this machine.',
    ],
    [
      { syscall: 'listen', code: 'EACCES', address: '0.0.0.0', port: 80 },
      'Cannot listen: no permission to listen on 0.0.0.0:80',
    ],
    [
      { syscall: 'getaddrinfo', code: 'ENOTFOUND', hostname: 'nosuch.invalid' },
      'Cannot listen: the host nosuch.invalid is not known.',
    ],
  ])('%j → "%s"', (fields, expected) => {
    const { message, exitCode } = describeError(Object.assign(new Error('raw'), fields));
    expect(message).toContain(expected);
    expect(exitCode).toBe(1);
  });
});

describe('two commands at once on the embedded library', () => {
  it('two uploads of the same folder and an ls at the same time: every item once, nothing fails', async () => {
    const h = await home();
    const demo = join(FIXTURES, 'demo');
    const [a, b, list] = await Promise.all([
      cli(h, ['upload', demo]),
      cli(h, ['upload', demo]),
      cli(h, ['ls', '--json']),
    ]);
    expect([a.exitCode, b.exitCode, list.exitCode], [a.stderr, b.stderr, list.stderr].join('\n---\n')).toEqual([
      0, 0, 0,
    ]);
    const items = JSON.parse((await cli(h, ['ls', '--json'])).stdout) as Array<{ type: string }>;
    expect(items.map((i) => i.type).sort()).toEqual(['carousel', 'shortform', 'shortform']);
    // One of them did the work; the other waited for it, then skipped all three.
    const skipped = [a, b].map((r) => r.stdout.split('\n').filter((l) => l.includes('\tskipped\t')).length).sort();
    expect(skipped).toEqual([0, 3]);
  });
});

describe('Ctrl-C or Ctrl-D at a login question', () => {
  it.each([
    ['the API key', ['login', '--base-url', 'http://127.0.0.1:1']],
    ['the base URL', ['login']],
  ])('at %s: interrupted (130), nothing saved, not "the key is empty" (2)', async (_what, args) => {
    const h = await home();
    // A terminal whose input ends at once: what readline sees on Ctrl-D, and on Ctrl-C after its SIGINT closes it.
    const io = bufferIO({ stdinIsTTY: true, stderrIsTTY: true });
    (io.stdin as PassThrough).end();
    const ctx: CliContext = {
      io,
      env: {},
      paths: resolvePaths({ CONTENTLIB_HOME: h }),
      cwd: h,
      now: () => new Date(),
      sleep: async () => {},
      signal: new AbortController().signal,
      onClose: () => {},
      targetNames: new Map(),
    };
    expect(await run(args, ctx, [])).toBe(130);
    expect(io.err()).toContain('Interrupted; nothing was saved.');
    expect(io.err()).not.toContain('empty');
    await expect(readdir(join(h, 'config')).catch(() => [])).resolves.not.toContain('config.json');
  });
});
