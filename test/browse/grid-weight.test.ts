// The grid's weight in real Chromium (issue 39): 50 items, videos and carousels of large photos,
// transfer at most 3 MB in all once every card shows its picture, because the cards load the
// server's posters and previews (≤ 60 KB each), never the originals; every video card shows a
// real frame (its poster decoded here: not the black first frame of a clip that fades in).
// Without ffmpeg a video card falls back to a frame of the video itself.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREVIEW_MAX_BYTES } from '../../src/server/previews/image.js';
import { findFfmpeg } from '../../src/server/previews/video.js';
import { type BrowseFixture, browseFixture } from '../support/browse.js';
import { launchChromium, seriousA11yViolations } from '../support/chromium.js';
import { skipWithout } from '../support/needs.js';
import { FIXTURES } from '../support/paths.js';
import { type FileSpec, uploadItem } from '../support/server.js';

const FFMPEG = await findFfmpeg();
const noFfmpeg = skipWithout('ffmpeg', FFMPEG !== null, 'apt-get install ffmpeg');
const clip: FileSpec = {
  fileName: 'fade-in.mp4',
  contentType: 'video/mp4',
  bytes: await readFile(join(FIXTURES, 'video/fade-in.mp4')),
};

/** A photo of noise, the worst case for JPEG: about 1 MB at this size. */
async function photo(name: string, seed: number): Promise<FileSpec> {
  const bytes = await sharp({
    create: {
      width: 1200,
      height: 900,
      channels: 3,
      background: { r: seed * 20, g: 90, b: 160 },
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { fileName: name, contentType: 'image/jpeg', bytes };
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

/** Opens the grid with every card in view; resolves once every picture is there, with the bytes the page transferred. */
async function openGrid(f: BrowseFixture): Promise<{ page: Page; bytes: number; close: () => Promise<void> }> {
  // Tall enough that no card waits for a scroll (they load lazily): the whole page is measured.
  const context = await browser.newContext({ viewport: { width: 1280, height: 12000 } });
  const page = await context.newPage();
  const finished: Promise<number>[] = [];
  page.on('requestfinished', (r) => finished.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
  await page.goto(f.browse.launchUrl('/'));
  await page.locator('.card').first().waitFor();
  await expect
    .poll(
      () =>
        page.evaluate(() =>
          [...document.querySelectorAll<HTMLElement>('.card .thumb > *')].every((e) =>
            e instanceof HTMLImageElement
              ? e.complete && e.naturalWidth > 0
              : e instanceof HTMLVideoElement && e.readyState >= 2,
          ),
        ),
      { timeout: 60_000 },
    )
    .toBe(true);
  await page.waitForLoadState('networkidle');
  const bytes = (await Promise.all(finished)).reduce((a, b) => a + b, 0);
  return { page, bytes, close: () => context.close() };
}

describe.skipIf(noFfmpeg)('a grid of 50 items with posters and previews', () => {
  let f: BrowseFixture;
  beforeAll(async () => {
    f = await browseFixture({ previews: { ffmpeg: FFMPEG } });
    for (let i = 0; i < 40; i++)
      await uploadItem(f.s, f.key, { ...clip, fileName: `clip-${i}.mp4` }, { type: 'shortform' });
    for (let i = 0; i < 10; i++) await uploadItem(f.s, f.key, await photo(`photo-${i}.jpg`, i), { type: 'carousel' });
    await f.s.previewsDone();
  }, 120_000);
  afterAll(async () => f?.dispose());

  it('transfers at most 3 MB, and every video card shows a real frame', async () => {
    const { page, bytes, close } = await openGrid(f);
    try {
      expect(await page.locator('.card').count()).toBe(50);
      // The originals alone weigh more than 10 MB: the cards never asked for one.
      expect(bytes).toBeLessThanOrEqual(3 * 1024 * 1024);
      // And the measure counts what came: the ten photos' previews are tens of KB each.
      expect(bytes).toBeGreaterThan(10 * 20 * 1024);
      const cards = await page.locator('.card').evaluateAll((cards) =>
        cards.map((c) => ({
          video: c.querySelector('.badge')?.textContent === 'shortform',
          src: c.querySelector('img')?.getAttribute('src') ?? null,
        })),
      );
      for (const c of cards) {
        expect(c.src, 'a card without a picture').not.toBeNull();
        expect(new URL(c.src!).pathname).toMatch(/\.preview\.jpg$/);
      }
      for (const c of cards.filter((c) => c.video)) {
        const poster = Buffer.from(await (await fetch(c.src!)).arrayBuffer());
        expect(poster.length).toBeLessThanOrEqual(PREVIEW_MAX_BYTES);
        // The clip's first frame is black; its picture has a mean luminance of about 120.
        expect((await sharp(poster).greyscale().stats()).channels[0]!.mean).toBeGreaterThan(80);
      }
      expect(await seriousA11yViolations(page)).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the item page shows the video's poster until play, and a carousel's previews linking to the images", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(f.browse.launchUrl('/'));
      const { items } = await f.client.list({ type: 'shortform', limit: 1 });
      await page.goto(`${f.browse.origin}/items/${items[0]!.id}`);
      const poster = await page.locator('video.player').getAttribute('poster');
      expect(new URL(poster!).pathname).toMatch(/\.preview\.jpg$/);
      const carousel = (await f.client.list({ type: 'carousel', limit: 1 })).items[0]!;
      await page.goto(`${f.browse.origin}/items/${carousel.id}`);
      const slide = page.locator('.slide a img');
      await expect.poll(() => slide.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      expect(new URL((await slide.getAttribute('src'))!).pathname).toMatch(/\.preview\.jpg$/);
      expect(new URL((await page.locator('.slide a').getAttribute('href'))!).pathname).toMatch(/photo-\d\.jpg$/);
    } finally {
      await context.close();
    }
  });
});

describe('a grid without ffmpeg', () => {
  let f: BrowseFixture;
  beforeAll(async () => {
    f = await browseFixture({ previews: { ffmpeg: null } });
    for (let i = 0; i < 3; i++)
      await uploadItem(f.s, f.key, { ...clip, fileName: `clip-${i}.mp4` }, { type: 'shortform' });
    await f.s.previewsDone();
  }, 60_000);
  afterAll(async () => f?.dispose());

  it('shows a frame of each video itself, from 1 s in', async () => {
    const { page, close } = await openGrid(f);
    try {
      const videos = page.locator('.card .thumb video');
      expect(await videos.count()).toBe(3);
      for (const v of await videos.all()) {
        expect(await v.getAttribute('preload')).toBe('metadata');
        expect(await v.evaluate((e) => (e as HTMLVideoElement).currentTime)).toBeCloseTo(1, 1);
      }
      expect(await seriousA11yViolations(page)).toEqual([]);
    } finally {
      await close();
    }
  });
});
