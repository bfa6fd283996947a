// What an upload does not send, on a real terminal: the built CLI (bin/contentlib.js → dist/)
// in a detached tmux session shows a Skipped block. Everything else about skipped files is
// tested in-process in test/cli/upload-skips.test.ts. Run `npm run build` first (npm test does).
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { HAS_TMUX, skipWithout } from '../support/needs.js';
import { BIN } from '../support/paths.js';
import { SHOOT, layout, tempDirEach } from '../support/tree.js';

const home = tempDirEach('contentlib-skips-home-');
const work = tempDirEach('contentlib-skips-work-');

describe('upload: nothing is skipped silently', () => {
  it.skipIf(skipWithout('tmux', HAS_TMUX, 'apt-get install tmux'))('shows a Skipped block on a terminal', async () => {
    await layout(work(), SHOOT);
    const socket = `contentlib-skips-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const command = `cd '${work()}' && CONTENTLIB_HOME='${home()}' NO_COLOR=1 node '${BIN}' upload --dry-run shoot; echo "EXIT=$?"; sleep 60`;
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
