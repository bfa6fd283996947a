// browse's platform badges in real Chromium (test/support/chromium.ts): the grid and an item page
// with badges of every state pass axe-core (light and dark), and the badges say their verdict in
// words as well as by mark and colour. The markup itself: test/browse/badges.test.ts.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowseFixture, browseFixture } from '../support/browse.js';
import { launchChromium, seriousA11yViolations } from '../support/chromium.js';
import { upload } from '../support/cli.js';

let f: BrowseFixture;
let browser: Browser;
const ids = { wide: '', carousel: '' };
const targets = (list: string[]) => ({ platformSettings: { contentlib: { targets: list } } });

beforeAll(async () => {
  [f, browser] = await Promise.all([browseFixture(), launchChromium()]);
  const c = f.client;
  // 16:9 at 1920×1080: not ready for Reels, a warning for TikTok, ready for X.
  ids.wide = (
    await c.patch((await upload(c, 'media/landscape-1920x1080.mp4')).id, targets(['reels', 'tiktok', 'x']))
  ).item.id;
  const first = await upload(c, 'media/photo.jpg');
  await upload(c, 'media/photo.png', { contentItemId: first.id });
  ids.carousel = (await c.patch(first.id, targets(['x', 'instagram-feed']))).item.id;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await f?.dispose();
});

describe('platform badges in Chromium', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`no serious axe violations on the grid and item pages with badges (${scheme})`, async () => {
      const context = await browser.newContext({ colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(f.browse.launchUrl('/'));
      for (const path of ['/', `/items/${ids.wide}`, `/items/${ids.carousel}`]) {
        await page.goto(`${f.browse.origin}${path}`);
        expect(await seriousA11yViolations(page), path).toEqual([]);
      }
      await context.close();
    });
  }

  it('each badge reads as its platform and verdict', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(f.browse.launchUrl(`/items/${ids.wide}`));
    const texts = await page.locator('.badges .platform').allTextContents();
    expect(texts.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      '✗ Reels: not ready',
      '! TikTok: ready, with a warning',
      '✓ X: ready',
    ]);
    await context.close();
  });
});
