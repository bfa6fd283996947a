// ls paging against a real server on 127.0.0.1, and rm outcomes, in-process, with the narrow
// client functions each command needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, type ListParams, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { ApiError, NetworkError } from '../../src/api/errors.js';
import type { ContentItem } from '../../src/api/schemas.js';
import { runLs } from '../../src/cli/commands/ls.js';
import { rmOutcome, runRm } from '../../src/cli/commands/rm.js';
import { EXIT, InterruptedError, UsageError } from '../../src/cli/errors.js';
import { seedItems } from '../support/seed.js';
import { type TestServer, startTestServer } from '../support/server.js';

const item = (i: number): ContentItem => ({
  id: `id${i}`,
  type: 'shortform',
  title: `T${i}`,
  status: 'draft',
  thumbnailUrl: null,
  createdAt: '2026-01-01T00:00:00Z',
});

describe('runLs against a real server', () => {
  let server: TestServer;
  /** A brand of 10,000 items and one of 30, their ids newest first. */
  let big: { client: ApiClient; ids: string[] };
  let small: { client: ApiClient; ids: string[] };
  beforeAll(async () => {
    server = await startTestServer();
    const brand = async (name: string, n: number) => {
      const key = await server.key(name);
      const ids = seedItems(server.dataDir, key, n);
      return { client: createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY }), ids };
    };
    big = await brand('big', 10_000);
    small = await brand('small', 30);
  }, 120_000);
  afterAll(async () => {
    await big?.client.close();
    await small?.client.close();
    await server?.dispose();
  });

  /** The brand's client, every list request it sends recorded. */
  function recorded(of: { client: ApiClient }) {
    const calls: ListParams[] = [];
    return {
      calls,
      list: (q: ListParams, o?: { signal?: AbortSignal }) => {
        calls.push(q);
        return of.client.list(q, o);
      },
    };
  }

  it('one page of 50 by default', async () => {
    const lib = recorded(big);
    const pages: number[] = [];
    const r = await runLs({}, { client: lib, onPage: async (p) => void pages.push(p.length) });
    expect(r).toEqual({ count: 50, hasMore: true });
    expect(pages).toEqual([50]);
    expect(lib.calls).toEqual([{ limit: 50, offset: 0 }]);
  });

  it('a --limit above 100 is served by several pages (the server refuses a limit above 100)', async () => {
    const lib = recorded(big);
    const seen: string[] = [];
    const r = await runLs(
      { limit: 250, offset: 10, status: 'draft' },
      { client: lib, onPage: async (p) => void seen.push(...p.map((i) => i.id)) },
    );
    expect(r.count).toBe(250);
    // The first page by offset, the next ones by the server's cursor.
    expect(lib.calls.map((c) => [c.limit, c.offset, typeof c.cursor])).toEqual([
      [100, 10, 'undefined'],
      [100, undefined, 'string'],
      [50, undefined, 'string'],
    ]);
    expect(lib.calls.every((c) => c.status === 'draft')).toBe(true);
    expect(seen).toEqual(big.ids.slice(10, 260));
  });

  it('--all walks to the end page by page, holding one page at a time', async () => {
    const lib = recorded(big);
    let count = 0;
    let largest = 0;
    const r = await runLs(
      { all: true, limit: 5 },
      {
        client: lib,
        onPage: async (p) => {
          count += p.length;
          largest = Math.max(largest, p.length);
        },
      },
    );
    expect(r).toEqual({ count: 10_000, hasMore: false });
    expect(count).toBe(10_000);
    expect(largest).toBe(100);
    expect(lib.calls).toHaveLength(100);
  });

  it('--all follows the cursor: items deleted and added between pages neither shift nor repeat the rest', async () => {
    const key = await server.key('moving');
    const ids = seedItems(server.dataDir, key, 250);
    const client = createApiClient({ baseUrl: server.url, apiKey: key, retry: NO_WAIT_RETRY });
    const seen: string[] = [];
    let pages = 0;
    try {
      await runLs(
        { all: true },
        {
          client,
          onPage: async (p) => {
            seen.push(...p.map((i) => i.id));
            // After the first page: delete two items it showed and one still to come.
            if (++pages === 1)
              for (const id of [ids[0]!, ids[1]!, ids[150]!]) expect((await client.remove(id)).deleted).toBe(true);
          },
        },
      );
    } finally {
      await client.close();
    }
    expect(seen).toEqual(ids.filter((id) => id !== ids[150]));
  });

  it('--all pages by offset on a service that sends no nextCursor (the spec)', async () => {
    const lib = recorded(small);
    const specOnly = {
      list: async (q: ListParams, o?: { signal?: AbortSignal }) => {
        const { nextCursor: _dropped, ...page } = await lib.list({ ...q, limit: 10 }, o);
        return page;
      },
    };
    const seen: string[] = [];
    const r = await runLs(
      { all: true },
      { client: specOnly, onPage: async (p) => void seen.push(...p.map((i) => i.id)) },
    );
    expect(r).toEqual({ count: 30, hasMore: false });
    expect(seen).toEqual(small.ids);
    expect(lib.calls.map((c) => [c.offset, c.cursor])).toEqual([
      [0, undefined],
      [10, undefined],
      [20, undefined],
    ]);
  });

  it('stops at the end even when the limit is not reached', async () => {
    const lib = recorded(small);
    expect(await runLs({ limit: 500 }, { client: lib, onPage: async () => {} })).toEqual({
      count: 30,
      hasMore: false,
    });
    expect(lib.calls).toHaveLength(1);
  });
});

