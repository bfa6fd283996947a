// Which of an earlier run's items still exist: against a library kept in memory, newest first and
// paged by offset as GET /api/v1/content is, so that a delete between two pages shifts the rest
// the way it does on the server. The library filters by id as our server does (the list's `id`
// extension), or refuses the parameter, or ignores it, as another service may; the engine's
// re-run against the real server is in test/upload/engine-*.test.ts and test/cli.
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

/** What a service does with the list's `id` parameter: filters (ours), refuses it (400), ignores it. */
type ById = 'filters' | 'refuses' | 'ignores';

/**
 * A library of `n` items (ids i0 … i{n-1}, i0 the newest), counting the requests made to it.
 * `byId(call)` says what the n-th list by id meets (a rolling upgrade mixes them).
 */
function library(n: number, o: { onPage?: (ids: string[]) => void; byId?: ById | ((call: number) => ById) } = {}) {
  const ids = Array.from({ length: n }, (_, i) => `i${i}`);
  const calls = { list: 0, get: 0 };
  let byIdCalls = 0;
  const byId = typeof o.byId === 'function' ? o.byId : () => (o.byId as ById | undefined) ?? 'ignores';
  const api: CheckApi = {
    list: async (query) => {
      const limit = Number(query.limit ?? 50);
      const offset = Number(query.offset ?? 0);
      calls.list++;
      if (query.id !== undefined) {
        const does = byId(byIdCalls++);
        if (does === 'refuses')
          throw new ApiError({
            status: 400,
            code: 'invalid_request',
            message: 'unknown query parameter id',
            method: 'GET',
            url: '/',
          });
        if (does === 'filters') {
          const asked = new Set(query.id);
          const items = ids.filter((id) => asked.has(id)).slice(offset, offset + limit);
          return { items: items.map((id) => ({ id })), limit, offset, hasMore: false } as unknown as ListResponse;
        }
      }
      const page = ids.slice(offset, offset + limit);
      if (query.id === undefined) o.onPage?.(ids);
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

describe('goneItems against a service that filters the list by id (ours)', () => {
  it('1,000 items in a library of 100,000: 10 lists by id, no page by offset, no GET', async () => {
    const lib = library(100_000, { byId: 'filters' });
    expect(await check(lib.api, range(90_000, 91_000))).toEqual(new Set());
    expect(lib.calls).toEqual({ list: 10, get: 0 });
  });

  it('an item the answer leaves out is gone, without a GET', async () => {
    const lib = library(5000, { byId: 'filters' });
    for (const id of ['i3', 'i4998']) lib.remove(id);
    expect(await check(lib.api, [...range(0, 150), 'i4998', 'i4999'])).toEqual(new Set(['i3', 'i4998']));
    expect(lib.calls).toEqual({ list: 2, get: 0 });
  });

  it('says what the library holds of each item that exists, once', async () => {
    const lib = library(5000, { byId: 'filters' });
    lib.remove('i3');
    const seen: string[] = [];
    const asked = [...range(0, 250), 'i4999'];
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

  it('nothing to check: no request', async () => {
    const lib = library(10, { byId: 'filters' });
    expect(await check(lib.api, [])).toEqual(new Set());
    expect(lib.calls).toEqual({ list: 0, get: 0 });
  });

  it('instances with and without the extension behind one balancer: the answers not filtered are checked the other way', async () => {
    // Every other list by id meets an instance that ignores the parameter (the first filters).
    const lib = library(3000, { byId: (call) => (call % 2 === 0 ? 'filters' : 'ignores') });
    for (const id of ['i5', 'i150', 'i2999']) lib.remove(id);
    const gone = await check(lib.api, range(0, 3000));
    expect(gone).toEqual(new Set(['i5', 'i150', 'i2999']));
    // 30 lists by id; the 15 ids sets answered unfiltered (1,500 ids) are read from 150 pages,
    // and the deleted one among them confirmed by a GET.
    expect(lib.calls.list).toBeGreaterThan(30);
    expect(lib.calls.get).toBeLessThanOrEqual(3);
  });
});

describe.each(['refuses', 'ignores'] as const)(
  'goneItems against a service that %s the list’s id parameter',
  (byId) => {
    // The one list by id that finds out costs a request; the rest is read as before.
    it('1,000 items that all exist: 10 pages, no GET', async () => {
      const lib = library(1000, { byId });
      expect(await check(lib.api, range(0, 1000))).toEqual(new Set());
      expect(lib.calls).toEqual({ list: 1 + 10, get: 0 });
    });

    it('says what the library holds of each item that exists, once, from a page or a GET', async () => {
      const lib = library(5000, { byId });
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
      const lib = library(5000, { byId });
      lib.remove('i3');
      expect(await check(lib.api, ['i1', 'i3', 'i4000'])).toEqual(new Set(['i3']));
      expect(lib.calls).toEqual({ list: 1, get: 3 });
    });

    it('deleted items: the list ends without them, and a GET (404) confirms each', async () => {
      const lib = library(300, { byId });
      for (const id of ['i10', 'i150', 'i299']) lib.remove(id);
      expect(await check(lib.api, range(0, 300))).toEqual(new Set(['i10', 'i150', 'i299']));
      expect(lib.calls).toEqual({ list: 1 + 3, get: 3 });
    });

    it('old items under many newer ones: the pages stop at the budget, the rest are asked for by id', async () => {
      const lib = library(10_000, { byId });
      lib.remove('i9999');
      const ours = range(9900, 10_000);
      expect(await check(lib.api, ours)).toEqual(new Set(['i9999']));
      expect(lib.calls).toEqual({ list: 1 + listPageBudget(100), get: 100 });
    });

    it('an item deleted between two pages shifts the next one onto the page already read: it still counts as existing', async () => {
      let deleted = false;
      const lib = library(250, {
        byId,
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

    it('a library holding only the items asked for answers the same either way', async () => {
      const lib = library(40, { byId });
      lib.remove('i7');
      expect(await check(lib.api, range(0, 40))).toEqual(new Set(['i7']));
    });
  },
);
