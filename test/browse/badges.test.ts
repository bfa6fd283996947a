// browse's platform badges (issue 39): one per target platform (platformSettings.contentlib.targets),
// judged by the checker `contentlib check` uses on the facts the library measured, on the grid's
// cards and the item page; none for an item aimed nowhere. Over HTTP, as test/browse/server.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src/api/schemas.js';
import { verdicts } from '../../src/browse/pages/badges.js';
import { type BrowseFixture, browseFixture } from '../support/browse.js';
import { upload } from '../support/cli.js';

let f: BrowseFixture;
let tall: ContentItem;
let wide: ContentItem;
let plain: ContentItem;
let carousel: ContentItem;
const targets = (list: string[]) => ({ platformSettings: { contentlib: { targets: list } } });

beforeAll(async () => {
  f = await browseFixture();
  tall = (
    await f.client.patch((await upload(f.client, 'media/portrait-1080x1920.mp4')).id, targets(['reels', 'shorts']))
  ).item;
  wide = (
    await f.client.patch((await upload(f.client, 'media/landscape-1920x1080.mp4')).id, targets(['reels', 'tiktok']))
  ).item;
  plain = await upload(f.client, 'video/clip-5s.mp4');
  const first = await upload(f.client, 'media/photo-exif-6.jpg');
  await upload(f.client, 'media/photo.png', { contentItemId: first.id });
  carousel = (await f.client.patch(first.id, targets(['instagram-feed', 'x']))).item;
});
afterAll(async () => f?.dispose());

/** The badges of one item's markup: [platform, state class, visible text]. */
function badges(markup: string): Array<[string, string, string]> {
  return [...markup.matchAll(/class="badge platform platform-([\w-]+)"\s+data-platform="([\w-]+)"[^>]*>([^<]*)/g)].map(
    (m) => [m[2]!, m[1]!, m[3]!.trim()],
  );
}

/** The markup of the grid card of `id`. */
function cardOf(page: string, id: string): string {
  const at = page.indexOf(`data-id="${id}"`);
  return page.slice(at, page.indexOf('</li>', at));
}

describe('platform badges', () => {
  it('on each grid card, for the item’s targets only', async () => {
    const page = (await f.page('/')).text;
    expect(badges(cardOf(page, tall.id))).toEqual([
      ['reels', 'ready', '✓ Reels'],
      ['shorts', 'ready', '✓ Shorts'],
    ]);
    // 16:9: Reels refuses it; TikTok takes it with bars (a warning).
    expect(badges(cardOf(page, wide.id))).toEqual([
      ['reels', 'not-ready', '✗ Reels'],
      ['tiktok', 'warning', '! TikTok'],
    ]);
    expect(badges(cardOf(page, plain.id))).toEqual([]);
    // The grid has no carousel images: it says the verdict needs the item page.
    expect(badges(cardOf(page, carousel.id)).map(([, state]) => state)).toEqual(['unknown', 'unknown']);
  });

  it('on the item page, the reason in the badge’s title; a carousel judged by its images', async () => {
    const page = (await f.page(`/items/${wide.id}`)).text;
    expect(page).toContain('16:9, Reels wants 9:16: crop the sides or add bars above and below');
    expect(badges(page)).toEqual([
      ['reels', 'not-ready', '✗ Reels'],
      ['tiktok', 'warning', '! TikTok'],
    ]);
    // 120×80 at EXIF 6 is 2:3 portrait, 80 px short: too small for the feed; X takes any shape.
    const images = (await f.page(`/items/${carousel.id}`)).text;
    expect(badges(images)).toEqual([
      ['instagram-feed', 'not-ready', '✗ Instagram feed'],
      ['x', 'ready', '✓ X'],
    ]);
  });

  it('the item page words the media facts as show does', async () => {
    const page = (await f.page(`/items/${tall.id}`)).text;
    // In the Media section, one <dt>/<dd> pair per fact (src/browse/pages/facts.ts).
    expect(page).toMatch(/<dt>Resolution<\/dt>\s*<dd data-field="media">1080×1920 \(9:16, portrait\)<\/dd>/);
    expect(page).toMatch(/<dt>Video<\/dt>\s*<dd data-field="media">H\.264 High 8-bit<\/dd>/);
  });

  it('an item not measured yet is "not known", never ready', () => {
    expect(verdicts({ ...tall, media: null })).toEqual([
      { platform: 'reels', state: 'unknown', why: ['not measured yet'] },
      { platform: 'shorts', state: 'unknown', why: ['not measured yet'] },
    ]);
  });
});
