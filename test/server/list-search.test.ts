// Conformance: the list's search extension over HTTP (docs/api.md "Search, sort and cursor
// paging"): the spec's answer unchanged but for nextCursor, the filters as query parameters
// (hashtag repeated), cursor paging, and every refused parameter a 400 invalid_request. The
// filters' meaning on both databases is test/server/search.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as srv from '../support/server.js';
import type { Item, TestServer } from '../support/server.js';

type ListBody = { items: Item[]; limit: number; offset: number; hasMore: boolean; nextCursor: string | null };
const errorOf = (r: { body: unknown }) =>
  (r.body as { error: { code: string; message: string; details: Array<{ path?: string }> } }).error;

describe('list search (extension)', () => {
  let s: TestServer;
  let key: string;
  const ids: string[] = [];
  beforeAll(async () => {
    s = await srv.startTestServer();
    key = await s.key('searcher');
    const titles = ['Northwind sneaker', 'Winter coat', 'Sneaker care', 'Spring hat', 'Northwind hat'];
    for (const [i, title] of titles.entries()) {
      s.clock.advance(1000);
      const made = await srv.uploadItem(s, key, srv.video(`v${i}.mp4`, 10 + i));
      const tags = i % 2 === 0 ? ['SummerSale'] : ['winter'];
      const r = await srv.call('PATCH', `${s.url}/api/v1/content/${made.item.id}`, {
        key,
        json: { title, hashtags: tags, description: i === 1 ? 'for Northwind' : '' },
      });
      expect(r.status).toBe(200);
      ids.push(made.item.id);
    }
  }, 120_000);
  afterAll(async () => s.dispose());
  const q = (query: string) => srv.call<ListBody>('GET', `${s.url}/api/v1/content${query}`, { key });

  it("with no extension parameter: the spec's fields in the spec's order, then nextCursor", async () => {
    const r = await q('?limit=2');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['items', 'limit', 'offset', 'hasMore', 'nextCursor']);
    expect(r.body.items.map((i) => i.id)).toEqual([ids[4], ids[3]]);
    expect(typeof r.body.nextCursor).toBe('string');
    const all = await q('');
    expect(all.body.hasMore).toBe(false);
    expect(all.body.nextCursor).toBeNull();
  });

  it('filters as parameters: hashtag repeated, q ranked, a duration range, a sort', async () => {
    const titles = async (query: string) => (await q(query)).body.items.map((i) => i.title);
    expect(await titles('?hashtag=%23summersale')).toEqual(['Northwind hat', 'Sneaker care', 'Northwind sneaker']);
    expect(await titles('?hashtag=summersale&hashtag=SUMMERSALE&q=northwind')).toEqual([
      'Northwind hat',
      'Northwind sneaker',
    ]);
    // Title matches (3) before the description's (1).
    expect(await titles('?q=northwind')).toEqual(['Northwind hat', 'Northwind sneaker', 'Winter coat']);
    expect(await titles('?minDuration=11&maxDuration=12.5')).toEqual(['Sneaker care', 'Winter coat']);
    expect(await titles('?sort=title&order=asc&limit=2')).toEqual(['Northwind hat', 'Northwind sneaker']);
    const key0 = ((await q('?limit=1')).body.items[0] as unknown as { createdBy: { keyId: string } | null }).createdBy;
    expect(await titles(`?createdBy=${key0!.keyId}&createdAfter=2000-01-01T00:00:00Z&limit=1`)).toEqual([
      'Northwind hat',
    ]);
  });

  it('cursor pages walk the list once; a cursor with an offset or other filters is 400', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: srv.Reply<ListBody> = await q(`?limit=2&sort=title${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.offset).toBe(0);
      seen.push(...r.body.items.map((i) => i.title));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['Northwind hat', 'Northwind sneaker', 'Sneaker care', 'Spring hat', 'Winter coat']);
    const first = (await q('?limit=2&sort=title')).body.nextCursor!;
    const withOffset = await q(`?limit=2&sort=title&offset=2&cursor=${first}`);
    expect(withOffset.status).toBe(400);
    expect(errorOf(withOffset).code).toBe('invalid_request');
    expect(errorOf(withOffset).details[0]).toMatchObject({ path: 'cursor' });
    expect(errorOf(withOffset).message).toContain('offset');
    const otherSort = await q(`?limit=2&cursor=${first}`);
    expect(otherSort.status).toBe(400);
    expect(errorOf(otherSort).message).toContain('other filters or another sort');
  });

  it.each([
    '?cursor=not*ours',
    '?cursor=abc',
    '?createdAfter=yesterday',
    '?updatedBefore=2026-13-01T00:00:00Z',
    '?minDuration=-1',
    '?maxDuration=ten',
    '?minDuration=20&maxDuration=10',
    '?sort=size',
    '?order=up',
    '?q=%20',
    '?q=...',
    '?hashtag=',
    `?${Array.from({ length: 21 }, (_, i) => `hashtag=t${i}`).join('&')}`,
    '?createdBy=',
    '?page=2',
  ])('%s is 400 invalid_request', async (query) => {
    const r = await q(query);
    expect(r.status).toBe(400);
    expect(errorOf(r).code).toBe('invalid_request');
  });
});
