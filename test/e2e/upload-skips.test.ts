// What an upload does not send, on a real terminal: the built CLI (bin/contentlib.js → dist/)
// in a detached tmux session shows a Skipped block. Everything else about skipped files is
// tested in-process in test/cli/upload-skips.test.ts. Run `npm run build` first (npm test does).
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HAS_TMUX, skipWithout } from '../support/needs.js';
import { BIN, FIXTURES } from '../support/paths.js';

let home: string;
let work: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'contentlib-skips-home-'));
  work = await mkdtemp(join(tmpdir(), 'contentlib-skips-work-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

async function layout(files: Record<string, string | Buffer>): Promise<void> {
  for (const [to, from] of Object.entries(files)) {
    await mkdir(dirname(join(work, to)), { recursive: true });
    if (typeof from === 'string') await cp(join(FIXTURES, from), join(work, to));
    else await writeFile(join(work, to), from);
  }
}

/** A shoot folder as a phone and a desktop leave it. */
const SHOOT = {
  'shoot/a.mp4': 'video/clip-5s.mp4',
  'shoot/pics/1.jpg': 'image/photo.jpg',
  'shoot/pics/2.png': 'image/photo.png',
  'shoot/pics/3.heic': 'other/unsupported/photo.heic',
  'shoot/loop.gif': 'other/unsupported/animation.gif',
  'shoot/notes.txt': 'other/notes.txt',
  'shoot/.DS_Store': Buffer.alloc(0),
  'shoot/pics/Thumbs.db': Buffer.alloc(0),
};

describe('upload: nothing is skipped silently', () => {
  it.skipIf(skipWithout('tmux', HAS_TMUX, 'apt-get install tmux'))('shows a Skipped block on a terminal', async () => {
    await layout(SHOOT);
    const socket = `contentlib-skips-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const command = `cd '${work}' && CONTENTLIB_HOME='${home}' NO_COLOR=1 node '${BIN}' upload --dry-run shoot; echo "EXIT=$?"; sleep 60`;
    try {
      tmux('new-session', '-d', '-s', 'skips', '-x', '160', '-y', '30', command);
      let screen = '';
      for (let i = 0; i < 500 && !/EXIT=\d+/.test(screen); i++) {
        await sleep(20);
        screen = tmux('capture-pane', '-p', '-t', 'skips');
      }
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain('Skipped 5 files (not uploaded):');
      expect(screen).toContain('  shoot/pics/3.heic: a HEIC image, not supported; convert it to JPEG');
      expect(screen).toContain('  2 system files (.DS_Store, Thumbs.db)');
    } finally {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    }
  });
});
