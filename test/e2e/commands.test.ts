// Each command once through the built binary (bin/contentlib.js → dist/), as a person runs it
// against `contentlib serve`: the commands' behaviour is tested in-process (test/cli/), these
// runs make sure the shipped program wires every one of them up. Run `npm run build` first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createKey, readConfig, startRemote, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import type { ServeProcess } from '../support/serve-process.js';

describe('every command through the binary', () => {
  let server: Awaited<ReturnType<typeof tempHome>>;
  let home: Awaited<ReturnType<typeof tempHome>>;
  let remote: ServeProcess;
  let key: string;
  beforeAll(async () => {
    server = await tempHome();
    home = await tempHome();
    remote = await startRemote(server.dir);
    key = await createKey(server.dir, 'acme');
  });
  afterAll(async () => {
    await remote?.stop();
    await home?.remove();
    await server?.remove();
  });

  it('login, auth status, upload, ls, show, edit, rm, config, logout', async () => {
    const login = await cli(home.dir, ['login', '--with-token', '--base-url', remote.url], { input: `${key}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect((await readConfig(home.dir)).profiles.default).toEqual({ baseUrl: remote.url, apiKey: key });

    const status = await cli(home.dir, ['auth', 'status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ target: { kind: 'remote', baseUrl: remote.url } });

    const up = await cli(home.dir, ['upload', '--json', `${FIXTURES}/video/clip-5s.mp4`, '--title', 'Five']);
    expect(up.exitCode, up.stderr).toBe(0);
    const summary = JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { type: string; items: Array<{ id: string }> };
    expect(summary.type).toBe('summary');
    const id = summary.items[0]!.id;

    const ls = await cli(home.dir, ['ls', '--json', 'id,title']);
    expect(JSON.parse(ls.stdout)).toEqual([{ id, title: 'Five' }]);
    const edit = await cli(home.dir, ['edit', id, '--title', 'Six', '--json', 'title']);
    expect(JSON.parse(edit.stdout)).toEqual({ title: 'Six' });
    const show = await cli(home.dir, ['show', id]);
    expect(show.stdout).toContain('Six');
    const rm = await cli(home.dir, ['rm', '--yes', id]);
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect((await cli(home.dir, ['show', id])).exitCode).toBe(5);

    const config = await cli(home.dir, ['config', 'get', 'base-url']);
    expect(config.stdout).toBe(remote.url);
    const logout = await cli(home.dir, ['logout']);
    expect(logout.exitCode, logout.stderr).toBe(0);
  });

  it('ls QUERY, edit --where, log --batch, undo and rm --where', async () => {
    const env = { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key };
    const up = await cli(home.dir, ['upload', '--json', `${FIXTURES}/video/clip-5s.mp4`, '--title', 'Bulk one'], {
      env,
    });
    expect(up.exitCode, up.stderr).toBe(0);
    const id = (JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> }).items[0]!.id;
    const ls = await cli(home.dir, ['ls', 'title:"bulk one" status:draft', '--json', 'id'], { env });
    expect(ls.exitCode, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([{ id }]);
    expect((await cli(home.dir, ['ls', 'colour:red'], { env })).exitCode).toBe(2);

    const dry = await cli(home.dir, ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled', '--dry-run'], {
      env,
    });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Would change\t${id}\tBulk one\tstatus "draft" → "scheduled"`);
    const refused = await cli(home.dir, ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled'], { env });
    expect(refused.exitCode).toBe(2);
    const edit = await cli(
      home.dir,
      ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled', '--add-hashtag', 'launch', '--yes', '--json'],
      { env },
    );
    expect(edit.exitCode, edit.stderr).toBe(0);
    const { batchId } = JSON.parse(edit.stdout) as { batchId: string };
    const log = await cli(home.dir, ['log', '--batch', batchId, '--json', 'itemId,batchId'], { env });
    expect(JSON.parse(log.stdout)).toEqual([{ itemId: id, batchId }]);
    const undo = await cli(home.dir, ['undo', batchId, '--yes'], { env });
    expect(undo.exitCode, undo.stderr).toBe(0);
    const show = await cli(home.dir, ['show', id, '--json', 'status,hashtags'], { env });
    expect(JSON.parse(show.stdout)).toEqual({ status: 'draft', hashtags: [] });

    const rm = await cli(home.dir, ['rm', '--where', 'title:"bulk one"', '--yes'], { env });
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(rm.stderr).toContain('Deletions are final');
    expect((await cli(home.dir, ['show', id], { env })).exitCode).toBe(5);
  });

  it('help and completion', async () => {
    const help = await cli(home.dir, ['help', 'upload']);
    expect(help.stdout).toMatch(/^Usage: contentlib upload/);
    const completion = await cli(home.dir, ['completion', 'bash']);
    expect(completion.exitCode).toBe(0);
    expect(completion.stdout).toContain('contentlib');
  });
});
