// The browse pages in real Chromium (test/support/chromium.ts), over a real library: what a
// person sees and does. Every page is visited with the network limited to the page's own origin
// and the library's file origin; any other request, any CSP violation and any error in the
// console fails the test that caused it.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runShow } from '../../src/cli/commands/show.js';
import { type BrowseFixture, browseFixture } from '../support/browse.js';
import { launchChromium, seriousA11yViolations, watchForProblems } from '../support/chromium.js';
import { apiClient, upload } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

let f: BrowseFixture;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Requests to any origin but the page's and the library's files: there must be none. */
let blocked: string[];
/** Console errors and CSP violations: there must be none. */
let problems: string[];
const ids = { xss: '', long: '', carousel: '', draft: '' };
const XSS = '<img src=x onerror="document.title=\'pwned\'">';

beforeAll(async () => {
  [f, browser] = await Promise.all([browseFixture(), launchChromium()]);
  const c = f.client;
  // Oldest first, so the grid (newest first) shows them in the reverse order.
  ids.xss = (await c.patch((await upload(c, 'video/clip-5s.mp4')).id, { title: XSS })).item.id;
  ids.long = (
    await c.patch((await upload(c, 'video/clip-95s.mp4', { type: 'longform' })).id, { title: 'Keynote' })
  ).item.id;
  // Uploaded out of name order: the page must follow sortOrder, not names.
  const first = await upload(c, 'image/photo.png', { fileName: 'zebra.png' });
  await upload(c, 'image/photo.jpg', { fileName: 'apple.jpg', contentItemId: first.id });
  await upload(c, 'image/photo.webp', { fileName: 'mango.webp', contentItemId: first.id });
  ids.carousel = (await c.patch(first.id, { title: 'Summer carousel', status: 'published' })).item.id;
  ids.draft = (await c.patch((await upload(c, 'video/clip-5s.mp4')).id, { title: 'Teaser draft' })).item.id;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await f?.dispose();
});

beforeEach(async () => {
  context = await browser.newContext();
  blocked = [];
  problems = [];
  const allowed = new Set([f.browse.origin, new URL(f.s.url).origin]);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed.has(new URL(url).origin)) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  page = await context.newPage();
  watchForProblems(page, (what) => problems.push(what));
  // Seen by the test's own script (not the page's: the CSP allows no other).
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  // The printed URL: its token becomes the cookie, and the browser lands on the page without it.
  await page.goto(f.browse.launchUrl('/'));
  expect(new URL(page.url()).search).toBe('');
});
afterEach(async () => {
  await context.close();
  expect(blocked).toEqual([]);
  expect(problems).toEqual([]);
});

