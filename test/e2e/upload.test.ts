// The built CLI (bin/contentlib.js → dist/) end to end, with its embedded library in a temp
// CONTENTLIB_HOME: a whole upload as a person or a CI job runs it, and what only a process
// shows (its peak memory, SIGINT). The rest of the command's behaviour is tested in-process in
// test/cli/upload.test.ts. Run `npm run build` first (npm test does).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAll } from '../support/cli.js';
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

const ls = () => listAll(cli);

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
});