const notFound = (id: string) =>
  new ApiError({
    status: 404,
    code: 'not_found',
    message: 'No such item',
    method: 'DELETE',
    url: `http://h/api/v1/content/${id}`,
  });

function rmClient(existing: string[], failing: Record<string, Error> = {}) {
  const live = new Set(existing);
  const removed: string[] = [];
  return {
    removed,
    get: async (id: string) => {
      if (!live.has(id)) throw notFound(id);
      return { item: { ...item(0), id, title: `Title of ${id}` }, files: [] };
    },
    remove: async (id: string) => {
      if (failing[id]) throw failing[id];
      if (!live.has(id)) throw notFound(id);
      live.delete(id);
      removed.push(id);
      return { deleted: true as const };
    },
  };
}

describe('runRm', () => {
  it('without a way to ask and without --yes it refuses before any request', async () => {
    const c = rmClient(['a']);
    await expect(runRm(['a'], {}, { client: c })).rejects.toBeInstanceOf(UsageError);
    expect(c.removed).toEqual([]);
  });

  it('asks once naming every item that exists, then deletes them', async () => {
    const c = rmClient(['a', 'b']);
    const asked: string[][] = [];
    const results = await runRm(
      ['a', 'b', 'zz', 'a'],
      {},
      { client: c, confirm: async (items) => (asked.push(items.map((i) => i.title)), true) },
    );
    expect(asked).toEqual([['Title of a', 'Title of b']]);
    expect(c.removed).toEqual(['a', 'b']);
    expect(results.map((r) => [r.id, r.deleted])).toEqual([
      ['a', true],
      ['b', true],
      ['zz', false],
    ]);
    expect(rmOutcome(results)?.message).toContain('Deleted 2 of 3');
    expect((rmOutcome(results) as UsageError).exitCode).toBe(EXIT.partial);
  });

  it('a "no" deletes nothing', async () => {
    const c = rmClient(['a']);
    await expect(runRm(['a'], {}, { client: c, confirm: async () => false })).rejects.toBeInstanceOf(InterruptedError);
    expect(c.removed).toEqual([]);
  });

  it('--yes goes on past failures and reports each; all missing → exit 5', async () => {
    const c = rmClient(['b'], {
      c: new NetworkError({ message: 'reset', code: 'ECONNRESET', method: 'DELETE', url: 'http://h/api/v1/content/c' }),
    });
    const results = await runRm(['a', 'b', 'c'], { yes: true }, { client: c });
    expect(results.map((r) => r.deleted)).toEqual([false, true, false]);
    expect(rmOutcome(results)).toMatchObject({ exitCode: EXIT.partial });
    const none = await runRm(['x', 'y'], { yes: true }, { client: rmClient([]) });
    expect(rmOutcome(none)).toMatchObject({ exitCode: EXIT.notFound });
    expect(rmOutcome(await runRm(['b'], { yes: true }, { client: rmClient(['b']) }))).toBeUndefined();
  });

  it('stops at a 401: the key is wrong for every id', async () => {
    const c = rmClient(['a'], {
      a: new ApiError({
        status: 401,
        code: 'unauthorized',
        message: 'bad key',
        method: 'DELETE',
        url: 'http://h/api/v1/content/a',
      }),
    });
    await expect(runRm(['a', 'b'], { yes: true }, { client: c })).rejects.toMatchObject({ status: 401 });
  });
});

describe('runRm after Ctrl-C', () => {
  it('stops, reports what was deleted and what was not attempted', async () => {
    const controller = new AbortController();
    const c = rmClient(['a', 'b', 'c']);
    const remove = c.remove;
    c.remove = async (id: string) => {
      const r = await remove(id);
      if (id === 'a') controller.abort(new Error('SIGINT'));
      return r;
    };
    const results = await runRm(['a', 'b', 'c'], { yes: true }, { client: c, signal: controller.signal });
    expect(results.map((r) => [r.id, r.deleted, r.deleted ? undefined : r.error.code])).toEqual([
      ['a', true, undefined],
      ['b', false, 'interrupted'],
      ['c', false, 'interrupted'],
    ]);
    expect(c.removed).toEqual(['a']);
  });
});