/** The text of the first element matching `selector`, once there is one. */
async function textOf(selector: string): Promise<string> {
  const first = page.locator(selector).first();
  await first.waitFor();
  return ((await first.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

const cardTitles = () => page.locator('.card-title').allTextContents();

describe('the grid', () => {
  it('lists the seeded items, newest first, styled and scripted from its own origin', async () => {
    expect(await cardTitles()).toEqual(['Teaser draft', 'Summer carousel', 'Keynote', XSS]);
    // The stylesheet applied, and the script runs ("/" jumps to the search).
    expect(await page.locator('.grid').evaluate((e) => getComputedStyle(e).display)).toBe('grid');
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('search');
    // The carousel's card shows its first image, loaded.
    const img = page.locator(`.card[data-id="${ids.carousel}"] img`);
    await expect.poll(() => img.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  });

  it('filters by status and type, and searches titles', async () => {
    await page.selectOption('select[name="status"]', 'published');
    await page.click('button:text("Filter")');
    expect(await cardTitles()).toEqual(['Summer carousel']);
    await page.goto(`${f.browse.origin}/`);
    await page.selectOption('select[name="type"]', 'longform');
    await page.click('button:text("Filter")');
    expect(await cardTitles()).toEqual(['Keynote']);
    await page.goto(`${f.browse.origin}/`);
    await page.fill('input[name="search"]', 'TEASER');
    await page.keyboard.press('Enter');
    await page.waitForURL(/search=TEASER/);
    expect(await cardTitles()).toEqual(['Teaser draft']);
    await page.click('text=Clear filters');
    expect(await cardTitles()).toHaveLength(4);
  });

  it('the search form: words marked in titles, hashtag chips, dates and uploader, all in a URL that can be shared', async () => {
    const carousel = (await f.client.get(ids.carousel)).item;
    const day = carousel.createdAt.slice(0, 10);
    await page.fill('input[name="q"]', 'summer');
    await page.fill('input[name="hashtag"]', '#summersale');
    await page.fill('input[name="from"]', day);
    await page.fill('input[name="to"]', day);
    await page.fill('input[name="by"]', 'ci-bot');
    await page.click('button:text("Filter")');
    await page.waitForURL(/q=summer/);
    const url = new URL(page.url());
    // The form sends its empty fields too; what is set is the search.
    expect(Object.fromEntries([...url.searchParams].filter(([, v]) => v !== ''))).toEqual({
      q: 'summer',
      hashtag: '#summersale',
      from: day,
      to: day,
      by: 'ci-bot',
    });
    // The chosen hashtag is a chip (and the field is empty for the next one).
    expect(await textOf('.chip')).toBe('#summersale ×');
    expect(await page.inputValue('input[type="text"][name="hashtag"]')).toBe('');
    // The same URL in another tab shows the same search.
    const shared = await context.newPage();
    await shared.goto(url.href);
    expect(await shared.inputValue('input[name="q"]')).toBe('summer');
    expect(await shared.inputValue('input[name="from"]')).toBe(day);
    expect(await shared.inputValue('input[name="by"]')).toBe('ci-bot');
    expect(await shared.locator('.chip').count()).toBe(1);
    await shared.close();
    // A second hashtag adds a chip; a chip's × removes only it.
    await page.fill('input[type="text"][name="hashtag"]', 'launch');
    await page.click('button:text("Filter")');
    await page.waitForURL(/hashtag=launch/);
    expect(new URL(page.url()).searchParams.getAll('hashtag').filter(Boolean)).toEqual(['summersale', 'launch']);
    await page.click('a[aria-label="Remove hashtag #summersale"]');
    await page.waitForURL((u) => !u.searchParams.getAll('hashtag').includes('summersale'));
    expect(new URL(page.url()).searchParams.getAll('hashtag').filter(Boolean)).toEqual(['launch']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('summer');
    // The words are marked in the titles (escaped like any text).
    await page.goto(`${f.browse.origin}/?q=summer`);
    expect(await page.locator(`.card[data-id="${ids.carousel}"] .card-title mark`).allTextContents()).toEqual([
      'Summer',
    ]);
    expect(await page.locator(`.card[data-id="${ids.carousel}"] .card-title`).textContent()).toBe('Summer carousel');
    // A date that is not one is said, not searched for.
    await page.goto(`${f.browse.origin}/?from=2026-11-20&to=2026-11-01`);
    expect(await textOf('.flash-error')).toContain('ends (2026-11-01) before it starts (2026-11-20)');
    problems = problems.filter((p) => !p.includes('status of 400'));
  });

  it('the search form narrows the grid (the server’s hashtag, date, uploader and text filters)', async () => {
    const carousel = (await f.client.get(ids.carousel)).item;
    await f.client.patch(ids.carousel, { hashtags: ['summersale'] });
    try {
      const day = carousel.createdAt.slice(0, 10);
      const by = carousel.createdBy?.keyId ?? '';
      await page.goto(`${f.browse.origin}/?q=summer&hashtag=summersale&from=${day}&to=${day}&by=${by}`);
      expect(await cardTitles()).toEqual(['Summer carousel']);
      await page.goto(`${f.browse.origin}/?hashtag=summersale&hashtag=nosuchtag`);
      expect(await textOf('.empty')).toBe('No item matches these filters.');
    } finally {
      await f.client.patch(ids.carousel, { hashtags: [] });
    }
  });

  it('a title holding markup renders as text, and runs nothing', async () => {
    expect(await page.locator(`.card[data-id="${ids.xss}"] .card-title`).textContent()).toBe(XSS);
    await page.goto(`${f.browse.origin}/items/${ids.xss}`);
    expect(await page.locator('h1').textContent()).toBe(XSS);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
  });

  it('works with the keyboard alone, and at phone width', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    // Tab to the first card and open it with Enter.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.classList.contains('card-link'))) break;
    }
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/items/${ids.draft}$`));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });
});

describe('an item', () => {
  it("shows a carousel's images in sortOrder, with their positions, all loaded", async () => {
    await page.goto(`${f.browse.origin}/items/${ids.carousel}`);
    const captions = await page.locator('.carousel figcaption').allTextContents();
    expect(captions.map((c) => c.replace(/\s+/g, ' ').trim())).toEqual([
      '1 of 3 zebra.png',
      '2 of 3 apple.jpg',
      '3 of 3 mango.webp',
    ]);
    const imgs = page.locator('.carousel img');
    for (let i = 0; i < 3; i++) {
      await imgs.nth(i).scrollIntoViewIfNeeded();
      await expect.poll(() => imgs.nth(i).evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    }
    expect(
      await page.locator('.slide').evaluateAll((els) => els.map((e) => e.getAttribute('data-sort-order'))),
    ).toEqual(['0', '1', '2']);
  });

  it('plays a video and seeks in it (the file URL answers ranges)', async () => {
    const ranged: number[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(f.s.url) && r.status() === 206) ranged.push(r.status());
    });
    await page.goto(`${f.browse.origin}/items/${ids.long}`);
    const video = page.locator('video');
    await expect.poll(() => video.evaluate((v) => (v as HTMLVideoElement).readyState)).toBeGreaterThanOrEqual(1);
    expect(await video.evaluate((v) => Math.round((v as HTMLVideoElement).duration))).toBe(95);
    await video.evaluate((v) => {
      const el = v as HTMLVideoElement;
      el.muted = true;
      return el.play();
    });
    await expect.poll(() => video.evaluate((v) => (v as HTMLVideoElement).currentTime)).toBeGreaterThan(0);
    await video.evaluate(
      (v) =>
        new Promise<void>((resolve) => {
          const el = v as HTMLVideoElement;
          el.addEventListener('seeked', () => resolve(), { once: true });
          el.currentTime = 60;
        }),
    );
    expect(await video.evaluate((v) => (v as HTMLVideoElement).currentTime)).toBeGreaterThanOrEqual(59.5);
    expect(ranged.length).toBeGreaterThan(0);
  });

  it('a title edit in the page is what contentlib show then shows', async () => {
    await page.goto(`${f.browse.origin}/items/${ids.draft}`);
    await page.fill('#f-title', 'Teaser, final cut');
    await page.selectOption('#f-status', 'scheduled');
    await page.click('button:text("Save changes")');
    expect(await textOf('.flash-ok')).toContain('Saved (title, status).');
    expect(await page.locator('h1').textContent()).toBe('Teaser, final cut');
    const other = apiClient(f.s.url, f.key);
    const shown = await runShow(ids.draft, { client: other });
    await other.close();
    expect(shown.item).toMatchObject({ title: 'Teaser, final cut', status: 'scheduled' });
  });

  it('refuses settings that are not JSON, in words, keeping what was typed', async () => {
    await page.goto(`${f.browse.origin}/items/${ids.long}`);
    await page.fill('#f-title', 'Keynote (typed)');
    // Straight to the server: the page's script would stop the form itself (tested below).
    await page.evaluate(() => {
      const t = document.querySelector('#f-settings') as HTMLTextAreaElement;
      t.value = '{"youtube": ';
      t.setCustomValidity('');
      (t.form as HTMLFormElement).noValidate = true;
    });
    await page.click('button:text("Save changes")');
    expect(await textOf('.field-problem')).toContain('Platform settings are not valid JSON');
    // The refused form comes back as a 400 (which Chromium logs): expected here, and only here.
    problems = problems.filter((p) => !p.includes('status of 400'));
    expect(await page.inputValue('#f-title')).toBe('Keynote (typed)');
    expect((await f.client.get(ids.long)).item.title).toBe('Keynote');
    // Without the detour, the script marks the field invalid as it is typed.
    await page.fill('#f-settings', '[1, 2]');
    expect(await page.locator('#f-settings').evaluate((t) => (t as HTMLTextAreaElement).validity.valid)).toBe(false);
  });

  it('sets a thumbnail from an image file', async () => {
    await page.goto(`${f.browse.origin}/items/${ids.long}`);
    await page.setInputFiles('#f-thumb', join(FIXTURES, 'image', 'photo.jpg'));
    await page.click('button:text("Set thumbnail")');
    expect(await textOf('.flash-ok')).toContain('The thumbnail is now photo.jpg.');
    expect((await f.client.get(ids.long)).item.thumbnailUrl).toBeTruthy();
    expect(await page.locator('video').getAttribute('poster')).toBeTruthy();
  });

  it('delete needs its confirmation, which names the item', async () => {
    const victim = (await f.client.patch((await upload(f.client, 'video/clip-5s.mp4')).id, { title: 'Old promo' }))
      .item;
    await page.goto(`${f.browse.origin}/items/${victim.id}`);
    await page.click('text=Delete this item…');
    expect(await textOf('h1')).toBe('Delete “Old promo”?');
    // Asked, not done.
    expect((await f.client.get(victim.id)).item.title).toBe('Old promo');
    await page.click('text=Cancel');
    await page.waitForURL(new RegExp(`/items/${victim.id}$`));
    await page.click('text=Delete this item…');
    await page.click('button:text("Delete “Old promo”")');
    expect(await textOf('.flash-ok')).toContain('Deleted the shortform video “Old promo”.');
    await expect(f.client.get(victim.id)).rejects.toMatchObject({ status: 404 });
    expect(await cardTitles()).not.toContain('Old promo');
  });
});

describe('accessibility (axe-core)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`no serious violations on the grid, an item, a carousel and a confirmation (${scheme})`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      for (const path of [
        '/',
        '/?q=summer&hashtag=summersale&hashtag=launch&from=2026-01-01&by=ci-bot',
        `/items/${ids.long}`,
        `/items/${ids.carousel}`,
        `/items/${ids.carousel}/delete`,
      ]) {
        await page.goto(`${f.browse.origin}${path}`);
        expect(await seriousA11yViolations(page), path).toEqual([]);
      }
    });
  }
});
