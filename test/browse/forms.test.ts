// The grid's query string and the edit form, as tables over the pure functions.
import { describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src/api/schemas.js';
import { type EditForm, gridHref, listParamsOf, parseGridQuery, patchFromForm } from '../../src/browse/forms.js';
import { highlight, searchedTerms } from '../../src/browse/pages/grid.js';

describe('parseGridQuery', () => {
  it.each([
    [{}, { page: 1 }, 0],
    [
      { status: 'draft', type: 'carousel', search: ' sale ', page: '3' },
      { status: 'draft', type: 'carousel', search: 'sale', page: 3 },
      0,
    ],
    [{ status: '', type: '', search: '', page: '' }, { page: 1 }, 0],
    [{ status: 'archived' }, { page: 1 }, 1],
    [{ type: 'reel' }, { page: 1 }, 1],
    [{ page: '0' }, { page: 1 }, 1],
    [{ page: '-2' }, { page: 1 }, 1],
    [{ page: 'x' }, { page: 1 }, 1],
    [{ status: ['draft', 'failed'] }, { status: 'draft', page: 1 }, 0],
  ])('%j → %j with %i problems', (q, query, problems) => {
    const r = parseGridQuery(q);
    expect(r.query).toEqual(query);
    expect(r.problems).toHaveLength(problems);
  });

  it('links keep the filters and set the page', () => {
    expect(gridHref({ page: 1 })).toBe('/');
    expect(gridHref({ status: 'draft', search: 'a&b', page: 1 }, 2)).toBe('/?status=draft&search=a%26b&page=2');
  });

  it.each([
    // The chips' hidden values and the field's new one (which may hold several) are one list.
    [{ hashtag: ['summersale', ''] }, { hashtags: ['summersale'] }],
    [{ hashtag: ['summersale', '#launch, Summersale'] }, { hashtags: ['summersale', 'launch'] }],
    [
      { from: '2026-11-01', to: '2026-11-20' },
      { from: '2026-11-01', to: '2026-11-20' },
    ],
    [
      { by: ' ci-bot ', q: ' northwind sneaker ' },
      { by: 'ci-bot', q: 'northwind sneaker' },
    ],
    [{ from: '', to: '', by: '', q: '' }, {}],
  ])('search filters %j → %j', (q, query) => {
    const r = parseGridQuery(q);
    expect(r.problems).toEqual([]);
    expect(r.query).toEqual({ page: 1, ...query });
  });

  it.each([
    [{ from: '2026-13-01' }, /is not a date/],
    [{ to: 'yesterday' }, /is not a date/],
    [{ from: '2026-11-20', to: '2026-11-01' }, /ends \(2026-11-01\) before it starts/],
    [{ hashtag: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /at most 20 hashtags/],
  ])('%j is a problem', (q, message) => {
    expect(parseGridQuery(q).problems.join('\n')).toMatch(message);
  });

  it('the URL holds every filter, so a search can be shared; the list gets the same parameters as ls', () => {
    const query = {
      status: 'draft' as const,
      hashtags: ['summersale', 'launch'],
      from: '2026-11-01',
      to: '2026-11-20',
      by: 'ci-bot',
      q: 'northwind "exact phrase"',
      page: 1,
    };
    const href = gridHref(query);
    expect(href).toBe(
      '/?status=draft&hashtag=summersale&hashtag=launch&from=2026-11-01&to=2026-11-20&by=ci-bot&q=northwind+%22exact+phrase%22',
    );
    const back = new URLSearchParams(href.slice(2));
    expect(parseGridQuery({ ...Object.fromEntries(back), hashtag: back.getAll('hashtag') }).query).toEqual(query);
    expect(listParamsOf(query)).toEqual({
      status: 'draft',
      hashtag: ['summersale', 'launch'],
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-11-21T00:00:00.000Z',
      createdBy: 'ci-bot',
      q: 'northwind "exact phrase"',
    });
  });
});

describe('highlight', () => {
  it.each([
    ['Northwind sneaker launch', { q: 'northwind SNEAKER' }, '<mark>Northwind</mark> <mark>sneaker</mark> launch'],
    ['A summer sale, summer!', { q: '"summer sale"' }, 'A <mark>summer sale</mark>, summer!'],
    ['Teaser draft', { search: 'ser d' }, 'Tea<mark>ser d</mark>raft'],
    ['<b>Sale</b> & more', { q: 'sale' }, '&lt;b&gt;<mark>Sale</mark>&lt;/b&gt; &amp; more'],
    ['a.b (c)', { q: '(c) a.b' }, '<mark>a.b</mark> <mark>(c)</mark>'],
    ['Nothing here', {}, 'Nothing here'],
    ['#summersale promo', { q: '#summersale' }, '#<mark>summersale</mark> promo'],
  ])('%j with %j', (title, q, markup) => {
    expect(highlight(title, searchedTerms({ page: 1, ...q })).markup).toBe(markup);
  });
});

describe('patchFromForm', () => {
  const current: ContentItem = {
    id: 'i1',
    type: 'shortform',
    title: 'Old',
    description: 'Desc',
    hashtags: ['summer', 'sale'],
    status: 'draft',
    thumbnailUrl: null,
    platformSettings: { youtube: { visibility: 'private' } },
    createdAt: '2026-01-01T00:00:00Z',
  };
  const same: EditForm = {
    title: 'Old',
    description: 'Desc',
    hashtags: '#summer #sale',
    status: 'draft',
    platformSettings: '{"youtube": {"visibility": "private"}}',
  };

  it('an unchanged form sends nothing', () => {
    expect(patchFromForm(same, current)).toEqual({ problems: [] });
    // Same tags in another spelling, same settings with other spacing: still unchanged.
    expect(
      patchFromForm(
        { ...same, hashtags: 'summer, #sale', platformSettings: '{ "youtube":{"visibility":"private"} }' },
        current,
      ),
    ).toEqual({ problems: [] });
  });

  it.each([
    [{ title: 'New' }, { title: 'New' }],
    [{ description: '' }, { description: '' }],
    [{ hashtags: '#winter' }, { hashtags: ['winter'] }],
    [{ hashtags: '' }, { hashtags: [] }],
    [{ status: 'published' }, { status: 'published' }],
    [{ platformSettings: '' }, { platformSettings: {} }],
    [{ platformSettings: '{"tiktok": {"duet": false}}' }, { platformSettings: { tiktok: { duet: false } } }],
  ])('changing %j sends %j', (change, patch) => {
    expect(patchFromForm({ ...same, ...change }, current)).toEqual({ patch, problems: [] });
  });

  it.each([
    [{ title: 'a\u0007b' }, 'title'],
    [{ title: 'x'.repeat(301) }, 'title'],
    [{ status: 'archived' }, 'status'],
    [{ platformSettings: '{not json' }, 'platformSettings'],
    [{ platformSettings: '[1,2]' }, 'platformSettings'],
    [{ platformSettings: '{"youtube": "private"}' }, 'platformSettings'],
    [{ description: 'd'.repeat(5001) }, 'description'],
  ])('%j is refused, naming %s', (change, field) => {
    const r = patchFromForm({ ...same, ...change }, current);
    expect(r.patch).toBeUndefined();
    expect(r.problems.map((p) => p.field)).toContain(field);
    expect(r.problems[0]!.message.length).toBeGreaterThan(10);
  });
});
