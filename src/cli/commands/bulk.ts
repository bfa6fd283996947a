// Bulk changes: `edit --where QUERY …` and `rm --where QUERY`. Every matching item is collected
// first (all pages), the change is shown (a count and the first rows), asked for on a terminal
// (--yes otherwise; --dry-run shows and stops), then sent one request per item, all carrying one
// batch id (Content-Library-Batch), so the audit log holds them as one change that
// `contentlib undo` can take back. A failure is reported for its item and the rest go on.
import { randomUUID } from 'node:crypto';
import type { ApiClient, ListParams } from '../../api/client.js';
import { ApiError, missingScopeOf } from '../../api/errors.js';
import type { ContentItem } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import { describeChanges, matchesLocally, planEdits } from '../bulk-plan.js';
import { describeError } from '../error-messages.js';
import { CliError, EXIT, InterruptedError, PartialError, UsageError } from '../errors.js';
import { type IO, canPrompt } from '../io.js';
import { type BulkItemResult, type BulkResult, askToGoOn, formatPreview } from '../output/bulk.js';
import { narrows, parseQuery } from '../query.js';
import { openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { jsonSelection, checkJq } from '../output/json.js';
import { printBulkResult } from '../output/bulk.js';
import { type EditFlags, buildPatch } from './edit-flags.js';

export interface BulkDeps {
  client: Pick<ApiClient, 'list' | 'patch' | 'remove'>;
  io: IO;
  now: () => Date;
  /** The batch id of this run (a UUID unless a test names it). */
  newBatchId?: () => string;
  signal?: AbortSignal;
}

export interface WhereOptions {
  where: string;
  yes?: boolean;
  dryRun?: boolean;
}

/** Without a terminal a bulk change needs --yes (or --dry-run): refused before anything is opened. */
export function refuseWithoutTerminal(io: IO, o: { yes?: boolean; dryRun?: boolean }, what: string): void {
  if (o.yes || o.dryRun || canPrompt(io)) return;
  throw new UsageError(
    `Refusing to ${what} without confirmation: no terminal to ask on.`,
    'Look first with --dry-run, then add --yes to go ahead without asking.',
  );
}

/** The query of --where as list parameters; one that matches everything is refused. */
export function whereParams(where: string, now: () => Date): ListParams {
  const params = parseQuery(where, now);
  if (!narrows(params))
    throw new UsageError(
      `--where "${where}" does not narrow the list: it would change every item of the library.`,
      "Say which items: e.g. --where 'status:draft #summersale created:>7d'",
    );
  return params;
}

/**
 * Every item the query matches, page after page (by the service's cursor when it gives one, by
 * offset otherwise). An item the service lists that visibly does not match (a service without
 * the search extension ignores its filters) stops the command before anything changes.
 */
export async function collectMatches(
  client: Pick<ApiClient, 'list'>,
  params: ListParams,
  signal?: AbortSignal,
): Promise<ContentItem[]> {
  const items: ContentItem[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await client.list(
      { ...params, limit: LIST_LIMITS.maxLimit, ...(cursor !== undefined ? { cursor } : { offset }) },
      { signal },
    );
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      if (!matchesLocally(item, params))
        throw new CliError(
          `The service listed ${item.id} ("${item.title}"), which does not match the query; nothing was changed.`,
          {
            hint: 'The service may not support these filters (they are an extension of contentlib serve). Check with: contentlib ls QUERY',
          },
        );
      items.push(item);
    }
    if (!page.hasMore || page.items.length === 0) return items;
    if (page.nextCursor) cursor = page.nextCursor;
    else offset += page.items.length;
  }
}

/** A 401, or a 403 for a scope the key lacks, is about the key: every other item would fail alike. */
function isFatal(err: unknown): boolean {
  return (err instanceof ApiError && err.status === 401) || missingScopeOf(err) !== undefined;
}

function failureOf(err: unknown): NonNullable<BulkItemResult['error']> {
  if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
  return { code: (err as Error)?.name ?? 'error', message: describeError(err).message.split('\n')[0]! };
}

/**
 * Sends one request per item, in order, each with the batch id; goes on past a failure. A key
 * that is refused, or Ctrl-C, stops it: the items not tried yet are `skipped`.
 */
