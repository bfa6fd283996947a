// The terminal side for real: the built binary inside a tmux pseudo-terminal, for the table
// (alignment, color, relative times, the one-time notice), the rm confirmation and login's
// hidden key input. Skipped, saying why, only when tmux is not installed, and never in CI.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { ContentItem } from '../../src/api/schemas.js';
import { startServer } from '../../src/server/index.js';
import { apiClient, cleanEnv, cli, readConfig, seedCarousel, seedShortform, tempHome } from '../support/cli.js';
import { HAS_TMUX, skipWithout } from '../support/needs.js';
import { BIN } from '../support/paths.js';

const socket = `contentlib-test-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
let session = 0;

/** Runs a command line in a fresh 120x40 pane and returns the pane's name. */
function openPane(home: string, commandLine: string, extra: Record<string, string | undefined> = {}): string {
  const name = `s${++session}`;
  const env = cleanEnv(home, { TERM: 'xterm-256color', ...extra });
  const exports = Object.entries(env)
    .filter(([k]) => k.startsWith('CONTENTLIB_') || ['PATH', 'HOME', 'TERM', 'NODE_NO_WARNINGS'].includes(k))
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  // The pane stays open after the command so its last screen can be read.
  tmux(
    'new-session',
    '-d',
    '-x',
    '120',
    '-y',
    '40',
    '-s',
    name,
    `env -i ${exports} sh -c '${commandLine.replace(/'/g, `'\\''`)}; echo EXIT=$?; sleep 600'`,
  );
  return name;
}

const capture = (name: string, escapes = false) => tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', name);

/** Waits until the pane shows `text` (polling; the deadline only guards against a hang). */
async function waitFor(name: string, text: string | RegExp, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const screen = capture(name);
    if (typeof text === 'string' ? screen.includes(text) : text.test(screen)) return screen;
    if (Date.now() > deadline) throw new Error(`pane never showed ${String(text)}; it shows:\n${screen}`);
    await sleep(100);
  }
}

const node = (args: string) => `node ${BIN} ${args}`;

let home: { dir: string; remove: () => Promise<void> };
let server: Awaited<ReturnType<typeof startServer>>;
let client: ApiClient;
let apiKey: string;
let clip: ContentItem;
let carousel: ContentItem;

