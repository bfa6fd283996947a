// Against the embedded default: each command line run in-process as the binary would run it
// (test/support/cli-in-process.ts), with a temp CONTENTLIB_HOME and no remote configured. Items are seeded through the real API of a server started on the same
// data directory (with the key the CLI created on first use).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { ContentItem, GetResponse } from '../../src/api/schemas.js';
import { startServer } from '../../src/server/index.js';
import {
  apiClient,
  cli,
  fileMode,
  readConfig,
  seedCarousel,
  seedShortform,
  tempHome,
} from '../support/cli-in-process.js';

/** An item without its signed URLs, which change with every answer. */
const unsigned = (item: ContentItem) => ({ ...item, fileUrl: undefined, thumbnailUrl: undefined });

let home: { dir: string; remove: () => Promise<void> };
let server: Awaited<ReturnType<typeof startServer>>;
let client: ApiClient;
let clipA: ContentItem;
let clipB: ContentItem;
let carousel: ContentItem;

beforeAll(async () => {
  home = await tempHome();
  // First use: creates the brand, the key and the config file.
  const first = await cli(home.dir, ['ls']);
  expect(first).toMatchObject({ exitCode: 0, stdout: '' });
  const config = await readConfig(home.dir);
  // No posters made in the background: ls and the API are compared field by field.
  server = await startServer({ dataDir: join(home.dir, 'data'), previews: { enabled: false } });
  client = apiClient(server.url, config.embedded!.apiKey);
  clipA = await seedShortform(client, 'Summer sale teaser');
  clipB = await seedShortform(client, 'Winter promo');
  carousel = await seedCarousel(client, 'Product shots');
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await home?.remove();
});

