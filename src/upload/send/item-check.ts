// Before a re-run skips what earlier runs uploaded, it checks that their items still exist: a
// file whose item was deleted on the server must be sent again, into a new item, and one whose
// item exists must never be. One GET per item made a re-run over 1,000 carousels cost 1,000
// requests; the list answers 100 items a request.
//
// - The list is read page by page (newest first) until every item was seen, or it ends, or it
//   has cost as much as the GETs it replaces (listPageBudget): a library of many other items
//   must not be read whole to check a few.
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

/** Pages of the list worth reading to check `items` items: never more than the GETs they replace. */
export function listPageBudget(items: number): number {
  return Math.floor(items / PAGE_COST);
}

export type CheckApi = Pick<ApiClient, 'list' | 'get'>;

/**
 * The items among `ids` that no longer exist (404 to a GET). `onRetry(id)` gives the retry
 * callback of the requests made for an item (for a page: its first unseen item).
 */
export async function goneItems(
  ids: Iterable<string>,
  api: CheckApi,
  signal: AbortSignal,
  onRetry: (id: string) => CallOptions['onRetry'],
  /** Each item of `ids` as the library answered it (a page or a GET): what it holds now. */
  onSeen?: (item: ContentItem) => void,
): Promise<Set<string>> {
  const unseen = new Set(ids);
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
  const gone = new Set<string>();
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
  return gone;
}
