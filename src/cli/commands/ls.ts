// contentlib ls: lists the brand's items, newest first, with filters and paging. `--all` walks
// every page, printing each as it arrives; a --limit above the API's page size is served by
// several pages. After the first page, pages follow the server's nextCursor (keyset paging: no
// item skipped or repeated while others are added or deleted, and as fast deep in the list as at
// its start); a service that sends none (the spec's) is paged by offset.
import type { ApiClient, ListParams } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import type { ContentType, Status } from '../../rules/rules.js';
import { interruptible, openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { isClosed } from '../io.js';
import { EMPTY_LIST, createItemListPrinter } from '../output/items.js';
import { ITEM_FIELDS, checkJq, jsonSelection } from '../output/json.js';
import { outputMode } from '../output/mode.js';
import { type SearchFlags, combineParams, narrows, paramsFromFlags, parseQuery } from '../query.js';

export interface LsOptions {
  status?: Status;
  type?: ContentType;
  search?: string;
  /** How many items in all (default one page of 50); may exceed the API's 100 per page. */
  limit?: number;
  offset?: number;
  all?: boolean;
  /** The search extension's parameters, from the query and the search flags (../query.ts). */
  filters?: ListParams;
}

export interface LsDeps {
  client: Pick<ApiClient, 'list'>;
  /** Receives each page as it arrives. */
  onPage: (items: readonly ContentItem[]) => Promise<void>;
  signal?: AbortSignal;
  /** True once nobody reads the output any more (`ls --all | head`): stop fetching pages. */
  stopped?: () => boolean;
}

/** Walks pages until the limit or the end; returns how many items were handed to onPage. */
export async function runLs(o: LsOptions, deps: LsDeps): Promise<{ count: number; hasMore: boolean }> {
  const wanted = o.all ? Infinity : (o.limit ?? LIST_LIMITS.defaultLimit);
  let offset = o.offset ?? 0;
  let cursor: string | undefined;
  let count = 0;
  for (;;) {
    const pageSize = Math.min(LIST_LIMITS.maxLimit, wanted - count);
    const at = cursor === undefined ? { offset } : { cursor };
    const page = await deps.client.list(
      { status: o.status, type: o.type, search: o.search, ...o.filters, limit: pageSize, ...at },
      { signal: deps.signal },
    );
    // The next page's cursor; absent from a service without the extension (then: offsets).
    cursor = page.nextCursor ?? undefined;
    // Never more than asked, even from a server that ignores limit.
    const items = page.items.slice(0, wanted - count);
    await deps.onPage(items);
    count += items.length;
    offset += page.items.length;
    if (deps.stopped?.()) return { count, hasMore: page.hasMore };
    if (!page.hasMore || page.items.length === 0) return { count, hasMore: false };
    if (count >= wanted) return { count, hasMore: true };
  }
}

/**
 * The query words (`ls 'status:draft #sale northwind'`, several arguments are one query) and the
 * flags as one set of list parameters: the flags --status, --type, --search and the search flags
 * combine with the query's words; the same thing said twice differently is a usage error.
 */
export function lsFilters(words: readonly string[], opts: LsOptions & SearchFlags, now: () => Date): ListParams {
  const fromQuery = parseQuery(words.join(' '), now);
  const fromFlags: ListParams = {
    ...paramsFromFlags(opts, now),
    ...(opts.status !== undefined ? { status: opts.status } : {}),
    ...(opts.type !== undefined ? { type: opts.type } : {}),
    ...(opts.search !== undefined ? { search: opts.search } : {}),
  };
  return combineParams(fromQuery, fromFlags);
}

/** `contentlib ls [query...]`: pages of items printed as they arrive. */
export async function lsCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  words: string[],
  flags: LsOptions & SearchFlags,
): Promise<void> {
  const sel = jsonSelection(globals, ITEM_FIELDS, 'ls');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  // A query that cannot be read is refused before anything is opened (exit 2).
  const filters = lsFilters(words, flags, ctx.now);
  const opts: LsOptions = {
    ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
    ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
    ...(flags.all ? { all: true } : {}),
    filters,
  };
  const { client } = await openApi(ctx, globals);
  const filtered = narrows(filters) || (opts.offset ?? 0) > 0;
  const printer = createItemListPrinter(
    ctx.io,
    outputMode(ctx.io, Boolean(sel)),
    ctx.now,
    filtered ? EMPTY_LIST.filtered : EMPTY_LIST.library,
    sel,
  );
  const result = await interruptible(
    ctx,
    () => runLs(opts, { client, onPage: printer.page, signal: ctx.signal, stopped: () => isClosed(ctx.io.stdout) }),
    'Interrupted; the list above is incomplete.',
  );
  await printer.end();
  if (result.hasMore && ctx.io.stderrIsTTY && !sel) {
    ctx.io.stderr.write(
      `More items exist: use --offset ${(opts.offset ?? 0) + result.count} for the next page, or --all.\n`,
    );
  }
}
