// The browse server over HTTP, without a browser: who may use it (401/403), what every answer
// carries (CSP, nosniff, no referrer, never the API key), and the pages and forms as a person
// sees them. test/browse/browser.test.ts drives the same pages in Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowseFixture, TOKEN, browseFixture } from '../support/browse.js';
import { upload } from '../support/cli.js';

let f: BrowseFixture;
let video: { id: string };
let carousel: { id: string };
const XSS = '<img src=x onerror=alert(1)> & "quotes"';

beforeAll(async () => {
  f = await browseFixture();
  video = await upload(f.client, 'video/clip-5s.mp4');
  await f.client.patch(video.id, { title: XSS, description: '<script>alert(2)</script>' });
  const first = await upload(f.client, 'image/photo.png', { fileName: 'b-second-name.png' });
  await upload(f.client, 'image/photo.jpg', { fileName: 'a-first-name.jpg', contentItemId: first.id });
  carousel = (await f.client.patch(first.id, { title: 'Summer carousel', status: 'published' })).item;
});
afterAll(async () => f?.dispose());

describe('who may use it', () => {
  it('no cookie → 401, whatever the page', async () => {
    for (const path of ['/', `/items/${video.id}`, '/assets/browse.css', '/nowhere']) {
      const r = await f.page(path, { headers: { cookie: '' } });
      expect(r.status, path).toBe(401);
      expect(r.text).toContain('contentlib browse');
    }
  });

  it('the token in the URL sets the cookie and sends the browser on without it', async () => {
    const r = await f.page(`/items/${video.id}?token=${TOKEN}`, { headers: { cookie: '' } });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(`/items/${video.id}`);
    expect(String(r.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    const wrong = await f.page(`/?token=${TOKEN}x`, { headers: { cookie: '' } });
    expect(wrong.status).toBe(401);
  });

  it('a forged Host (DNS rebinding) → 403, even with the cookie', async () => {
    const r = await f.page('/', { headers: { host: 'attacker.example' } });
    expect(r.status).toBe(403);
    expect(r.text).not.toContain('Summer carousel');
  });

  it('a forged Origin → 403, for reading and for changing', async () => {
    expect((await f.page('/', { headers: { origin: 'https://attacker.example' } })).status).toBe(403);
    const post = await f.page(`/items/${carousel.id}/delete`, {
      form: { confirm: carousel.id },
      headers: { origin: 'https://attacker.example' },
    });
    expect(post.status).toBe(403);
    // A form post without an Origin at all is refused too.
    const bare = await f.page(`/items/${carousel.id}/delete`, {
      form: { confirm: carousel.id },
      headers: { origin: '' },
    });
    expect(bare.status).toBe(403);
    expect((await f.client.get(carousel.id)).item.title).toBe('Summer carousel');
  });
});

describe('what every answer carries', () => {
  it('a strict CSP naming only the library file origin, nosniff, no referrer, and never the API key', async () => {
    const fileOrigin = new URL(f.s.url).origin;
    const paths = [
      '/',
      '/?status=published',
      '/?format=json',
      `/items/${video.id}`,
      `/items/${video.id}?format=json`,
      `/items/${carousel.id}`,
      `/items/${carousel.id}/delete`,
      '/assets/browse.js',
      '/assets/browse.css',
      '/nowhere',
      '/?status=bogus',
    ];
    for (const path of paths) {
      const r = await f.page(path);
      const csp = String(r.headers['content-security-policy']);
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toMatch(/unsafe|\*/);
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
      expect(r.headers['referrer-policy'], path).toBe('no-referrer');
      expect(r.headers['access-control-allow-origin'], path).toBeUndefined();
      const everything = `${JSON.stringify(r.headers)}\n${r.text}`;
      expect(everything.includes(f.key), `API key in ${path}`).toBe(false);
      expect(everything.includes(f.key.slice(3, 20)), `part of the API key in ${path}`).toBe(false);
    }
    const item = await f.page(`/items/${video.id}`);
    expect(String(item.headers['content-security-policy'])).toContain(`media-src ${fileOrigin}`);
  });
});

describe('pages', () => {
  it('the grid lists items newest first, escaping titles', async () => {
    const r = await f.page('/');
    expect(r.status).toBe(200);
    const titles = [...r.text.matchAll(/<span class="card-title">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(titles).toEqual(['Summer carousel', '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;']);
    expect(r.text).not.toContain('<img src=x');
  });

  it('filters and search narrow the grid; a bad filter is said in words', async () => {
    expect((await f.page('/?status=published')).text).toContain('Summer carousel');
    expect((await f.page('/?status=published')).text).not.toContain('onerror');
    expect((await f.page('/?type=shortform')).text).not.toContain('Summer carousel');
    // The searched text is marked in the title.
    expect((await f.page('/?search=summer')).text).toContain('<mark>Summer</mark> carousel');
    expect((await f.page('/?search=nothing-like-this')).text).toContain('No item matches these filters');
    const bad = await f.page('/?status=bogus');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('There is no status “bogus”');
  });

  it('the item page shows a carousel in sortOrder with positions, file names and sizes', async () => {
    const r = await f.page(`/items/${carousel.id}`);
    expect(r.status).toBe(200);
    const names = [...r.text.matchAll(/<span class="position">(\d) of 2<\/span>\s*([^<]+)</g)].map((m) => [
      m[1],
      m[2]!.trim(),
    ]);
    expect(names).toEqual([
      ['1', 'b-second-name.png'],
      ['2', 'a-first-name.jpg'],
    ]);
    expect(r.text).toContain('bytes)');
  });

  it('who created and last changed an item, where the service records it (audit extension)', async () => {
    const r = await f.page(`/items/${carousel.id}`);
    const created = /<dd data-field="createdBy">([\s\S]*?)<\/dd>/.exec(r.text)?.[1] ?? '';
    // The test key has no name: its id stands for it.
    expect(created).toMatch(/^key [0-9a-f-]{36} · <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>$/);
    expect(r.text).toContain('data-field="updatedBy"');
  });

  it('an unknown item is a 404 page in words', async () => {
    const r = await f.page('/items/00000000-0000-4000-8000-000000000000');
    expect(r.status).toBe(404);
    expect(r.text).toContain('This item cannot be shown');
  });

  it('JSON twins answer what the service answered', async () => {
    const r = await f.page(`/items/${carousel.id}?format=json`);
    expect(JSON.parse(r.text).item.title).toBe('Summer carousel');
  });
});

describe('forms', () => {
  it('an edit saves the changed fields and says so', async () => {
    const current = (await f.client.get(carousel.id)).item;
    const r = await f.page(`/items/${carousel.id}/edit`, {
      form: {
        title: 'Renamed carousel',
        description: current.description ?? '',
        hashtags: '#summer, sale',
        status: 'scheduled',
        platformSettings: '{"youtube": {"visibility": "private"}}',
      },
    });
    expect(r.status).toBe(303);
    const after = (await f.client.get(carousel.id)).item;
    expect(after).toMatchObject({
      title: 'Renamed carousel',
      hashtags: ['summer', 'sale'],
      status: 'scheduled',
      platformSettings: { youtube: { visibility: 'private' } },
    });
    const shown = await f.page(String(r.headers.location));
    expect(shown.text).toContain('Saved (title, hashtags, status, platformSettings).');
  });

  it('a bad field is refused, named, and nothing is saved; the typed values stay in the form', async () => {
    const before = (await f.client.get(carousel.id)).item;
    const r = await f.page(`/items/${carousel.id}/edit`, {
      form: { title: 'Typed title', description: '', hashtags: '', status: before.status, platformSettings: '{oops' },
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Platform settings are not valid JSON');
    expect(r.text).toContain('value="Typed title"');
    expect((await f.client.get(carousel.id)).item.title).toBe(before.title);
  });

  it('delete shows a confirmation naming the item; only its button deletes', async () => {
    const victim = await upload(f.client, 'video/clip-5s.mp4', { fileName: 'victim.mp4' });
    const ask = await f.page(`/items/${victim.id}/delete`);
    expect(victim.title).toBe('victim');
    expect(ask.text).toContain('Delete “victim”?');
    expect(ask.text).toContain('This deletes the shortform video “victim”');
    const unconfirmed = await f.page(`/items/${victim.id}/delete`, { form: {} });
    expect(unconfirmed.status).toBe(400);
    expect((await f.client.get(victim.id)).item.id).toBe(victim.id);
    const done = await f.page(`/items/${victim.id}/delete`, { form: { confirm: victim.id } });
    expect(done.status).toBe(303);
    await expect(f.client.get(victim.id)).rejects.toMatchObject({ status: 404 });
    expect((await f.page(String(done.headers.location))).text).toContain('Deleted the shortform video “victim”.');
  });
});