describe('embedded library (no remote configured)', () => {
  it('keeps its key in a 0600 config file and never prints it', async () => {
    const config = await readConfig(home.dir);
    expect(config.embedded!.apiKey).toMatch(/^cl_/);
    expect(await fileMode(join(home.dir, 'config', 'config.json'))).toBe(0o600);
    const r = await cli(home.dir, ['config', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`embedded.api-key\t${config.embedded!.apiKey.slice(0, 7)}…`);
    expect(r.stdout).not.toContain(config.embedded!.apiKey);
  });

  it('reuses the same key on the next run (no second brand)', async () => {
    const before = (await readConfig(home.dir)).embedded!.apiKey;
    expect((await cli(home.dir, ['ls', '--json'])).exitCode).toBe(0);
    expect((await readConfig(home.dir)).embedded!.apiKey).toBe(before);
  });

  it('ls in a pipe: tab-separated rows, newest first, no color; stderr only names the library', async () => {
    const r = await cli(home.dir, ['ls'], { env: { FORCE_COLOR: undefined } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`→ embedded library at ${join(home.dir, 'data')}`);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((c) => c[3])).toEqual(['Product shots', 'Winter promo', 'Summer sale teaser']);
    expect(rows[0]).toEqual([carousel.id, 'carousel', 'draft', 'Product shots', carousel.createdAt]);
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('ls filters: --type, --search, --status, --limit, --offset', async () => {
    expect((await cli(home.dir, ['ls', '--type', 'carousel'])).stdout.trim().split('\n')).toHaveLength(1);
    expect((await cli(home.dir, ['ls', '--search', 'SALE'])).stdout).toContain(clipA.id);
    expect((await cli(home.dir, ['ls', '--search', 'SALE'])).stdout).not.toContain(clipB.id);
    expect((await cli(home.dir, ['ls', '--status', 'published'])).stdout).toBe('');
    const two = (await cli(home.dir, ['ls', '--limit', '2'])).stdout.trim().split('\n');
    expect(two.map((l) => l.split('\t')[0])).toEqual([carousel.id, clipB.id]);
    const skip = (await cli(home.dir, ['ls', '--offset', '2'])).stdout.trim().split('\n');
    expect(skip.map((l) => l.split('\t')[0])).toEqual([clipA.id]);
  });

  it('ls --json prints exactly the API items as an array', async () => {
    const r = await cli(home.dir, ['ls', '--json', '--type', 'shortform']);
    expect(r.exitCode).toBe(0);
    const items = JSON.parse(r.stdout) as ContentItem[];
    const page = await client.list({ type: 'shortform' });
    // Signed URLs differ per answer (they carry their own expiry); everything else is identical.
    expect(items.map(unsigned)).toEqual(page.items.map(unsigned));
    expect(items[0]!.fileUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('ls rejects bad flag values with exit 2 and says why', async () => {
    const bad = await cli(home.dir, ['ls', '--status', 'archived']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('Allowed choices are draft, scheduled, published, failed');
    const limit = await cli(home.dir, ['ls', '--limit', 'ten']);
    expect(limit.exitCode).toBe(2);
    expect(limit.stderr).toContain('--limit must be a whole number');
    const unknown = await cli(home.dir, ['ls', '--colour']);
    expect(unknown.exitCode).toBe(2);
    // Commander's parse errors in the one error style, with where to read the usage.
    expect(unknown.stderr).toBe("Error: Unknown option '--colour'\nRun contentlib ls --help for usage.");
  });

  it('show prints every field, plain and --json; a carousel lists its files by sortOrder', async () => {
    const plain = await cli(home.dir, ['show', carousel.id]);
    expect(plain.exitCode).toBe(0);
    const lines = plain.stdout.trimEnd().split('\n');
    expect(lines).toContain(`id\t${carousel.id}`);
    expect(lines).toContain('type\tcarousel');
    expect(lines).toContain('title\tProduct shots');
    const keys = lines.filter((l) => /^files\.\d+\.fileName\t/.test(l));
    expect(keys).toEqual(['files.0.fileName\tfirst.png', 'files.1.fileName\tsecond.jpg']);
    // --json: the item as ls lists it, its files nested.
    const json = JSON.parse((await cli(home.dir, ['show', carousel.id, '--json'])).stdout) as GetResponse['item'] & {
      files: GetResponse['files'];
    };
    const api = await client.get(carousel.id);
    expect(json.id).toBe(api.item.id);
    expect(json.files.map((f) => f.sortOrder)).toEqual([0, 1]);
    expect(Object.keys(json).sort()).toEqual([...Object.keys(api.item), 'files'].sort());
  });

  it('show of an unknown id: exit 5 and a message naming the id', async () => {
    const r = await cli(home.dir, ['show', '6f1d2c3b-0000-4000-8000-000000000000']);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    // The embedded library's URL is a new port each run: the message names its data folder.
    expect(r.stderr).toContain(
      `Item 6f1d2c3b-0000-4000-8000-000000000000 is not in the embedded library (${join(home.dir, 'data')})`,
    );
    expect(r.stderr).not.toContain('127.0.0.1');
  });

  it('edit changes fields, merges platform settings and prints the updated item', async () => {
    const r = await cli(home.dir, [
      'edit',
      clipA.id,
      '--title',
      'Summer sale final',
      '--status',
      'scheduled',
      '--hashtags',
      'summer, #sale, Summer',
      '--platform',
      'youtube.visibility=private',
      '--platform',
      'youtube.category=22',
      '--platform',
      'tiktok.duet=false',
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    const item = JSON.parse(r.stdout) as ContentItem;
    expect(item).toMatchObject({
      title: 'Summer sale final',
      status: 'scheduled',
      hashtags: ['summer', 'sale'],
      platformSettings: { youtube: { visibility: 'private', category: 22 }, tiktok: { duet: false } },
    });
    // A second edit merges into what is there, and add/remove work on the current tags.
    const again = await cli(home.dir, [
      'edit',
      clipA.id,
      '--platform',
      'youtube.visibility="unlisted"',
      '--add-hashtag',
      '#promo',
      '--remove-hashtag',
      'SALE',
    ]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('platformSettings.youtube.visibility\tunlisted');
    const now = (await client.get(clipA.id)).item;
    expect(now.platformSettings).toEqual({
      youtube: { visibility: 'unlisted', category: 22 },
      tiktok: { duet: false },
    });
    expect(now.hashtags).toEqual(['summer', 'promo']);
    // --replace-platform drops the rest.
    await cli(home.dir, ['edit', clipA.id, '--replace-platform', '--platform', 'instagram.firstComment=hi']);
    expect((await client.get(clipA.id)).item.platformSettings).toEqual({ instagram: { firstComment: 'hi' } });
  });

  it('edit --platform-json - reads stdin', async () => {
    const r = await cli(home.dir, ['edit', clipB.id, '--platform-json', '-'], {
      input: '{"youtube": {"visibility": "public"}}',
    });
    expect(r.exitCode).toBe(0);
    expect((await client.get(clipB.id)).item.platformSettings).toEqual({ youtube: { visibility: 'public' } });
  });

  it('edit checks locally before sending: bad values exit 2 and change nothing', async () => {
    const before = (await client.get(clipB.id)).item;
    const long = await cli(home.dir, ['edit', clipB.id, '--title', 'x'.repeat(301)]);
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toMatch(/title: .*300/);
    expect(long.stderr).toContain('nothing was sent');
    expect((await cli(home.dir, ['edit', clipB.id])).exitCode).toBe(2);
    expect((await cli(home.dir, ['edit', clipB.id, '--platform', 'novalue'])).exitCode).toBe(2);
    const badJson = await cli(home.dir, ['edit', clipB.id, '--platform-json', '-'], { input: '{nope' });
    expect(badJson.exitCode).toBe(2);
    expect(badJson.stderr).toContain('is not valid JSON');
    expect(unsigned((await client.get(clipB.id)).item)).toEqual(unsigned(before));
  });

  it('FORCE_COLOR colors messages in a pipe; --no-color and NO_COLOR win', async () => {
    const missing = '6f1d2c3b-0000-4000-8000-000000000000';
    expect((await cli(home.dir, ['show', missing], { env: { FORCE_COLOR: '1' } })).stderr).toContain(
      '\u001b[31mError:',
    );
    expect((await cli(home.dir, ['show', missing, '--no-color'], { env: { FORCE_COLOR: '1' } })).stderr).not.toContain(
      '\u001b[',
    );
    expect((await cli(home.dir, ['show', missing], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stderr).not.toContain(
      '\u001b[',
    );
    // Data rows in a pipe stay plain whatever the color setting: scripts parse them.
    expect((await cli(home.dir, ['ls'], { env: { FORCE_COLOR: '1' } })).stdout).not.toContain('\u001b[');
  });

  it('edit of an unknown id exits 5', async () => {
    const r = await cli(home.dir, ['edit', '6f1d2c3b-0000-4000-8000-000000000000', '--title', 'x']);
    expect(r.exitCode).toBe(5);
  });

  it('rm without a terminal refuses unless --yes, and deletes nothing', async () => {
    const r = await cli(home.dir, ['rm', clipB.id]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await client.get(clipB.id)).item.id).toBe(clipB.id);
  });

  it('rm --yes goes on past a missing id: exit 3, each reported', async () => {
    const missing = '6f1d2c3b-0000-4000-8000-000000000000';
    const r = await cli(home.dir, ['rm', '--yes', missing, clipB.id, '--json']);
    expect(r.exitCode).toBe(3);
    const results = JSON.parse(r.stdout) as Array<{ id: string; deleted: boolean; error?: { status: number } }>;
    expect(results).toEqual([
      { id: missing, deleted: false, error: { status: 404, code: 'not_found', message: expect.any(String) } },
      { id: clipB.id, deleted: true },
    ]);
    await expect(client.get(clipB.id)).rejects.toMatchObject({ status: 404 });
    const again = await cli(home.dir, ['rm', '--yes', clipB.id]);
    expect(again.exitCode).toBe(5);
    expect(again.stderr).toContain(`Not deleted ${clipB.id}`);
  });

  it('--help of every command has real examples', async () => {
    for (const cmd of ['ls', 'show', 'edit', 'rm', 'login', 'logout', 'config', 'completion']) {
      const r = await cli(home.dir, [cmd, '--help']);
      expect(r.exitCode, cmd).toBe(0);
      expect(r.stdout, cmd).toMatch(/Examples:\n {2}(source <\()?contentlib /);
    }
  });

  it('completion scripts: bash parses, and all three name every command', async () => {
    const bash = await cli(home.dir, ['completion', 'bash']);
    expect(bash.exitCode).toBe(0);
    const { execa } = await import('execa');
    const check = await execa('bash', ['-n'], { input: bash.stdout, reject: false });
    expect(check.exitCode, check.stderr).toBe(0);
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await cli(home.dir, ['completion', shell]);
      for (const cmd of ['ls', 'show', 'edit', 'rm', 'login', 'config'])
        expect(r.stdout, `${shell} ${cmd}`).toContain(cmd);
      expect(r.stdout).toMatch(/(--|-l )platform/);
    }
    expect((await cli(home.dir, ['completion', 'powershell'])).exitCode).toBe(2);
  });
});
