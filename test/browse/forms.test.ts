// The grid's query string and the edit form, as tables over the pure functions.
import { describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src/api/schemas.js';
import { type EditForm, gridHref, parseGridQuery, patchFromForm } from '../../src/browse/forms.js';

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