export async function sendEach<T extends { id: string; title: string }>(
  todo: readonly T[],
  send: (t: T) => Promise<BulkItemResult['outcome']>,
  describe: (t: T) => Pick<BulkItemResult, 'changes'>,
  signal?: AbortSignal,
): Promise<BulkItemResult[]> {
  const out: BulkItemResult[] = [];
  let stop: BulkItemResult['error'] | undefined;
  for (const t of todo) {
    const base = { id: t.id, title: t.title, ...describe(t) };
    if (stop || signal?.aborted) {
      out.push({
        ...base,
        outcome: 'skipped',
        error: stop ?? { code: 'interrupted', message: 'not tried: interrupted' },
      });
      continue;
    }
    try {
      out.push({ ...base, outcome: await send(t) });
    } catch (err) {
      const error = signal?.aborted
        ? { code: 'interrupted', message: 'interrupted while sending: it may or may not have changed' }
        : failureOf(err);
      out.push({ ...base, outcome: 'failed', error });
      if (isFatal(err)) stop = { ...error, message: `not tried: ${error.message}` };
    }
  }
  return out;
}

/** `edit --where QUERY FLAGS`: the result of each item (planned ones for --dry-run). */
export async function runEditWhere(o: WhereOptions & { flags: EditFlags }, deps: BulkDeps): Promise<BulkResult> {
  const params = whereParams(o.where, deps.now);
  refuseWithoutTerminal(deps.io, o, 'change items');
  const items = await collectMatches(deps.client, params, deps.signal);
  const { edits, unchanged } = planEdits(items, o.flags);
  const unchangedRows: BulkItemResult[] = unchanged.map((i) => ({ id: i.id, title: i.title, outcome: 'unchanged' }));
  const result = (batchId: string | null, done: BulkItemResult[]): BulkResult => ({
    batchId,
    dryRun: Boolean(o.dryRun),
    matched: items.length,
    items: [...done, ...unchangedRows],
  });
  const preview = formatPreview(
    deps.io,
    `${items.length} item${items.length === 1 ? ' matches' : 's match'}; ${edits.length} would change${unchanged.length ? ` (${unchanged.length} already as asked)` : ''}:`,
    edits.map((e) => ({ id: e.id, title: e.title, what: describeChanges(e.changes) })),
  );
  if (o.dryRun || edits.length === 0) {
    if (edits.length > 0) deps.io.stderr.write(preview);
    return result(
      null,
      edits.map((e) => ({ id: e.id, title: e.title, outcome: 'planned', changes: e.changes })),
    );
  }
  if (!o.yes) {
    if (!(await askToGoOn(deps.io, preview, `Change ${edits.length === 1 ? 'it' : `all ${edits.length}`}?`)))
      throw new InterruptedError('Nothing was changed.');
  } else deps.io.stderr.write(preview);
  const batchId = (deps.newBatchId ?? randomUUID)();
  const done = await sendEach(
    edits,
    async (e) => {
      await deps.client.patch(e.id, e.patch, { signal: deps.signal, batchId });
      return 'changed';
    },
    (e) => ({ changes: e.changes }),
    deps.signal,
  );
  return result(batchId, done);
}

/** What `rm --where` and its confirmation say about undo. */
export const DELETIONS_ARE_FINAL =
  'Deletions are final: the items and their files cannot be brought back, not even with contentlib undo.';

/** `rm --where QUERY`. */
export async function runRmWhere(o: WhereOptions, deps: BulkDeps): Promise<BulkResult> {
  const params = whereParams(o.where, deps.now);
  refuseWithoutTerminal(deps.io, o, 'delete items');
  const items = await collectMatches(deps.client, params, deps.signal);
  const preview = formatPreview(
    deps.io,
    `${items.length} item${items.length === 1 ? '' : 's'} match${items.length === 1 ? 'es' : ''}; ${o.dryRun ? 'these would be deleted' : items.length === 1 ? 'about to delete it and all its files' : 'about to delete them and all their files'}:`,
    items.map((i) => ({ id: i.id, title: i.title, what: i.type })),
    DELETIONS_ARE_FINAL,
  );
  const asResult = (batchId: string | null, done: BulkItemResult[]): BulkResult => ({
    batchId,
    dryRun: Boolean(o.dryRun),
    matched: items.length,
    items: done,
  });
  if (o.dryRun || items.length === 0) {
    if (items.length > 0) deps.io.stderr.write(preview);
    return asResult(
      null,
      items.map((i) => ({ id: i.id, title: i.title, outcome: 'planned' })),
    );
  }
  if (!o.yes) {
    if (!(await askToGoOn(deps.io, preview, `Delete ${items.length === 1 ? 'it' : `all ${items.length}`} for good?`)))
      throw new InterruptedError('Nothing was deleted.');
  } else deps.io.stderr.write(preview);
  const batchId = (deps.newBatchId ?? randomUUID)();
  const done = await sendEach(
    items,
    async (i) => {
      await deps.client.remove(i.id, { signal: deps.signal, batchId });
      return 'deleted';
    },
    () => ({}),
    deps.signal,
  );
  return asResult(batchId, done);
}

