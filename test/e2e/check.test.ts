// `check --for` and `upload --for` through the built binary (bin/contentlib.js → dist/), on the
// embedded library of a temp home: the shipped program judges a 16:9 clip unfit for Reels and a
// 9:16 one fit, and refuses an upload for Reels before anything is sent. The behaviour in detail
// is tested in-process (test/cli/check.test.ts). Run `npm run build` first.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

const WIDE = join(FIXTURES, 'media', 'landscape-1920x1080.mp4');
const TALL = join(FIXTURES, 'media', 'portrait-1080x1920.mp4');

describe('check and upload --for through the binary', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  beforeAll(async () => {
    home = await tempHome();
  });
  afterAll(async () => home?.remove());

  it('check --for reels flags the 16:9 clip (exit 1) and passes the 9:16 one (exit 0)', async () => {
    const wide = await cli(home.dir, ['check', WIDE, '--for', 'reels']);
    expect(wide.exitCode).toBe(1);
    expect(wide.stdout).toContain('16:9, Reels wants 9:16: crop the sides or add bars above and below');
    const tall = await cli(home.dir, ['check', TALL, '--for', 'reels']);
    expect(tall.exitCode, tall.stderr).toBe(0);
    expect(tall.stdout).toContain('✓ Instagram Reels');
  });

  it('upload --for reels refuses the 16:9 clip before sending (exit 2): the library stays empty', async () => {
    const up = await cli(home.dir, ['upload', WIDE, '--for', 'reels']);
    expect(up.exitCode).toBe(2);
    expect(up.stderr).toContain('reels: 16:9, Reels wants 9:16');
    const ls = await cli(home.dir, ['ls', '--json']);
    expect(ls.exitCode).toBe(0);
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });
});
