// contentlib log [ID]: the brand's audit log (an extension of contentlib serve, docs/api.md):
// who uploaded, changed or deleted what, and which keys were made and revoked. The API pages
// newest first; the latest --limit entries (or --all) are fetched and printed oldest first.
import type { ApiClient, AuditParams } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { AuditEntryWire } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import { interruptible, openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { extensionMissing } from '../error-messages.js';
import { parseSince } from '../flags.js';
import { UsageError } from '../errors.js';
import { BATCH_ID_PATTERN } from '../../api/headers.js';
import { parseIdInput, resolveItemId } from '../item-id.js';
import { LOG_FIELDS, checkJq, formatJson, jsonSelection } from '../output/json.js';
import { formatLog } from '../output/log.js';
import { outputMode, write } from '../output/mode.js';

export interface LogOptions {
  itemId?: string;
  keyId?: string;
  /** ISO time. */
  since?: string;
  /** One bulk change's entries (edit --where, rm --where, undo). */
  batchId?: string;
  /** The latest this many entries (default 50). */
  limit?: number;
  all?: boolean;
}

/** The latest entries that match, oldest first. */
export async function runLog(
  o: LogOptions,
  deps: { client: Pick<ApiClient, 'audit' | 'baseUrl'>; signal?: AbortSignal },
): Promise<AuditEntryWire[]> {
  const wanted = o.all ? Infinity : (o.limit ?? LIST_LIMITS.defaultLimit);
  const newestFirst: AuditEntryWire[] = [];
  let before: number | undefined;
  try {
    while (newestFirst.length < wanted) {
      const query: AuditParams = {
        ...(o.itemId !== undefined ? { itemId: o.itemId } : {}),
        ...(o.keyId !== undefined ? { keyId: o.keyId } : {}),
        ...(o.since !== undefined ? { since: o.since } : {}),
        ...(o.batchId !== undefined ? { batchId: o.batchId } : {}),
        ...(before !== undefined ? { before } : {}),
        limit: Math.min(LIST_LIMITS.maxLimit, wanted - newestFirst.length),
      };
      const page = await deps.client.audit(query, { signal: deps.signal });
      newestFirst.push(...page.entries.slice(0, wanted - newestFirst.length));
      if (page.nextBefore === null || page.entries.length === 0) break;
      before = page.nextBefore;
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw extensionMissing(
        deps.client.baseUrl,
        'an audit log',
        'Only contentlib serve keeps one; see what your service offers for auditing.',
      );
    throw err;
  }
  return newestFirst.reverse();
}

/** `contentlib log [id]`. */
export async function logCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string | undefined,
  opts: { key?: string; since?: string; batch?: string; limit?: number; all?: boolean },
): Promise<void> {
  if (opts.batch !== undefined && !BATCH_ID_PATTERN.test(opts.batch))
    throw new UsageError(
      `--batch "${opts.batch}" is not a batch id.`,
      'A batch id is printed by edit --where and rm --where, and in contentlib log --json (batchId).',
    );
  const sel = jsonSelection(globals, LOG_FIELDS, 'log');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const since = opts.since === undefined ? undefined : parseSince(ctx.now)(opts.since);
  // A malformed id is a usage error before anything is opened (exit 2). A whole id is asked for
  // as it is: the log outlives its items, so a deleted item's history is still there.
  if (id !== undefined) parseIdInput(id);
  const { client, target } = await openApi(ctx, globals);
  const itemId =
    id === undefined
      ? undefined
      : await interruptible(ctx, () => resolveItemId(id, { client, signal: ctx.signal, library: target.label }));
  const entries = await interruptible(ctx, () =>
    runLog(
      {
        ...(itemId !== undefined ? { itemId } : {}),
        ...(opts.key !== undefined ? { keyId: opts.key } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(opts.batch !== undefined ? { batchId: opts.batch } : {}),
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        ...(opts.all ? { all: true } : {}),
      },
      { client, signal: ctx.signal },
    ),
  );
  if (sel) return write(ctx.io.stdout, await formatJson(entries, sel));
  await write(ctx.io.stdout, formatLog(entries, outputMode(ctx.io, false), ctx.io.columns));
}