/**
 * The exit of a bulk change: 0 when every item went through (or nothing needed changing), 3 when
 * some failed, 1 when all did; the line on stderr says how many, and the batch to look up.
 */
export function bulkOutcome(r: BulkResult, verb: 'Changed' | 'Deleted' | 'Restored'): { line: string; error?: Error } {
  const planned = r.items.filter((i) => i.outcome === 'planned').length;
  const done = r.items.filter((i) => i.outcome === 'changed' || i.outcome === 'deleted').length;
  const notDone = r.items.filter((i) => i.outcome === 'failed' || i.outcome === 'skipped').length;
  const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
  let line: string;
  if (r.matched === 0) line = 'No item matches the query; nothing to do.';
  else if (r.dryRun)
    line = `Dry run: ${planned} of ${items(r.matched)} would ${verb === 'Deleted' ? 'be deleted' : 'change'}; nothing was sent.`;
  else if (r.batchId === null) line = `Nothing was sent: none of the ${items(r.matched)} needed a change.`;
  else {
    const undo = verb === 'Deleted' ? '' : `; take it back: contentlib undo ${r.batchId}`;
    line = `${verb} ${done} of ${items(done + notDone)} as batch ${r.batchId} (see it: contentlib log --batch ${r.batchId}${undo}).`;
  }
  if (notDone === 0) return { line };
  const full = `${line} ${notDone} ${notDone === 1 ? 'was' : 'were'} not (listed above).`;
  return { line: full, error: done > 0 ? new PartialError(full) : new CliError(full, { exitCode: EXIT.failure }) };
}

/** The JSON of a bulk change: its result object (batchId, dryRun, matched, items). */
const BULK_FIELDS = ['batchId', 'dryRun', 'matched', 'items'] as const;

/** Prints the items and the summary; throws the outcome's error (exit 3 or 1) when some failed. */
async function finish(
  ctx: CliContext,
  globals: GlobalOptions,
  result: BulkResult,
  verb: 'Changed' | 'Deleted' | 'Restored',
  command: string,
) {
  await printBulkResult(ctx.io, jsonSelection(globals, BULK_FIELDS, command), result);
  const { line, error } = bulkOutcome(result, verb);
  // Ctrl-C: what was done is listed above; the exit says it was cut short.
  if (ctx.signal.aborted) throw new InterruptedError(`Interrupted: ${line}`);
  if (error) throw error;
  ctx.io.stderr.write(`${line}\n`);
}

/** An item no real one looks like: the flags are checked against it before anything is opened. */
const NO_ITEM: ContentItem = {
  id: 'check',
  type: 'shortform',
  title: 'check',
  status: 'draft',
  thumbnailUrl: null,
  createdAt: '2026-01-01T00:00:00Z',
};

/** `contentlib edit --where QUERY FLAGS`. */
export async function editWhereCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  o: WhereOptions & { flags: EditFlags },
): Promise<void> {
  const sel = jsonSelection(globals, BULK_FIELDS, 'edit');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  // The query, the flags and the terminal first: a mistake costs no request.
  whereParams(o.where, ctx.now);
  buildPatch(o.flags, NO_ITEM);
  refuseWithoutTerminal(ctx.io, o, 'change items');
  const { client } = await openApi(ctx, globals, { writes: !o.dryRun });
  const result = await runEditWhere(o, { client, io: ctx.io, now: ctx.now, signal: ctx.signal });
  await finish(ctx, globals, result, 'Changed', 'edit');
}

/** `contentlib rm --where QUERY`. */
export async function rmWhereCommand(ctx: CliContext, globals: GlobalOptions, o: WhereOptions): Promise<void> {
  const sel = jsonSelection(globals, BULK_FIELDS, 'rm');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  whereParams(o.where, ctx.now);
  refuseWithoutTerminal(ctx.io, o, 'delete items');
  const { client } = await openApi(ctx, globals, { writes: !o.dryRun });
  const result = await runRmWhere(o, { client, io: ctx.io, now: ctx.now, signal: ctx.signal });
  await finish(ctx, globals, result, 'Deleted', 'rm');
}
