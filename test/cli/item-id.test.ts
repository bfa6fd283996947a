// Short ids (src/cli/item-id.ts): what counts as an id, and show/edit/rm with a unique prefix, an
// ambiguous one and one that matches nothing, in-process against a real server on 127.0.0.1.
import { Database } from '../../src/sqlite/database.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { EXIT, NotFoundError, UsageError } from '../../src/cli/errors.js';
import { itemsWithPrefix, parseIdInput, resolveItemId } from '../../src/cli/item-id.js';
import { databasePath } from '../../src/server/repo/sqlite/db.js';
import { apiClient, seedCarousel, seedShortform } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { cli as runInProcess } from '../support/cli-in-process.js';
import { type TestServer, startTestServer } from '../support/server.js';

const ID = '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11';

describe('parseIdInput', () => {
  it.each([
    [ID, { kind: 'id', id: ID }],
    [ID.toUpperCase(), { kind: 'id', id: ID }],
    ['3f0c2a', { kind: 'prefix', prefix: '3f0c2a' }],
    ['3F0C2A4E-8d', { kind: 'prefix', prefix: '3f0c2a4e-8d' }],
    ['3f0c2a4e-', { kind: 'prefix', prefix: '3f0c2a4e-' }],
  ])('%s → %j', (input, parsed) => {
    expect(parseIdInput(input)).toEqual(parsed);
  });

  it.each([
    ['nonsense', 'is not an item id'],
    ['', 'is not an item id'],
    [`${ID}0`, 'is not an item id'],
    ['3f0c2a4e8d1b', 'is not an item id'], // the dash is part of the id
    ['3f0c2', 'too short'],
  ])('%j is a usage error (exit 2)', (input, words) => {
    let thrown: unknown;
    try {
      parseIdInput(input);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).exitCode).toBe(EXIT.usage);
    expect((thrown as UsageError).message).toContain(words);
  });
});

