// contentlib upload (and edit --thumbnail) on the embedded library in a temp CONTENTLIB_HOME,
// each command line run in-process as the binary would run it (test/support/cli-in-process.ts):
// what a person or a CI job sees. The built binary's own runs are test/e2e/upload.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAll } from '../support/cli.js';
import { cli as runCli } from '../support/cli-in-process.js';
import { ROOT } from '../support/paths.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-upload-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(home, args, { cwd: ROOT, env: { NO_COLOR: '1', ...extraEnv } });
}

const ls = () => listAll(cli);

describe('contentlib upload (embedded library)', () => {
  it('a re-run with one new file logs no line per file already uploaded, unless --verbose; NDJSON lists each', async () => {
    const first = await cli(['upload', 'fixtures/demo/carousel']);
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await cli(['upload', 'fixtures/demo']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/^skipped {2}/m);
    expect(again.stderr).toContain('3 already uploaded, skipped; --force uploads again.');
    await rm(join(home, 'state'), { recursive: true, force: true }); // forget the journal: upload all again
    await cli(['upload', 'fixtures/demo/carousel']);
    const verbose = await cli(['--verbose', 'upload', 'fixtures/demo']);
    expect(verbose.exitCode, verbose.stderr).toBe(0);
    expect(verbose.stderr.match(/^skipped {2}\S+: already uploaded \(/gm)).toHaveLength(3);
    // The videos were forgotten with the journal: the library still has their bytes, so neither is sent again.
    expect(verbose.stderr.match(/^skipped {2}\S+: already in the library as shortform \(/gm)).toHaveLength(2);
    await rm(join(home, 'state'), { recursive: true, force: true });
    await cli(['upload', 'fixtures/demo/carousel']);
    const json = await cli(['upload', 'fixtures/demo', '--json']);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; reason?: string; file?: unknown });
    expect(events.filter((e) => e.type === 'skipped' && e.file && e.reason === 'already uploaded')).toHaveLength(3);
  });

  it('reports every rejected file at once with exit 2 and creates nothing', async () => {
    const r = await cli([
      'upload',
      '--type',
      'shortform',
      'fixtures/video/clip-95s.mp4',
      'fixtures/video/clip-2s.mp4',
      'fixtures/video/empty.mp4',
      'fixtures/video/truncated.mp4',
      'fixtures/other/notes.txt',
      'fixtures/video/clip-5s.mp4',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/problems found; nothing was uploaded/);
    for (const name of ['clip-95s.mp4', 'clip-2s.mp4', 'empty.mp4', 'truncated.mp4', 'notes.txt'])
      expect(r.stderr).toContain(name);
    expect(r.stderr).toMatch(/clip-95s\.mp4: .*longer than shortform's 90 s/);
    expect(r.stderr).not.toMatch(/clip-5s\.mp4:/);
    expect(await ls()).toHaveLength(0);
  });

  it('--dry-run prints the plan and sends nothing; --json gives it as one object', async () => {
    const table = await cli(['upload', 'fixtures/demo', '--dry-run']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^carousel\t3\t/m);
    const json = await cli(['--json', 'upload', 'fixtures/demo', '--dry-run']);
    const plan = JSON.parse(json.stdout) as { items: Array<{ type: string; files: Array<{ name: string }> }> };
    expect(plan.items.map((i) => i.type).sort()).toEqual(['carousel', 'shortform', 'shortform']);
    expect(plan.items.find((i) => i.type === 'carousel')!.files.map((f) => f.name)).toEqual([
      '1.jpg',
      '2.png',
      '10.webp',
    ]);
    expect(await ls()).toHaveLength(0);
  });

  it('--json writes NDJSON events and a summary on stdout', async () => {
    const r = await cli([
      '--json',
      'upload',
      'fixtures/video/clip-5s.mp4',
      '--title',
      'Five',
      '--hashtags',
      'a, #b',
      '--platform',
      'youtube.visibility=private',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; itemId?: string });
    expect(events.map((e) => e.type)).toEqual(['planned', 'started', 'uploaded', 'completed', 'summary']);
    const shown = JSON.parse((await cli(['--json', 'show', events[3]!.itemId!])).stdout) as {
      title: string;
      hashtags: string[];
      platformSettings: unknown;
    };
    expect(shown).toMatchObject({
      title: 'Five',
      hashtags: ['a', 'b'],
      platformSettings: { youtube: { visibility: 'private' } },
    });
  });

  it('edit --thumbnail uploads the image and attaches it; a bad image is refused before anything is sent', async () => {
    const up = await cli(['upload', 'fixtures/video/clip-5s.mp4']);
    const id = up.stdout.split('\t')[0]!;
    const bad = await cli(['edit', id, '--thumbnail', 'fixtures/other/notes.txt']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/notes\.txt: not a supported format/);
    const r = await cli(['--json', 'edit', id, '--thumbnail', 'fixtures/image/photo.png', '--title', 'Covered']);
    expect(r.exitCode, r.stderr).toBe(0);
    const shown = JSON.parse((await cli(['--json', 'show', id])).stdout) as {
      title: string;
      thumbnailUrl: string | null;
    };
    expect(shown.title).toBe('Covered');
    expect(shown.thumbnailUrl).toMatch(/photo\.png\?expires=/);
  });
});
