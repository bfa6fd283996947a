// contentlib ls: lists the brand's items, newest first, with filters and paging. `--all` walks
// every page, printing each as it arrives; a --limit above the API's page size is served by
// several pages.
import type { Command } from 'commander';
import { Option } from 'commander';
import type { ApiClient } from '../../api/client.js';
import type { ContentItem } from '../../api/schemas.js';
import { CONTENT_TYPES, LIST_LIMITS, STATUSES } from '../../rules/rules.js';
import type { ContentType, Status } from '../../rules/rules.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { isClosed } from '../io.js';

export interface LsOptions {
  status?: Status;
  type?: ContentType;
  search?: string;
  /** How many items in all (default one page of 50); may exceed the API's 100 per page. */
  limit?: number;
  offset?: number;
  all?: boolean;
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
  let count = 0;
  for (;;) {
    const pageSize = Math.min(LIST_LIMITS.maxLimit, wanted - count);
    const page = await deps.client.list(
      { status: o.status, type: o.type, search: o.search, limit: pageSize, offset },
      { signal: deps.signal },
    );
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

export function parseCount(name: string, min: number) {
  return (raw: string): number => {
    // "-1" is a whole number to a person: say the lower bound, not only "whole number".
    const what = `${name} must be a whole number, ${min} or more`;
    if (!/^\d+$/.test(raw.trim()))
      throw new UsageError(`${what}, got "${raw}".`, `For example: ${name} ${Math.max(min, 20)}`);
    const n = Number(raw);
    if (n < min) throw new UsageError(`${what}, got ${n}.`, `For example: ${name} ${Math.max(min, 20)}`);
    return n;
  };
}

export function registerLs(program: Command, ctx: CliContext): void {
  program
    .command('ls')
    .description('list content items, newest first')
    .addOption(new Option('--status <status>', 'only items with this status').choices(STATUSES))
    .addOption(new Option('--type <type>', 'only items of this type').choices(CONTENT_TYPES))
    .option('--search <text>', 'only items whose title contains this text (case-insensitive)')
    .option(
      '--limit <n>',
      `how many items (default ${LIST_LIMITS.defaultLimit}; above ${LIST_LIMITS.maxLimit} is fetched in several pages)`,
      parseCount('--limit', 1),
    )
    .option('--offset <n>', 'skip this many items first', parseCount('--offset', 0))
    .option('--all', 'every item, page by page (ignores --limit)')
    .addHelpText(
      'after',
      `
Examples:
  contentlib ls --status draft --type carousel
  contentlib ls --search "summer sale" --limit 200
  contentlib ls --all --json > library.json
  contentlib ls --status failed --json id,title
  contentlib ls --type carousel --jq '.[] | select(.fileCount > 5) | .id'`,
    )
    .action(async (opts: LsOptions, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const { openApi, interruptible } = await import('../api.js');
      const { outputMode } = await import('../output/mode.js');
      const { createItemListPrinter, EMPTY_LIST } = await import('../output/items.js');
      const { ITEM_FIELDS, checkJq, jsonSelection } = await import('../output/json.js');
      const sel = jsonSelection(globals, ITEM_FIELDS, 'ls');
      if (sel?.jq !== undefined) await checkJq(sel.jq);
      const { client } = await openApi(ctx, globals);
      const filtered =
        opts.status !== undefined || opts.type !== undefined || opts.search !== undefined || (opts.offset ?? 0) > 0;
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
    });
}
