// contentlib undo BATCH: takes back a bulk edit (`edit --where`), from the audit log. Each item of
// the batch gets one PATCH with the values its `item.updated` entry says it had before (every
// field, platformSettings whole), sent as a new batch (so an undo can be undone). An item changed
// again after the batch is not overwritten unless --force (its later change would be lost), and a
// deletion is final: the log keeps what was deleted, not its files.
import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { BATCH_ID_PATTERN } from '../../api/headers.js';
import type { AuditEntryWire, ContentItem, PatchRequest } from '../../api/schemas.js';
import { type FieldChange, describeChanges } from '../bulk-plan.js';
import { openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { CliError, EXIT, InterruptedError, NotFoundError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { type BulkItemResult, type BulkResult, askToGoOn, formatPreview, printBulkResult } from '../output/bulk.js';
import { checkJq, jsonSelection } from '../output/json.js';
import { bulkOutcome, refuseWithoutTerminal, sendEach } from './bulk.js';
import { runLog } from './log.js';

export interface UndoOptions {
  batchId: string;
  yes?: boolean;
  dryRun?: boolean;
  /** Restore items changed again after the batch too (their later change is lost). */
  force?: boolean;
}

export interface UndoDeps {
  client: Pick<ApiClient, 'audit' | 'baseUrl' | 'get' | 'patch'>;
  io: IO;
  newBatchId?: () => string;
  signal?: AbortSignal;
}

/** A batch id as the command line gives it; anything else is a usage error before a request. */
export function checkBatchId(id: string): string {
  if (!BATCH_ID_PATTERN.test(id))
    throw new UsageError(
      `"${id}" is not a batch id.`,
      'A batch id is printed by edit --where and rm --where, and in contentlib log --json (batchId).',
    );
  return id;
}

/** What the batch did to one item: the values before (the first entry's `from` of each field). */
interface ItemInBatch {
  id: string;
  title: string;
  /** The newest entry of the batch for this item: a later entry means a later change. */
  lastEntryId: number;
  previous: Record<string, unknown>;
  /** Why it cannot be restored, when it cannot. */
  refusal?: string;
}

/** The batch's entries → what each item held before it (pure). */
export function itemsOfBatch(entries: readonly AuditEntryWire[]): ItemInBatch[] {
  const byItem = new Map<string, ItemInBatch>();
  // Oldest first: the first `from` of a field is its value before the batch.
  for (const e of [...entries].sort((a, b) => a.id - b.id)) {
    if (e.itemId === null) continue;
    let it = byItem.get(e.itemId);
    if (!it) {
      it = { id: e.itemId, title: '', lastEntryId: e.id, previous: {} };
      byItem.set(e.itemId, it);
    }
    it.lastEntryId = e.id;
    const d = e.details;
    if (e.action === 'item.deleted') {
      it.title = String(d.title ?? it.title);
      it.refusal = 'deleted by the batch: deletions are final';
    } else if (e.action === 'item.updated') {
      const changes = (d.changes ?? {}) as Record<string, FieldChange>;
      for (const [field, c] of Object.entries(changes)) if (!(field in it.previous)) it.previous[field] = c.from;
      if (typeof it.previous.title === 'string' && it.title === '') it.title = it.previous.title;
      // Entries written before the whole previous settings were kept list only the paths.
      if (Array.isArray(d.platformSettings) && !('platformSettings' in changes) && !it.refusal)
        it.refusal = 'its platform settings were changed before their previous values were kept in the log';
    } else if (!it.refusal) {
      it.refusal = `${e.action} cannot be undone here (only edits of title, description, status, hashtags and platform settings)`;
    }
  }
  return [...byItem.values()];
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The item's current value of a PATCH field, as planEdits reads it. */
function valueOf(item: ContentItem, field: string): unknown {
  const v = (item as Record<string, unknown>)[field];
  if (v !== undefined && v !== null) return v;
  return field === 'hashtags' ? [] : field === 'platformSettings' ? {} : field === 'description' ? '' : v;
}

/** `contentlib undo BATCH`: the result of each item of the batch. */
export async function runUndo(o: UndoOptions, deps: UndoDeps): Promise<BulkResult> {
  const entries = await runLog({ batchId: o.batchId, all: true }, { client: deps.client, signal: deps.signal });
  if (entries.length === 0)
    throw new NotFoundError(
      `No change of this brand's library has batch id ${o.batchId}.`,
      'List recent changes with: contentlib log --since 7d',
    );
  const items = itemsOfBatch(entries);
  const undoable = items.filter((i) => !i.refusal);
  if (undoable.length === 0 && items.every((i) => i.refusal?.startsWith('deleted')))
    throw new CliError(
      `Batch ${o.batchId} deleted ${items.length} item${items.length === 1 ? '' : 's'}: deletions are final and cannot be undone.`,
      {
        hint: 'contentlib log --batch ID lists what was deleted (titles, types); upload the files again to bring them back.',
        exitCode: EXIT.failure,
      },
    );
  const results: BulkItemResult[] = items
    .filter((i) => i.refusal)
    .map((i) => ({
      id: i.id,
      title: i.title,
      outcome: 'skipped',
      error: { code: 'not_undoable', message: i.refusal! },
    }));
  const plans: { id: string; title: string; patch: PatchRequest; changes: Record<string, FieldChange> }[] = [];
  for (const it of undoable) {
    let current: ContentItem;
    try {
      current = (await deps.client.get(it.id, { signal: deps.signal })).item;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      results.push({
        id: it.id,
        title: it.title,
        outcome: 'skipped',
        error: { code: 'not_found', message: 'deleted since the batch' },
      });
      continue;
    }
    const latest = (await deps.client.audit({ itemId: it.id, limit: 1 }, { signal: deps.signal })).entries[0];
    if (latest && latest.id > it.lastEntryId && !o.force) {
      const who = latest.keyName ?? latest.keyId ?? 'the server’s admin';
      results.push({
        id: it.id,
        title: current.title,
        outcome: 'skipped',
        error: {
          code: 'changed_since',
          message: `changed again after the batch (${latest.action} by ${who} at ${latest.at}); --force overwrites that change`,
        },
      });
      continue;
    }
    const patch: Record<string, unknown> = {};
    const changes: Record<string, FieldChange> = {};
    for (const [field, before] of Object.entries(it.previous)) {
      const now = valueOf(current, field);
      if (sameJson(now, before)) continue;
      patch[field] = before;
      changes[field] = { from: now, to: before };
    }
    if (Object.keys(patch).length === 0) results.push({ id: it.id, title: current.title, outcome: 'unchanged' });
    else plans.push({ id: it.id, title: current.title, patch: patch as PatchRequest, changes });
  }
  const refused = results.filter((r) => r.outcome === 'skipped');
  const note = refused.length
    ? `Not restored:\n${refused.map((r) => `  ${r.id}  ${r.title}: ${r.error!.message}`).join('\n')}`
    : undefined;
  const preview = formatPreview(
    deps.io,
    `Batch ${o.batchId}: ${plans.length} of ${items.length} item${items.length === 1 ? '' : 's'} would be restored:`,
    plans.map((p) => ({ id: p.id, title: p.title, what: describeChanges(p.changes) })),
    note,
  );
  const result = (batchId: string | null, done: BulkItemResult[]): BulkResult => ({
    batchId,
    dryRun: Boolean(o.dryRun),
    matched: items.length,
    items: [...done, ...results],
  });
  if (o.dryRun || plans.length === 0) {
    deps.io.stderr.write(preview);
    return result(
      null,
      plans.map((p) => ({ id: p.id, title: p.title, outcome: 'planned', changes: p.changes })),
    );
  }
  if (!o.yes) {
    if (!(await askToGoOn(deps.io, preview, `Restore ${plans.length === 1 ? 'it' : `all ${plans.length}`}?`)))
      throw new InterruptedError('Nothing was changed.');
  } else deps.io.stderr.write(preview);
  const batchId = (deps.newBatchId ?? randomUUID)();
  const done = await sendEach(
    plans,
    async (p) => {
      await deps.client.patch(p.id, p.patch, { signal: deps.signal, batchId });
      return 'changed';
    },
    (p) => ({ changes: p.changes }),
    deps.signal,
  );
  return result(batchId, done);
}

const UNDO_FIELDS = ['batchId', 'dryRun', 'matched', 'items'] as const;

/** `contentlib undo BATCH`. */
export async function undoCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  batch: string,
  opts: Omit<UndoOptions, 'batchId'>,
): Promise<void> {
  const sel = jsonSelection(globals, UNDO_FIELDS, 'undo');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const batchId = checkBatchId(batch);
  refuseWithoutTerminal(ctx.io, opts, 'undo a batch');
  const { client } = await openApi(ctx, globals, { writes: !opts.dryRun });
  const result = await runUndo({ ...opts, batchId }, { client, io: ctx.io, signal: ctx.signal });
  await printBulkResult(ctx.io, sel, result);
  const { line, error } = bulkOutcome(result, 'Restored');
  if (ctx.signal.aborted) throw new InterruptedError(`Interrupted: ${line}`);
  if (error) throw error;
  ctx.io.stderr.write(`${line}\n`);
}
