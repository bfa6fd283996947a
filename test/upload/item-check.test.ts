// Which of an earlier run's items still exist, read from the list a page at a time: against a
// library kept in memory, newest first and paged by offset as GET /api/v1/content is, so that a
// delete between two pages shifts the rest the way it does on the server.
import { describe, expect, it } from 'vitest';
import type { CheckApi } from '../../src/upload/send/item-check.js';
import { PAGE_COST, goneItems, listPageBudget } from '../../src/upload/send/item-check.js';
import { ApiError } from '../../src/api/errors.js';
import type { GetResponse, ListResponse } from '../../src/api/schemas.js';

describe('listPageBudget: never more pages than the GETs they replace', () => {
  it.each([
    [0, 0],
    [1, 0],
    [PAGE_COST - 1, 0],
    [PAGE_COST, 1],
    [1000, 1000 / PAGE_COST],
    [1009, Math.floor(1009 / PAGE_COST)],
  ])('%d items → %d pages', (items, pages) => {
    expect(listPageBudget(items)).toBe(pages);
  });
});

/** A library of `n` items (ids i0 … i{n-1}, i0 the newest), counting the requests made to it. */
function library(n: number, o: { onPage?: (ids: string[]) => void } = {}) {
  const ids = Array.from({ length: n }, (_, i) => `i${i}`);
  const calls = { list: 0, get: 0 };
  const api: CheckApi = {
    list: async (query) => {
      const limit = Number(query.limit ?? 50);
      const offset = Number(query.offset ?? 0);
      calls.list++;
      const page = ids.slice(offset, offset + limit);
      o.onPage?.(ids);
      return {
        items: page.map((id) => ({ id })),
        limit,
        offset,
        hasMore: offset + limit < ids.length,
      } as unknown as ListResponse;
    },
    get: async (id) => {
      calls.get++;
      if (!ids.includes(id))
        throw new ApiError({ status: 404, code: 'not_found', message: 'no such item', method: 'GET', url: `/${id}` });
      return { item: { id }, files: [] } as unknown as GetResponse;
    },
  };
  return { ids, api, calls, remove: (id: string) => ids.splice(ids.indexOf(id), 1) };
}

const check = (api: CheckApi, ids: string[]) => goneItems(ids, api, new AbortController().signal, () => undefined);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `i${from + i}`);

describe('goneItems', () => {
  it('1,000 items that all exist: 10 pages, no GET', async () => {
    const lib = library(1000);
    expect(await check(lib.api, range(0, 1000))).toEqual(new Set());
    expect(lib.calls).toEqual({ list: 10, get: 0 });
  });

  it('says what the library holds of each item that exists, once, from a page or a GET', async () => {
    const lib = library(5000);
    lib.remove('i3');
    const seen: string[] = [];
    const asked = [...range(0, 20), 'i4999'];
    const gone = await goneItems(
      asked,
      lib.api,
      new AbortController().signal,
      () => undefined,
      (item) => seen.push(item.id),
    );
    expect(gone).toEqual(new Set(['i3']));
    expect(seen.sort()).toEqual(asked.filter((id) => id !== 'i3').sort());
  });

  it('a few items: one GET each, no page', async () => {
    const lib = library(5000);
    lib.remove('i3');
    expect(await check(lib.api, ['i1', 'i3', 'i4000'])).toEqual(new Set(['i3']));
    expect(lib.calls).toEqual({ list: 0, get: 3 });
  });

  it('deleted items: the list ends without them, and a GET (404) confirms each', async () => {
    const lib = library(300);
    for (const id of ['i10', 'i150', 'i299']) lib.remove(id);
    expect(await check(lib.api, range(0, 300))).toEqual(new Set(['i10', 'i150', 'i299']));
    expect(lib.calls).toEqual({ list: 3, get: 3 });
  });

  it('old items under many newer ones: the pages stop at the budget, the rest are asked for by id', async () => {
    const lib = library(10_000);
    lib.remove('i9999');
    const ours = range(9900, 10_000);
    expect(await check(lib.api, ours)).toEqual(new Set(['i9999']));
    expect(lib.calls).toEqual({ list: listPageBudget(100), get: 100 });
  });

  it('an item deleted between two pages shifts the next one onto the page already read: it still counts as existing', async () => {
    let deleted = false;
    const lib = library(250, {
      onPage: (ids) => {
        // After the first page: delete an item on it, so that i100 moves to offset 99.
        if (deleted) return;
        deleted = true;
        ids.splice(ids.indexOf('i0'), 1);
      },
    });
    const gone = await check(lib.api, range(1, 250));
    expect(gone).toEqual(new Set());
    expect(lib.calls.get).toBe(1); // i100, missed by the pages, found by its id
  });
});
