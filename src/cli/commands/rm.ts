// contentlib rm <id…>: deletes items for good. On a terminal it asks once, naming each item;
// without one it refuses unless --yes. It goes on past an id that fails and reports each.
import type { ApiClient } from '../../api/client.js';
import { ApiError, isHttpFailure, missingScopeOf } from '../../api/errors.js';
import type { ContentItem } from '../../api/schemas.js';
import { openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { describeError } from '../error-messages.js';
import { CliError, EXIT, InterruptedError, NotFoundError, PartialError, UsageError } from '../errors.js';
import { canPrompt } from '../io.js';
import { notInLibrary, parseIdInput, resolveItemId } from '../item-id.js';
import { RM_FIELDS, jsonSelection } from '../output/json.js';
import { type RmResult, confirmDeletion, printRmResults } from '../output/rm.js';
import { rmWhereCommand } from './bulk.js';

export interface RmDeps {
  client: Pick<ApiClient, 'get' | 'remove'>;
  /**
   * The whole id an argument stands for (a short id's item, src/cli/item-id.ts); throws
   * NotFoundError when none, UsageError when ambiguous. Without it, ids are used as given.
   */
  resolve?: (id: string) => Promise<string>;
  /** The library in words, for "Item … is not in …" (the service's own 404 text names its endpoints). */
  library?: string;
  /** Asks the person at the terminal; undefined when nobody can be asked. */
  confirm?: (items: readonly ContentItem[]) => Promise<boolean>;
  signal?: AbortSignal;
}

function failure(id: string, err: unknown, library = "this brand's library"): RmResult {
  if (err instanceof ApiError && err.status === 404)
    return {
      id,
      deleted: false,
      error: { status: 404, code: err.code, message: notInLibrary(id, library).message },
    };
  if (err instanceof ApiError)
    return { id, deleted: false, error: { status: err.status, code: err.code, message: err.message } };
  const { message } = describeError(err);
  return {
    id,
    deleted: false,
    error: { code: isHttpFailure(err) ? err.name : 'error', message: message.split('\n')[0]! },
  };
}

/** A 401, or a 403 for a scope the key lacks, is about the key, not the id: going on would only repeat it. */
function isFatal(err: unknown): boolean {
  return (err instanceof ApiError && err.status === 401) || missingScopeOf(err) !== undefined;
}

function refusal(): UsageError {
  return new UsageError(
    'Refusing to delete without confirmation: no terminal to ask on.',
    'Add --yes to delete without asking (deletion cannot be undone).',
  );
}

/** Deletes each id (after one confirmation when deps.confirm is given); returns one result per id. */
export async function runRm(ids: readonly string[], o: { yes?: boolean }, deps: RmDeps): Promise<RmResult[]> {
  const results = new Map<string, RmResult>();
  // Short ids first, all of them: an ambiguous one stops the command before anything is deleted;
  // one that matches nothing is reported as not found, like a whole id the service does not know.
  const given = [...new Set(ids)];
  const whole = new Map<string, string>();
  for (const id of given) {
    try {
      whole.set(id, deps.resolve ? await deps.resolve(id) : id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      results.set(id, { id, deleted: false, error: { code: 'not_found', message: err.message } });
    }
  }
  const unique = [...new Set(given.map((id) => whole.get(id) ?? id))];
  const known = new Map<string, ContentItem>();
  if (!o.yes) {
    if (!deps.confirm) throw refusal();
    for (const id of unique) {
      try {
        known.set(id, (await deps.client.get(id, { signal: deps.signal })).item);
      } catch (err) {
        if (isFatal(err) || deps.signal?.aborted) throw err;
        results.set(id, failure(id, err, deps.library));
      }
    }
    if (known.size > 0 && !(await deps.confirm([...known.values()])))
      throw new InterruptedError('Nothing was deleted.');
  }
  for (const id of unique) {
    if (results.has(id)) continue;
    if (deps.signal?.aborted) {
      results.set(id, { id, deleted: false, error: { code: 'interrupted', message: 'not attempted: interrupted' } });
      continue;
    }
    try {
      await deps.client.remove(id, { signal: deps.signal });
      const item = known.get(id);
      results.set(id, { id, deleted: true, ...(item ? { title: item.title, type: item.type } : {}) });
    } catch (err) {
      if (isFatal(err)) throw err;
      results.set(
        id,
        deps.signal?.aborted
          ? {
              id,
              deleted: false,
              error: {
                code: 'interrupted',
                message: 'interrupted while deleting: it may or may not be gone (check with contentlib show)',
              },
            }
          : failure(id, err, deps.library),
      );
    }
  }
  return unique.map((id) => results.get(id)!);
}

/** A failure because the id is not in the library: the service's 404, or a short id matching nothing. */
function isNotFound(r: RmResult): boolean {
  return !r.deleted && (r.error.status === 404 || r.error.code === 'not_found');
}

/** Exit: 0 all deleted, 3 some, 5 none because none exist, else 1 (reported per id already). */
export function rmOutcome(results: readonly RmResult[], library = "this brand's library"): Error | undefined {
  const failed = results.filter((r) => !r.deleted);
  if (failed.length === 0) return undefined;
  const n = results.length;
  if (failed.length < n)
    return new PartialError(`Deleted ${n - failed.length} of ${n} items; ${failed.length} failed (see above).`);
  if (failed.every(isNotFound)) {
    return new NotFoundError(
      `${failed.length === 1 ? 'That id is not' : 'None of those ids are'} in ${library}; nothing was deleted.`,
      'Check the ids with: contentlib ls',
    );
  }
  return new CliError(`None of the ${n} items could be deleted (see above).`, { exitCode: EXIT.failure });
}

/** `rm -`: ids from standard input, separated by white space (what `jq -r '.[].id'` prints). */
async function readIds(stdin: NodeJS.ReadableStream): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').split(/\s+/).filter(Boolean);
}

/** The ids named on the command line, `-` replaced by those read from stdin. */
export async function collectIds(args: readonly string[], stdin: NodeJS.ReadableStream): Promise<string[]> {
  if (!args.includes('-')) return [...args];
  const fromStdin = await readIds(stdin);
  return args.flatMap((a) => (a === '-' ? fromStdin : [a]));
}

/** `contentlib rm [ids...]`: asks once on a terminal, then deletes each id. */
export async function rmCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  args: string[],
  opts: { yes?: boolean; where?: string; dryRun?: boolean },
): Promise<void> {
  if (opts.where !== undefined) {
    if (args.length > 0)
      throw new UsageError(
        'Give ids or --where, not both.',
        "contentlib rm ID… deletes those items; contentlib rm --where 'status:failed' every match.",
      );
    return rmWhereCommand(ctx, globals, {
      where: opts.where,
      ...(opts.yes ? { yes: true } : {}),
      ...(opts.dryRun ? { dryRun: true } : {}),
    });
  }
  if (opts.dryRun)
    throw new UsageError(
      '--dry-run goes with --where: it shows which items a query would delete.',
      "For example: contentlib rm --where 'status:failed' --dry-run",
    );
  const sel = jsonSelection(globals, RM_FIELDS, 'rm');
  if (args.length === 0 && !opts.yes)
    throw new UsageError(
      'Name the ids of the items to delete (or - to read them from standard input).',
      'For example: contentlib rm 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11',
    );
  // Standard input holds the ids, so nobody can answer a question there.
  const canAsk = canPrompt(ctx.io) && !args.includes('-');
  // Refuse before opening anything (no embedded server start for a command that will not run).
  if (!opts.yes && !canAsk) throw refusal();
  const ids = await collectIds(args, ctx.io.stdin);
  // A script's empty list (`… | xargs contentlib rm --yes`, or rm --yes - with nothing piped)
  // is not a mistake: nothing to do.
  if (ids.length === 0) {
    ctx.io.stderr.write('Nothing to delete: no ids were given.\n');
    await printRmResults(ctx.io, sel, []);
    return;
  }
  // A malformed id is a usage error before anything is opened (exit 2).
  for (const id of ids) parseIdInput(id);
  const { client, target } = await openApi(ctx, globals, { writes: true });
  const results = await runRm(ids, opts, {
    client,
    resolve: (id) => resolveItemId(id, { client, signal: ctx.signal, library: target.label }),
    library: target.label,
    signal: ctx.signal,
    confirm: canAsk ? (items) => confirmDeletion(ctx.io, items) : undefined,
  });
  await printRmResults(ctx.io, sel, results);
  if (ctx.signal.aborted) {
    const done = results.filter((r) => r.deleted).length;
    throw new InterruptedError(`Interrupted: deleted ${done} of ${results.length} items (listed above).`);
  }
  // The embedded library has one brand: naming brands there only misleads.
  const outcome = rmOutcome(results, target.embedded ? target.label : undefined);
  if (outcome) throw outcome;
}
