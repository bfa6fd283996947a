// A carousel's images changed from the item page, in real Chromium (issue 39, part 4): reorder
// with the keyboard (the Move buttons) and by dragging, remove, replace; each through the same
// API endpoints as `contentlib edit` (checked by reading the carousel back through the API), with
// the result announced in the page's status line. The files table fits at 1280 px without a
// header broken over lines, and on a phone. axe-core finds nothing serious.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BrowseFixture, browseFixture } from '../support/browse.js';
import { launchChromium, seriousA11yViolations, watchForProblems } from '../support/chromium.js';
import { upload } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

let f: BrowseFixture;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  [f, browser] = await Promise.all([browseFixture(), launchChromium()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await f?.dispose();
});
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  problems = [];
  page = await context.newPage();
  watchForProblems(page, (what) => problems.push(what));
  await page.goto(f.browse.launchUrl('/'));
});
afterEach(async () => {
  await context.close();
  expect(problems).toEqual([]);
});

const NAMES = ['a.jpg', 'b.png', 'c.webp', 'd.jpg'];
const FIXTURE_OF: Record<string, string> = {
  'a.jpg': 'image/photo.jpg',
  'b.png': 'image/photo.png',
  'c.webp': 'image/photo.webp',
  'd.jpg': 'demo/carousel/1.jpg',
};

/** A carousel of a.jpg, b.png, c.webp, d.jpg (in that order); its page open. */
async function carouselPage(): Promise<string> {
  const first = await upload(f.client, FIXTURE_OF['a.jpg']!, { fileName: 'a.jpg' });
  for (const name of NAMES.slice(1))
    await upload(f.client, FIXTURE_OF[name]!, { fileName: name, contentItemId: first.id });
  await page.goto(`${f.browse.origin}/items/${first.id}`);
  return first.id;
}

/** The file names in order, as the page shows them and as the API has them. */
async function shown(): Promise<string[]> {
  const captions = await page.locator('.carousel figcaption').allTextContents();
  return captions.map((c) =>
    c
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\d+ of \d+ /, ''),
  );
}
async function stored(id: string): Promise<string[]> {
  const { files } = await f.client.get(id);
  return [...files].sort((a, b) => a.sortOrder - b.sortOrder).map((x) => x.fileName ?? '');
}
const status = () => page.locator('.flash[role="status"]').innerText();

