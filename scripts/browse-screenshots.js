// Makes the README's screenshots of `contentlib browse` (docs/browse-{grid,item}-{light,dark}.png):
// the built CLI uploads the demo fixtures into a throwaway embedded library, runs browse, and
// Debian's Chromium (playwright-core; nothing downloaded) takes each page in light and dark.
// Run after `npm run build`:  node scripts/browse-screenshots.js
import { spawn, execFileSync } from 'node:child_process';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = new URL('..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/contentlib.js');
// A fixed folder, so the library's name in the pictures stays the same from run to run.
const home = join(tmpdir(), 'contentlib-demo');
await rm(home, { recursive: true, force: true });
await mkdir(home);
const env = { ...process.env, CONTENTLIB_HOME: home, CONTENTLIB_EMBEDDED: '1', NO_COLOR: '1', BROWSER: 'none' };
const cl = (...args) =>
  execFileSync('node', [BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

cl('upload', join(ROOT, 'fixtures/demo'));
cl(
  'upload',
  join(ROOT, 'fixtures/video/clip-95s.mp4'),
  '--title',
  'Spring keynote (full talk)',
  '--status',
  'published',
);
cl('upload', join(ROOT, 'fixtures/video/clip-5s.mp4'), '--title', 'Launch teaser', '--status', 'scheduled');
cl(
  'upload',
  join(ROOT, 'fixtures/image/photo.jpg'),
  join(ROOT, 'fixtures/image/photo.webp'),
  '--carousel',
  '--title',
  'Product shots',
);
const items = JSON.parse(cl('ls', '--json', 'id,title,type'));
const byTitle = (t) => items.find((i) => i.title === t);
cl('edit', byTitle('Spring keynote (full talk)').id, '--thumbnail', join(ROOT, 'fixtures/image/photo.png'));
cl('edit', byTitle('Demo carousel').id, '--status', 'published', '--hashtags', 'demo, summer');

const browse = spawn('node', [BIN, 'browse', '--no-open'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const url = await new Promise((resolve) => {
  let out = '';
  browse.stdout.on('data', (c) => {
    out += c;
    if (out.includes('\n')) resolve(out.split('\n')[0]);
  });
});
const browser = await chromium.launch({
  executablePath: process.env.CONTENTLIB_CHROMIUM ?? '/usr/bin/chromium',
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
});
try {
  for (const colorScheme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 680 }, colorScheme });
    // browse's library makes the videos' posters in the background once it starts (issue 39):
    // the grid is taken once every video card shows its poster (a few seconds at most).
    for (let tries = 0; tries < 60; tries++) {
      await page.goto(url);
      await page.waitForLoadState('networkidle');
      if ((await page.locator('.card .thumb video').count()) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await page.screenshot({ path: join(ROOT, `docs/browse-grid-${colorScheme}.png`) });
    await page.goto(new URL(`/items/${byTitle('Demo carousel').id}`, url).href);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(ROOT, `docs/browse-item-${colorScheme}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  browse.kill('SIGINT');
  await new Promise((resolve) => browse.once('exit', resolve));
  await rm(home, { recursive: true, force: true });
}
// Fewer colours, a quarter of the bytes, no visible change (when ffmpeg is at hand).
for (const name of ['grid-light', 'grid-dark', 'item-light', 'item-dark']) {
  const file = join(ROOT, `docs/browse-${name}.png`);
  try {
    const filter = 'split[a][b];[a]palettegen=max_colors=128[p];[b][p]paletteuse=dither=none';
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', file, '-vf', filter, `${file}.tmp.png`]);
    await rename(`${file}.tmp.png`, file);
  } catch {
    break;
  }
}
console.log('wrote docs/browse-{grid,item}-{light,dark}.png');
