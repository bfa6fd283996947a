// The progress bars on a real terminal: the built CLI runs inside a detached tmux session (its
// own server socket), and the pane is captured while the upload runs and after it ends.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sparseVideo } from '../support/library.js';
import { HAS_TMUX, skipWithout } from '../support/needs.js';
import { BIN } from '../support/paths.js';

const SOCKET = `contentlib-test-${process.pid}`;

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

let home: string | undefined;
afterEach(async () => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  if (home) await rm(home, { recursive: true, force: true });
});

describe.skipIf(skipWithout('tmux', HAS_TMUX, 'apt-get install tmux'))('upload on a terminal (tmux)', () => {
  it('draws a bar with the file, percent, bytes and ETA (no total bar for one file), then clears it for the summary', async () => {
    home = await mkdtemp(join(tmpdir(), 'contentlib-tty-'));
    const big = await sparseVideo(join(home, 'big.mp4'), 300 * 1024 * 1024);
    // CONTENTLIB_EMBEDDED=1: tmux passes on the test's environment, where CI may be set.
    const command = `CONTENTLIB_HOME='${home}' CONTENTLIB_EMBEDDED=1 node '${BIN}' upload --type longform '${big}'; echo "EXIT=$?"; sleep 60`;
    tmux('new-session', '-d', '-s', 'up', '-x', '120', '-y', '30', command);
    let during = '';
    let final = '';
    const seen: string[] = [];
    for (let i = 0; i < 600; i++) {
      const screen = tmux('capture-pane', '-p', '-t', 'up');
      seen.push(screen);
      if (!during && /big\.mp4 .*\d+% .*MB\/300 MB/.test(screen)) during = screen;
      if (/EXIT=\d+/.test(screen)) {
        final = screen;
        break;
      }
      await sleep(20);
    }
    expect(final, 'the upload never finished').toMatch(/EXIT=0/);
    expect(during, `no bar was seen; last screen:\n${final}`).toMatch(
      /big\.mp4 +[█░]+ +\d+% [\d.]+ MB\/300 MB .*ETA (--|\d+s|\d+m\d\ds)/,
    );
    // One file: its own bar, no total bar repeating it; an ETA is "--" until known, never "NFs".
    expect(seen.join('\n')).not.toMatch(/^total /m);
    expect(seen.join('\n')).not.toMatch(/NF/);
    expect(final).toContain('1 item created');
    expect(final).toMatch(/✓ big\.mp4 → longform /);
    // Cleared on completion: no bar is left on the screen.
    expect(final).not.toMatch(/[█░]{5,}/);
    // Lines logged above the bars are clean (no tail of an overwritten bar).
    expect(final).not.toMatch(/→ .*ETA/);
  });
});
