// Each command once through the built binary (bin/contentlib.js → dist/), as a person runs it
// against `contentlib serve`: the commands' behaviour is tested in-process (test/cli/), these
// runs make sure the shipped program wires every one of them up. Run `npm run build` first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, readConfig } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { type RemoteLibrary, startServedLibrary } from '../support/remote-library.js';

describe('every command through the binary', () => {
  let lib: RemoteLibrary;
  beforeAll(async () => (lib = await startServedLibrary()));
  afterAll(async () => lib?.dispose());

  it('login, auth status, upload, ls, show, edit, rm, config, logout', async () => {
    const login = await cli(lib.home, ['login', '--with-token', '--base-url', lib.url], { input: `${lib.key}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect((await readConfig(lib.home)).profiles.default).toEqual({ baseUrl: lib.url, apiKey: lib.key });

    const status = await cli(lib.home, ['auth', 'status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ target: { kind: 'remote', baseUrl: lib.url } });

    const up = await cli(lib.home, ['upload', '--json', `${FIXTURES}/video/clip-5s.mp4`, '--title', 'Five']);
    expect(up.exitCode, up.stderr).toBe(0);
    const summary = JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { type: string; items: Array<{ id: string }> };
    expect(summary.type).toBe('summary');
    const id = summary.items[0]!.id;

    const ls = await cli(lib.home, ['ls', '--json', 'id,title']);
    expect(JSON.parse(ls.stdout)).toEqual([{ id, title: 'Five' }]);
    const edit = await cli(lib.home, ['edit', id, '--title', 'Six', '--json', 'title']);
    expect(JSON.parse(edit.stdout)).toEqual({ title: 'Six' });
    const show = await cli(lib.home, ['show', id]);
    expect(show.stdout).toContain('Six');
    const rm = await cli(lib.home, ['rm', '--yes', id]);
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect((await cli(lib.home, ['show', id])).exitCode).toBe(5);

    const config = await cli(lib.home, ['config', 'get', 'base-url']);
    expect(config.stdout).toBe(lib.url);
    const logout = await cli(lib.home, ['logout']);
    expect(logout.exitCode, logout.stderr).toBe(0);
  });

  it('ls QUERY, edit --where, log --batch, undo and rm --where', async () => {
    const env = lib.env;
    const up = await cli(lib.home, ['upload', '--json', `${FIXTURES}/video/clip-5s.mp4`, '--title', 'Bulk one'], {
      env,
    });
    expect(up.exitCode, up.stderr).toBe(0);
    const id = (JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> }).items[0]!.id;
    const ls = await cli(lib.home, ['ls', 'title:"bulk one" status:draft', '--json', 'id'], { env });
    expect(ls.exitCode, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([{ id }]);
    expect((await cli(lib.home, ['ls', 'colour:red'], { env })).exitCode).toBe(2);

    const dry = await cli(lib.home, ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled', '--dry-run'], {
      env,
    });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Would change\t${id}\tBulk one\tstatus "draft" → "scheduled"`);
    const refused = await cli(lib.home, ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled'], { env });
    expect(refused.exitCode).toBe(2);
    const edit = await cli(
      lib.home,
      ['edit', '--where', 'title:"bulk one"', '--status', 'scheduled', '--add-hashtag', 'launch', '--yes', '--json'],
      { env },
    );
    expect(edit.exitCode, edit.stderr).toBe(0);
    const { batchId } = JSON.parse(edit.stdout) as { batchId: string };
    const log = await cli(lib.home, ['log', '--batch', batchId, '--json', 'itemId,batchId'], { env });
    expect(JSON.parse(log.stdout)).toEqual([{ itemId: id, batchId }]);
    const undo = await cli(lib.home, ['undo', batchId, '--yes'], { env });
    expect(undo.exitCode, undo.stderr).toBe(0);
    const show = await cli(lib.home, ['show', id, '--json', 'status,hashtags'], { env });
    expect(JSON.parse(show.stdout)).toEqual({ status: 'draft', hashtags: [] });

    const rm = await cli(lib.home, ['rm', '--where', 'title:"bulk one"', '--yes'], { env });
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(rm.stderr).toContain('Deletions are final');
    expect((await cli(lib.home, ['show', id], { env })).exitCode).toBe(5);
  });

  it('help and completion', async () => {
    const help = await cli(lib.home, ['help', 'upload']);
    expect(help.stdout).toMatch(/^Usage: contentlib upload/);
    const completion = await cli(lib.home, ['completion', 'bash']);
    expect(completion.exitCode).toBe(0);
    expect(completion.stdout).toContain('contentlib');
  });
});
