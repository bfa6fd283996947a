// The built CLI (bin/contentlib.js → dist/) end to end, with its embedded library in a temp
// CONTENTLIB_HOME: what a person or a CI job sees. Run `npm run build` first
// (npm test does).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sparseVideo } from '../support/library.js';
import { BIN, ROOT } from '../support/paths.js';

// eslint-disable-next-line no-control-regex
const ESC = /\u001b/;

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-e2e-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return execa('node', [BIN, ...args], {
    cwd: ROOT,
    reject: false,
    // CONTENTLIB_EMBEDDED=1: no terminal here, so a write needs the embedded library chosen on purpose.
    env: { CONTENTLIB_HOME: home, NO_COLOR: '1', CONTENTLIB_EMBEDDED: '1', ...extraEnv },
    extendEnv: true,
  });
}

interface Listed {
  id: string;
  type: string;
  title: string;
  durationSeconds: number | null;
  fileSize: number | null;
  fileName: string | null;
}

async function ls(): Promise<Listed[]> {
  const r = await cli(['--json', 'ls', '--all']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

describe('contentlib upload (built CLI, embedded library)', () => {
  it('uploads the demo folder; ls and show agree; a re-run creates nothing; piped output has no escape codes', async () => {
    const r = await cli(['upload', 'fixtures/demo']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(ESC);
    expect(r.stderr).toContain('3 items created');
    expect(r.stdout.trim().split('\n')).toHaveLength(3);

    const items = await ls();
    expect(items.map((i) => [i.type, i.title]).sort()).toEqual([
      ['carousel', 'Demo carousel'],
      ['shortform', 'Intro to the demo library'],
      ['shortform', 'teaser'],
    ]);
    const intro = items.find((i) => i.title.startsWith('Intro'))!;
    const teaser = items.find((i) => i.title === 'teaser')!;
    expect(intro.durationSeconds).toBeCloseTo(6, 0);
    expect(teaser.durationSeconds).toBeCloseTo(4, 0);
    const carousel = items.find((i) => i.type === 'carousel')!;
    const shown = await cli(['--json', 'show', carousel.id]);
    const files = (JSON.parse(shown.stdout) as { files: Array<{ fileName: string; sortOrder: number }> }).files;
    expect(files.map((f) => [f.sortOrder, f.fileName])).toEqual([
      [0, '1.jpg'],
      [1, '2.png'],
      [2, '10.webp'],
    ]);

    const again = await cli(['upload', 'fixtures/demo']);
    expect(again.exitCode, again.stderr).toBe(0);
    // Said once: no header, no line per file, one summary line (the items are on stdout).
    // (After the line naming the library.)
    expect(again.stderr.replace(/^→ .*\n/, '').trim()).toBe(
      'Nothing new to upload: 3 items (5 files) already uploaded; --force uploads them again.',
    );
    expect(again.stdout.match(/\tskipped\t/g)).toHaveLength(3);
    expect(await ls()).toHaveLength(3);
  });

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

  it('streams a 200 MB file without holding it: peak RSS stays far below the file size', async () => {
    const big = await sparseVideo(join(home, 'in', 'big.mp4'), 200 * 1024 * 1024);
    const small = await cli(['upload', 'fixtures/video/clip-5s.mp4'], { CONTENTLIB_REPORT_RSS: '1' });
    const r = await cli(['upload', '--type', 'longform', big], { CONTENTLIB_REPORT_RSS: '1' });
    expect(r.exitCode, r.stderr).toBe(0);
    const rss = (text: string) => Number(/peak RSS: ([\d.]+) MB/.exec(text)?.[1]);
    // The process (CLI + embedded server + SQLite) needs ~100 MB for a 3 KB upload; sending
    // 200 MB may add buffers and GC slack, never the file.
    expect(rss(r.stderr) - rss(small.stderr)).toBeLessThan(100);
    expect(rss(r.stderr)).toBeLessThan(250);
    const [item] = await ls();
    expect(item).toMatchObject({ type: 'longform', fileSize: 200 * 1024 * 1024 });
  });

  it('SIGINT mid-upload exits 130, says what was created, leaves no item without its bytes; the re-run finishes', async () => {
    const big = await sparseVideo(join(home, 'in', 'big.mp4'), 200 * 1024 * 1024);
    const child: ResultPromise = execa(
      'node',
      [BIN, 'upload', '--type', 'longform', '--concurrency', '1', 'fixtures/video/clip-5s.mp4', big],
      {
        cwd: ROOT,
        reject: false,
        env: { CONTENTLIB_HOME: home, NO_COLOR: '1', CONTENTLIB_EMBEDDED: '1' },
      },
    );
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      // The small file is done and the big one has started: interrupt its PUT.
      if (/done .*clip-5s\.mp4/.test(err) && /start +big\.mp4/.test(err) && !child.killed) child.kill('SIGINT');
    });
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toMatch(/Interrupted\./);
    expect(String(r.stderr)).toMatch(/Created: fixtures\/video\/clip-5s\.mp4 → /);
    const items = await ls();
    // Whatever exists has all its bytes: the small video surely; the big one only if its PUT had
    // finished before the signal (then complete was already under way).
    const expected: Record<string, number> = {
      'clip-5s.mp4': (await stat(join(ROOT, 'fixtures/video/clip-5s.mp4'))).size,
      'big.mp4': 200 * 1024 * 1024,
    };
    for (const i of items) expect(i.fileSize).toBe(expected[i.fileName!]);
    expect(items.some((i) => i.fileName === 'clip-5s.mp4')).toBe(true);

    const again = await cli(['upload', '--type', 'longform', 'fixtures/video/clip-5s.mp4', big]);
    expect(again.exitCode, again.stderr).toBe(0);
    const after = await ls();
    expect(after.map((i) => i.fileName).sort()).toEqual(['big.mp4', 'clip-5s.mp4']);
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
