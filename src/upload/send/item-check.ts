// Before a re-run skips what earlier runs uploaded, it checks that their items still exist: a
// file whose item was deleted on the server must be sent again, into a new item, and one whose
// item exists must never be.
//
// - Our server lists items by id (the list's `id` extension, docs/api.md): 100 ids a request,
//   whatever the library's size. An id the answer leaves out is not in the library, as a GET's
//   404 would say.
// - Another service may refuse that parameter (400) or ignore it (its answer holds other items,
//   or says more follow). Then the list is read page by page (newest first) until every item
//   was seen, or it ends, or it has cost as much as the GETs it replaces (listPageBudget): a
//   library of many other items must not be read whole to check a few.
// - An item not seen on the pages read is asked for by its id (one GET): only a 404 there counts
//   as deleted. Pages are read by offset, so an item deleted meanwhile shifts the rest up and one
//   item may be missed; the GET makes sure that it never counts as deleted when it is not.
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { CallOptions } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import { createPool } from '../../concurrency/pool.js';

/** One page of the list costs about as much as this many GETs of a single item (server and client CPU). */
export const PAGE_COST = 10;

/** Items asked for by id at once. */
const GET_CONCURRENCY = 8;

/** Lists by id in flight at once (each 100 ids). */
const LIST_CONCURRENCY = 4;

/** Pages of the list worth reading to check `items` items: never more than the GETs they replace. */
export function listPageBudget(items: number): number {
  return Math.floor(items / PAGE_COST);
}

export type CheckApi = Pick<ApiClient, 'list' | 'get'>;

/** One check's state and callbacks, which each way of checking reads and moves ids through. */
interface Check {
  /** The ids not answered for yet. */
  unseen: Set<string>;
  /** The ids found deleted. */
  gone: Set<string>;
  api: CheckApi;
  signal: AbortSignal;
  onRetry: (id: string) => CallOptions['onRetry'];
  onSeen: ((item: ContentItem) => void) | undefined;
}

/**
 * The items among `ids` that no longer exist (404 to a GET, or left out of a list by id).
 * `onRetry(id)` gives the retry callback of the requests made for an item (for a page: its
 * first unseen item).
 */
export async function goneItems(
  ids: Iterable<string>,
  api: CheckApi,
  signal: AbortSignal,
  onRetry: Check['onRetry'],
  /** Each item of `ids` as the library answered it (a page or a GET): what it holds now. */
  onSeen?: Check['onSeen'],
): Promise<Set<string>> {
  const check: Check = { unseen: new Set(ids), gone: new Set(), api, signal, onRetry, onSeen };
  for (const way of [checkByIds, checkByPages, checkOneByOne]) if (check.unseen.size > 0) await way(check);
  return check.gone;
}

/**
 * Checks `unseen` through the list's `id` filter, moving each id it answers for out of it (into
 * `gone` when the answer leaves it out). The ids of an answer that is not filtered stay in
 * `unseen`: all of them when the service does not filter by id, and those of the requests an
 * instance without the extension answered, behind a balancer in a rolling upgrade.
 */
async function checkByIds({ unseen, gone, api, signal, onRetry, onSeen }: Check): Promise<void> {
  const chunks = chunked([...unseen], LIST_LIMITS.maxLimit);
  const ask = async (chunk: string[]): Promise<ContentItem[] | null> => {
    try {
      const page = await api.list({ id: chunk, limit: LIST_LIMITS.maxLimit }, { signal, onRetry: onRetry(chunk[0]!) });
      return filtered(page, chunk) ? page.items : null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return null;
      throw err;
    }
  };
  const settle = (chunk: string[], items: ContentItem[]) => {
    for (const item of items) {
      unseen.delete(item.id);
      onSeen?.(item);
    }
    for (const id of chunk) if (unseen.delete(id)) gone.add(id);
  };
  // The first answer says whether the service filters at all, before the rest are asked.
  const first = await ask(chunks[0]!);
  if (first === null) return;
  settle(chunks[0]!, first);
  const pool = createPool(LIST_CONCURRENCY, signal);
  await Promise.all(
    chunks.slice(1).map((chunk) =>
      pool.run(async () => {
        const items = await ask(chunk);
        if (items !== null) settle(chunk, items);
      }),
    ),
  );
}

/** Whether a page answers a list by these ids: only items among them, and nothing more to come. */
function filtered(page: { items: readonly ContentItem[]; hasMore: boolean }, asked: readonly string[]): boolean {
  const wanted = new Set(asked);
  return !page.hasMore && page.items.every((item) => wanted.has(item.id));
}

/** Reads the list newest first, up to its page budget, moving each item it finds out of `unseen`. */
async function checkByPages({ unseen, api, signal, onRetry, onSeen }: Check): Promise<void> {
  const budget = listPageBudget(unseen.size);
  const limit = LIST_LIMITS.maxLimit;
  for (let page = 0; page < budget && unseen.size > 0; page++) {
    const first = unseen.values().next().value!;
    const res = await api.list({ limit, offset: page * limit }, { signal, onRetry: onRetry(first) });
    for (const item of res.items) {
      if (!unseen.delete(item.id)) continue;
      onSeen?.(item);
    }
    if (!res.hasMore) break;
  }
}

/** One GET per item left in `unseen`: a 404 puts it in `gone`. */
async function checkOneByOne({ unseen, gone, api, signal, onRetry, onSeen }: Check): Promise<void> {
  const pool = createPool(GET_CONCURRENCY, signal);
  await Promise.all(
    [...unseen].map((id) =>
      pool.run(async () => {
        try {
          const got = await api.get(id, { signal, onRetry: onRetry(id) });
          onSeen?.(got.item);
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) throw err;
          gone.add(id);
        }
      }),
    ),
  );
}

function chunked<T>(all: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size));
  return out;
}