describe('short ids against a real server', () => {
  let server: TestServer;
  let key: string;
  let client: ApiClient;
  let home: string;
  const ids = {
    first: 'abcdef01-0000-4000-8000-000000000001',
    second: 'abcdef02-0000-4000-8000-000000000002',
    other: '12345678-0000-4000-8000-000000000003',
    carousel: 'c0ffee01-0000-4000-8000-000000000004',
  };

  beforeAll(async () => {
    server = await startTestServer({ clock: 'real' });
    key = await server.key();
    client = apiClient(server.url, key);
    home = await mkdtemp(join(tmpdir(), 'contentlib-ids-'));
    // Random ids never share six characters in a test; the rows are given chosen ones instead.
    const made = [
      [await seedShortform(client, 'First'), ids.first],
      [await seedShortform(client, 'Second'), ids.second],
      [await seedShortform(client, 'Other'), ids.other],
      [await seedCarousel(client, 'Album'), ids.carousel],
    ] as const;
    const db = new Database(databasePath(server.dataDir));
    // A carousel's file rows refer to its id: the ids are swapped in place, the keys checked after.
    db.pragma('foreign_keys = OFF');
    try {
      for (const [item, id] of made) {
        db.prepare('UPDATE items SET id = ? WHERE id = ?').run(id, item.id);
        db.prepare('UPDATE uploads SET item_id = ? WHERE item_id = ?').run(id, item.id);
        db.prepare('UPDATE carousel_files SET item_id = ? WHERE item_id = ?').run(id, item.id);
        db.prepare('UPDATE audit_log SET item_id = ? WHERE item_id = ?').run(id, item.id);
      }
    } finally {
      db.close();
    }
  });
  afterAll(async () => {
    await server.dispose();
    await rm(home, { recursive: true, force: true });
  });

  const env = () => ({ CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: key });
  const cli = (argv: string[]) => runInProcess(home, argv, { env: env() });

  it('the server filters by the idPrefix extension', async () => {
    const page = await client.list({ idPrefix: 'abcdef' });
    expect(page.items.map((i) => i.id).sort()).toEqual([ids.first, ids.second]);
  });

  it('show, edit and rm take a unique prefix', async () => {
    const shown = await cli(['show', 'abcdef01', '--json', 'id,title']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ id: ids.first, title: 'First' });
    const edited = await cli(['edit', 'ABCDEF02-00', '--title', 'Second, renamed', '--json', 'id,title']);
    expect(edited.exitCode, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toEqual({ id: ids.second, title: 'Second, renamed' });
  });

  it('every command that takes an id takes a short one: edit (every flag), download, log, rm, show', async () => {
    const order = await cli(['edit', 'c0ffee01', '--order', '2,1', '--json', 'id']);
    expect(order.exitCode, order.stderr).toBe(0);
    expect(JSON.parse(order.stdout)).toEqual({ id: ids.carousel });
    // A carousel keeps 2 images: the removal is refused for the item the short id named.
    const remove = await cli(['edit', 'c0ffee01', '--remove-image', '1']);
    expect(remove.stderr).toContain('The carousel has 2 images, and a carousel keeps at least 2');
    const replace = await cli([
      'edit',
      'c0ffee01',
      '--replace-image',
      '1',
      join(FIXTURES, 'image/photo.webp'),
      '--dry-run',
    ]);
    expect(replace.exitCode, replace.stderr).toBe(0);
    expect(replace.stderr).toContain('Dry run, nothing was changed');
    const dir = join(home, 'downloads');
    const got = await cli(['download', 'abcdef01', '-o', dir, '--json']);
    expect(got.exitCode, got.stderr).toBe(0);
    expect(got.stdout).toContain(ids.first);
    const log = await cli(['log', 'c0ffee01', '--json', 'action,itemId']);
    expect(log.exitCode, log.stderr).toBe(0);
    expect(JSON.parse(log.stdout)).toContainEqual({ action: 'item.images_reordered', itemId: ids.carousel });
  });

  it.each([
    ['show'],
    ['show', '--web'],
    ['edit', '--title', 'x'],
    ['edit', '--order', '2,1'],
    ['edit', '--remove-image', '1'],
    ['download'],
    ['log'],
    ['rm', '--yes'],
  ])('%s: malformed is exit 2, unknown exit 5, in one shape without API paths', async (command, ...flags) => {
    const at = (id: string) => [command, id, ...flags];
    const bad = await cli(at('nonsense'));
    expect(bad.exitCode, bad.stderr).toBe(EXIT.usage);
    expect(bad.stderr).toContain('"nonsense" is not an item id');
    const none = await cli(at('abcdee'));
    expect(none.exitCode, none.stderr).toBe(EXIT.notFound);
    expect(none.stderr).toContain(`No item id starts with abcdee in ${server.url}`);
    const gone = await cli(at('00000000-0000-4000-8000-00000000dead'));
    if (command !== 'log') {
      expect(gone.exitCode, gone.stderr).toBe(EXIT.notFound);
      expect(gone.stderr).toMatch(/Item 00000000-0000-4000-8000-00000000dead is not in |That id is not in /);
    }
    for (const r of [bad, none, gone]) expect(r.stderr).not.toContain('/api/');
  });

  it('every field of the item is selectable, sha256 and fileSize included (ls and show)', async () => {
    const shown = await cli(['show', 'abcdef01', '--json', 'sha256,fileSize,thumbnailSha256']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      fileSize: expect.any(Number),
      thumbnailSha256: null,
    });
    const listed = await cli(['ls', '--json', 'id,sha256']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    for (const row of JSON.parse(listed.stdout) as Array<Record<string, unknown>>)
      expect(Object.keys(row)).toEqual(['id', 'sha256']);
  });

  it('an ambiguous prefix lists the candidates and changes nothing (exit 2)', async () => {
    for (const argv of [
      ['show', 'abcdef'],
      ['edit', 'abcdef', '--title', 'x'],
      ['rm', '--yes', 'abcdef'],
    ]) {
      const r = await cli(argv);
      expect(r.exitCode, argv.join(' ')).toBe(EXIT.usage);
      expect(r.stderr).toContain('abcdef is ambiguous: 2 item ids start with it');
      expect(r.stderr).toContain(`${ids.first}  shortform  First`);
      expect(r.stderr).toContain(ids.second);
      expect(r.stderr).toContain('Give more characters of the id.');
    }
    expect((await client.get(ids.first)).item.title).toBe('First');
  });

  it('a prefix that matches nothing is not found (exit 5); a malformed id is a usage error (exit 2)', async () => {
    const none = await cli(['show', 'abcdee']);
    expect(none.exitCode).toBe(EXIT.notFound);
    expect(none.stderr).toContain(`No item id starts with abcdee in ${server.url}`);
    const bad = await cli(['show', 'nonsense']);
    expect(bad.exitCode).toBe(EXIT.usage);
    expect(bad.stderr).toContain('"nonsense" is not an item id');
    const short = await cli(['rm', '--yes', 'abc']);
    expect(short.exitCode).toBe(EXIT.usage);
    expect(short.stderr).toContain('give at least 6 characters');
  });

  it('rm reports a prefix that matches nothing with the others, and deletes the rest by their whole id', async () => {
    const r = await cli(['rm', '--yes', '--json', '123456', 'ffffff']);
    expect(r.exitCode).toBe(EXIT.partial);
    const results = JSON.parse(r.stdout) as Array<{ id: string; deleted: boolean; error?: { code: string } }>;
    expect(results).toEqual([
      { id: ids.other, deleted: true },
      { id: 'ffffff', deleted: false, error: expect.objectContaining({ code: 'not_found' }) },
    ]);
    const gone = await cli(['rm', '--yes', 'ffffff']);
    expect(gone.exitCode).toBe(EXIT.notFound);
  });

  it('without the extension, the same answer from the whole list: a service that refuses idPrefix, or ignores it', async () => {
    const refusing: Pick<ApiClient, 'list'> = {
      list: (q, o) =>
        q.idPrefix === undefined
          ? client.list(q, o)
          : Promise.reject(
              new ApiError({
                status: 400,
                code: 'validation_error',
                message: 'unknown query parameter idPrefix',
                method: 'GET',
                url: `${server.url}/api/v1/content`,
              }),
            ),
    };
    const ignoring: Pick<ApiClient, 'list'> = { list: (q, o) => client.list({ ...q, idPrefix: undefined }, o) };
    for (const c of [refusing, ignoring]) {
      expect((await itemsWithPrefix('abcdef', { client: c })).map((i) => i.id).sort()).toEqual([ids.first, ids.second]);
      expect(await resolveItemId('abcdef01', { client: c, library: 'x' })).toBe(ids.first);
      await expect(resolveItemId('abcdee', { client: c, library: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    }
  });
});

describe('not found in the embedded library', () => {
  it('names the library and says nothing of brands or keys (exit 5), for a whole id and a short one', async () => {
    const home = await mkdtemp(join(tmpdir(), 'contentlib-ids-embedded-'));
    try {
      for (const argv of [
        ['show', ID],
        ['rm', '--yes', ID],
        ['edit', ID, '--title', 'x'],
        ['show', '3f0c2a4e'],
      ]) {
        const r = await runInProcess(home, [...argv, '--embedded'], { env: { CONTENTLIB_RETRY_BASE_MS: '0' } });
        expect(r.exitCode, argv.join(' ')).toBe(EXIT.notFound);
        expect(r.stderr).toMatch(/is not in the embedded library|in the embedded library/);
        expect(r.stderr).not.toMatch(/brand|key/i);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