describe("a carousel's images from the item page", () => {
  it('moves an image with the keyboard alone, announcing it and keeping the place', async () => {
    const id = await carouselPage();
    const up = page.getByRole('button', { name: 'Move image 3 (c.webp) up' });
    await up.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#slide-/);
    expect(await status()).toBe('Moved image 3 (c.webp) to position 2 of 4.');
    expect(await shown()).toEqual(['a.jpg', 'c.webp', 'b.png', 'd.jpg']);
    expect(await stored(id)).toEqual(['a.jpg', 'c.webp', 'b.png', 'd.jpg']);
    // The page opens at the image that moved: the keyboard goes on from there, up once more.
    expect(await page.evaluate(() => document.activeElement?.querySelector('figcaption')?.textContent)).toMatch(
      /c\.webp/,
    );
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Move image 2 (c.webp) up',
    );
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    await expect.poll(shown).toEqual(['c.webp', 'a.jpg', 'b.png', 'd.jpg']);
    expect(await stored(id)).toEqual(['c.webp', 'a.jpg', 'b.png', 'd.jpg']);
    // The first cannot go up, the last cannot go down.
    expect(await page.getByRole('button', { name: 'Move image 1 (c.webp) up' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Move image 4 (d.jpg) down' }).isDisabled()).toBe(true);
  });

  it('reorders by dragging an image onto another place', async () => {
    const id = await carouselPage();
    const slides = page.locator('li.slide');
    await expect.poll(() => slides.first().getAttribute('draggable')).toBe('true');
    await Promise.all([page.waitForURL(/flash=/), slides.nth(0).dragTo(slides.nth(2))]);
    expect(await status()).toMatch(/^The images are now in the order 2, 3, 1, 4/);
    expect(await shown()).toEqual(['b.png', 'c.webp', 'a.jpg', 'd.jpg']);
    expect(await stored(id)).toEqual(['b.png', 'c.webp', 'a.jpg', 'd.jpg']);
  });

  it('removes an image, and refuses to go below two', async () => {
    const id = await carouselPage();
    await page.getByRole('button', { name: 'Remove image 2 (b.png)' }).click();
    await page.waitForURL(/flash=/);
    expect(await status()).toBe('Removed image 2 (b.png).');
    expect(await stored(id)).toEqual(['a.jpg', 'c.webp', 'd.jpg']);
    await page.getByRole('button', { name: 'Remove image 1 (a.jpg)' }).click();
    await page.waitForURL(/flash=/);
    await page.getByRole('button', { name: 'Remove image 1 (c.webp)' }).click();
    await page.waitForURL(/flash=/);
    // The service's refusal, in words, as an alert.
    expect(await page.locator('.flash[role="alert"]').innerText()).toMatch(/at least 2/);
    expect(await stored(id)).toEqual(['c.webp', 'd.jpg']);
  });

  it('replaces an image with a file from the computer, in its place', async () => {
    const id = await carouselPage();
    await page.getByLabel('Replace image 2 (b.png) with').setInputFiles(join(FIXTURES, 'demo/carousel/2.png'));
    await page
      .locator('#slide-' + (await page.locator('li.slide').nth(1).getAttribute('data-file-id')))
      .locator('form.replace button')
      .click();
    await page.waitForURL(/flash=/);
    expect(await status()).toBe('Replaced image 2 (b.png) with 2.png.');
    expect(await stored(id)).toEqual(['a.jpg', '2.png', 'c.webp', 'd.jpg']);
    // Not an image: refused before anything is sent, and nothing changes.
    await page.getByLabel('Replace image 1 (a.jpg) with').setInputFiles(join(FIXTURES, 'video/clip-5s.mp4'));
    await page.locator('li.slide').first().locator('form.replace button').click();
    await page.waitForURL(/flash=/);
    expect(await page.locator('.flash[role="alert"]').innerText()).toMatch(/is a video/);
    expect(await stored(id)).toEqual(['a.jpg', '2.png', 'c.webp', 'd.jpg']);
  });

  it('fits the files table at 1280 px with no header broken over lines, and on a phone; axe finds nothing serious', async () => {
    await carouselPage();
    const headers = page.locator('table.files th');
    const lines = await headers.evaluateAll((ths) =>
      ths.map((th) => {
        const h = th as HTMLElement;
        const lineHeight = parseFloat(getComputedStyle(h).lineHeight) || 20;
        const range = document.createRange();
        range.selectNodeContents(h);
        return { text: h.textContent?.trim(), lines: Math.round(range.getBoundingClientRect().height / lineHeight) };
      }),
    );
    for (const l of lines) expect(l.lines, `header "${l.text}"`).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // Each cell says what it is.
    expect(
      await page
        .locator('table.files td[data-label="Name"]')
        .first()
        .evaluate((td) => getComputedStyle(td, '::before').content),
    ).toBe('"Name"');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
});

describe('the guard', () => {
  it('refuses a change of the images posted from another site, changing nothing', async () => {
    const first = await upload(f.client, 'image/photo.jpg', { fileName: 'x.jpg' });
    const second = await upload(f.client, 'image/photo.png', { fileName: 'y.png', contentItemId: first.id });
    const { files } = await f.client.get(first.id);
    const [a, b] = [...files].sort((x, y) => x.sortOrder - y.sortOrder);
    const evil = { origin: 'https://evil.example' };
    const order = await f.page(`/items/${first.id}/order`, {
      form: { order: `${b!.id},${a!.id}` },
      headers: evil,
    });
    expect(order.status).toBe(403);
    const remove = await f.page(`/items/${first.id}/files/${a!.id}/remove`, { form: {}, headers: evil });
    expect(remove.status).toBe(403);
    // Without an Origin, a change needs the browser's own Sec-Fetch-Site: same-origin.
    const bare = await f.page(`/items/${first.id}/order`, {
      form: { order: `${b!.id},${a!.id}` },
      headers: { origin: '' },
    });
    expect(bare.status).toBe(403);
    expect(await stored(first.id)).toEqual(['x.jpg', 'y.png']);
    expect(second.id).toBe(first.id);
  });
});