describe.skipIf(skipWithout('tmux', HAS_TMUX, 'apt-get install tmux'))('on a real terminal (tmux)', () => {
  beforeAll(async () => {
    home = await tempHome();
    expect((await cli(home.dir, ['ls'])).exitCode).toBe(0);
    apiKey = (await readConfig(home.dir)).embedded!.apiKey;
    server = await startServer({ dataDir: join(home.dir, 'data'), previews: { enabled: false } });
    client = apiClient(server.url, apiKey);
    clip = await seedShortform(
      client,
      'Teaser with a title long enough to be cut at the edge of a 120 column terminal, so it goes on and on',
    );
    carousel = await seedCarousel(client, 'Product shots');
  });

  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // no session left
    }
    await client?.close();
    await server?.close();
    await home?.remove();
  });

  it('ls draws an aligned, colored table with relative times, and says once which library', async () => {
    const pane = openPane(home.dir, node('ls'));
    const screen = await waitFor(pane, 'EXIT=');
    expect(screen).toContain('EXIT=0');
    const lines = screen.split('\n');
    // The environment chooses the embedded library (CONTENTLIB_EMBEDDED=1), so no "no remote configured".
    expect(lines[0]).toBe(`→ embedded library at ${join(home.dir, 'data')}`);
    const header = lines.findIndex((l) => /^ID\s+TYPE\s+STATUS\s+CREATED\s+TITLE/.test(l));
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 1, header + 3);
    expect(rows[0]).toContain(carousel.id);
    expect(rows[1]).toContain(clip.id);
    expect(rows[0]!.indexOf('carousel')).toBe(lines[header]!.indexOf('TYPE'));
    expect(rows[1]!.indexOf('shortform')).toBe(lines[header]!.indexOf('TYPE'));
    expect(rows[1]).toMatch(/just now|seconds? ago|minutes? ago/);
    expect(rows[1]!.trimEnd().length).toBeLessThanOrEqual(120);
    expect(rows[1]!.trimEnd().endsWith('…')).toBe(true);
    expect(capture(pane, true)).toContain('\u001b['); // colors on a terminal
  });

  it('NO_COLOR turns colors off on a terminal too', async () => {
    const pane = openPane(home.dir, `NO_COLOR=1 ${node('ls')}`);
    await waitFor(pane, 'EXIT=0');
    const colored = capture(pane, true)
      .split('\n')
      .filter((l) => l.includes(clip.id));
    expect(colored.join('')).not.toContain('\u001b[');
  });

  it('show on the embedded library says its URLs end with the command; a pipe gets no note', async () => {
    const pane = openPane(home.dir, node(`show ${clip.id}`));
    const screen = await waitFor(pane, 'EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/fileUrl\s+http:\/\/127\.0\.0\.1:\d+\/storage\//);
    expect(screen).toContain('Note: these URLs stop working when this command ends');
    const piped = await cli(home.dir, ['show', clip.id]);
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toContain('Note:');
  });

  it("at a terminal with no remote configured, upload writes to the embedded library (the README's first command) and says so", async () => {
    const demo = join(import.meta.dirname, '../../fixtures/demo');
    const pane = openPane(home.dir, node(`upload ${demo}`), { CONTENTLIB_EMBEDDED: undefined });
    const screen = await waitFor(pane, 'EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain(
      `→ embedded library at ${join(home.dir, 'data')} (no remote configured; see contentlib login)`,
    );
    expect(screen).toContain('3 items created');
  });

  it('-q: nothing on stderr but a question is still asked', async () => {
    const pane = openPane(home.dir, node(`-q rm ${clip.id}`));
    const screen = await waitFor(pane, '[y/N]');
    expect(screen).not.toContain('→');
    tmux('send-keys', '-t', pane, 'n', 'Enter');
    expect(await waitFor(pane, 'EXIT=')).toContain('EXIT=130');
  });

  it('rm asks once naming each item; "n" deletes nothing', async () => {
    const pane = openPane(home.dir, node(`rm ${clip.id} ${carousel.id}`));
    const screen = await waitFor(pane, '[y/N]');
    expect(screen).toContain('About to delete these 2 items');
    expect(screen).toMatch(new RegExp(`${clip.id}\\s+shortform\\s+Teaser`));
    expect(screen).toMatch(new RegExp(`${carousel.id}\\s+carousel\\s+Product shots`));
    tmux('send-keys', '-t', pane, 'n', 'Enter');
    const after = await waitFor(pane, 'EXIT=');
    expect(after).toContain('EXIT=130');
    expect(after).toContain('Nothing was deleted.');
    expect((await client.get(clip.id)).item.id).toBe(clip.id);
  });

  it('rm: "y" deletes and reports each', async () => {
    const pane = openPane(home.dir, node(`rm ${carousel.id}`));
    await waitFor(pane, 'Delete it? [y/N]');
    tmux('send-keys', '-t', pane, 'y', 'Enter');
    const after = await waitFor(pane, 'EXIT=');
    expect(after).toContain('EXIT=0');
    expect(after).toContain(`Deleted ${carousel.id} (carousel: Product shots)`);
    await expect(client.get(carousel.id)).rejects.toMatchObject({ status: 404 });
  });

  it('login asks for the base URL and the key, never echoing the key', async () => {
    const pane = openPane(home.dir, node('login --profile tty'));
    await waitFor(pane, 'Base URL of the service');
    tmux('send-keys', '-t', pane, '-l', server.url);
    tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(pane, 'API key (input hidden):');
    tmux('send-keys', '-t', pane, '-l', apiKey);
    tmux('send-keys', '-t', pane, 'Enter');
    const screen = await waitFor(pane, 'EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain(`Logged in to ${server.url} as profile "tty" (key ${apiKey.slice(0, 7)}…)`);
    expect(screen).not.toContain(apiKey);
    expect((await readConfig(home.dir)).profiles.tty).toEqual({ baseUrl: server.url, apiKey });
  });
});
