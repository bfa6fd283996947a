// `contentlib browse` in-process: the URL is the first line of stdout, the browser is opened
// unless --no-open or BROWSER=none, and Ctrl-C (the signal) stops the server. Also which
// command opens a browser on each system, and --port.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { runBrowse } from '../../src/cli/commands/browse.js';
import { parsePort } from '../../src/cli/flags.js';
import { browserLaunch } from '../../src/cli/open-browser.js';
import { apiClient } from '../support/cli.js';
import { bufferIO } from '../support/io.js';
import { type TestServer, serverWithKey } from '../support/server.js';

let s: TestServer;
let client: ApiClient;
beforeAll(async () => {
  const { s: server, key } = await serverWithKey();
  s = server;
  client = apiClient(s.url, key);
});
afterAll(async () => {
  await client.close();
  await s.dispose();
});

const options = () => ({
  library: client,
  describe: (err: unknown) => String(err),
  libraryName: 'test',
  setThumbnail: async () => {},
  replaceImage: async () => {},
});

/** Runs browse until the test aborts it; resolves once the URL is printed. */
async function launch(flags: { port?: number; open?: boolean }, env: NodeJS.ProcessEnv = {}, path = '/') {
  const io = bufferIO();
  const stop = new AbortController();
  const opened: string[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const done = runBrowse(flags, path, {
    io,
    env,
    signal: stop.signal,
    options: options(),
    open: async (url) => {
      opened.push(url);
      return undefined;
    },
    onReady: () => ready(),
  });
  await Promise.race([isReady, done]);
  return { io, opened, done, stop: () => stop.abort(new Error('SIGINT')) };
}

describe('runBrowse', () => {
  it('prints the URL first, with its token, on 127.0.0.1, and opens it', async () => {
    const b = await launch({});
    const url = b.io.out().split('\n')[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(b.opened).toEqual([url]);
    const res = await request(url);
    await res.body.text();
    expect(res.statusCode).toBe(303);
    b.stop();
    await b.done;
    // Stopped: nothing listens there any more.
    await expect(request(url)).rejects.toThrow();
  });

  it('--no-open and BROWSER=none print the URL only', async () => {
    for (const [flags, env] of [
      [{ open: false }, {}],
      [{}, { BROWSER: 'none' }],
    ] as const) {
      const b = await launch(flags, env);
      expect(b.io.out()).toMatch(/^http:\/\/127\.0\.0\.1:/);
      expect(b.opened).toEqual([]);
      b.stop();
      await b.done;
    }
  });

  it('the page of an item (show --web), on the port asked for', async () => {
    const probe = await launch({ open: false });
    const freePort = Number(new URL(probe.io.out().trim()).port);
    probe.stop();
    await probe.done;
    const b = await launch({ port: freePort, open: false }, {}, '/items/abc');
    expect(b.io.out().trim()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${freePort}/items/abc\\?token=`));
    b.stop();
    await b.done;
  });

  it('a port in use is an error, and nothing is printed', async () => {
    const first = await launch({ open: false });
    const port = Number(new URL(first.io.out().trim()).port);
    const io = bufferIO();
    const err = await runBrowse({ port, open: false }, '/', {
      io,
      env: {},
      signal: new AbortController().signal,
      options: options(),
      open: async () => undefined,
    }).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    expect(io.out()).toBe('');
    first.stop();
    await first.done;
  });
});

describe('browserLaunch', () => {
  const url = 'http://127.0.0.1:1/?token=t&x=1';
  it.each([
    [{}, 'linux', { command: 'xdg-open', args: [url] }],
    [{}, 'darwin', { command: 'open', args: [url] }],
    [{}, 'win32', { command: 'cmd', args: ['/c', 'start', '""', 'http://127.0.0.1:1/?token=t^&x=1'] }],
    [{ BROWSER: 'none' }, 'linux', 'none'],
    [{ BROWSER: 'NONE' }, 'darwin', 'none'],
    [{ BROWSER: 'firefox' }, 'linux', { command: 'firefox', args: [url] }],
    [{ BROWSER: 'chromium --new-window %s' }, 'linux', { command: 'chromium', args: ['--new-window', url] }],
    [{ BROWSER: '  ' }, 'linux', { command: 'xdg-open', args: [url] }],
  ] as const)('%j on %s → %j', (env, platform, expected) => {
    expect(browserLaunch(url, env, platform)).toEqual(expected);
  });
});

describe('--port', () => {
  it.each([
    ['0', 0],
    ['8090', 8090],
    ['65535', 65535],
  ])('%s is %i', (raw, n) => expect(parsePort('--port')(raw)).toBe(n));
  it.each(['-1', '65536', 'abc', '80.5', ''])('%j is refused with an example', (raw) => {
    expect(() => parsePort('--port')(raw)).toThrow(/--port must be a port number from 0 to 65535/);
  });
});
