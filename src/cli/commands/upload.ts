// contentlib upload <paths…>: files, folders and globs (or a --manifest) become items. Every
// file is checked first and every problem reported at once (exit 2, nothing sent); then the
// engine streams them with progress, retries and a journal that makes re-runs safe.
import type { ContentType, Status } from '../../rules/rules.js';
import { runUpload } from '../../upload/engine.js';
import type { UploadSummary } from '../../upload/events.js';
import { lockJournal } from '../../upload/journal-lock.js';
import { journalTargetId, openJournal } from '../../upload/journal.js';
import { type ItemMetadata, type UploadPlan, buildPlan, formatProblem, readyItems } from '../../upload/plan.js';
import { checkAppendTargets } from '../../upload/preflight.js';
import { interruptible, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { keyRejectedError, scopeRefusedError } from '../error-messages.js';
import { CliError, EXIT, InterruptedError, PartialError, RejectedFilesError, UsageError } from '../errors.js';
import { applyPlatformFlags, hashtagsFlag } from '../metadata-flags.js';
import { checkJq, formatJson, jsonSelection } from '../output/json.js';
import { createProgress, progressKind } from '../output/progress.js';
import { printPlan } from '../output/upload-plan.js';
import { reportRefusedPlanJson, reportSkipped } from '../output/upload-skips.js';

export interface UploadFlags {
  type?: ContentType;
  carousel?: boolean;
  to?: string;
  title?: string;
  description?: string;
  hashtags?: string;
  status?: Status;
  platform?: string[];
  manifest?: string;
  thumbnail?: string;
  concurrency: number;
  dryRun?: boolean;
  force?: boolean;
  strict?: boolean;
}

/** What the command did: the plan it printed (--dry-run), or the engine's summary. */
export type UploadResult = { kind: 'dry-run'; plan: UploadPlan } | { kind: 'uploaded'; summary: UploadSummary };

/** The metadata flags as the plan takes them; --platform and --hashtags parsed as `edit` does. */
export async function metadataFromFlags(f: UploadFlags): Promise<ItemMetadata> {
  const metadata: ItemMetadata = {};
  if (f.title !== undefined) metadata.title = f.title;
  if (f.description !== undefined) metadata.description = f.description;
  if (f.status !== undefined) metadata.status = f.status;
  if (f.hashtags !== undefined) metadata.hashtags = hashtagsFlag('--hashtags', f.hashtags);
  if (f.platform?.length)
    metadata.platformSettings = applyPlatformFlags({}, f.platform) as ItemMetadata['platformSettings'];
  return metadata;
}

/** Exit status from the outcome: 0 all done, 3 some not, 1 none (4 when the key was refused), 130 interrupted. */
export function outcomeError(summary: UploadSummary, baseUrl: string): CliError | undefined {
  // The summary above already said "Interrupted." and what was and was not created: once is enough.
  if (summary.interrupted) return new InterruptedError('');
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  const refused = () =>
    summary.missingScope !== undefined ? scopeRefusedError(baseUrl, summary.missingScope) : keyRejectedError(baseUrl);
  if (summary.keyRejected) return refused();
  const bad = summary.items.filter((o) => o.status === 'failed' || o.status === 'partial');
  if (bad.length === 0) return undefined;
  const something = summary.items.some((o) => o.status !== 'failed');
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  if (!something && bad.every((o) => o.keyRejected)) return refused();
  const hint = 'Fix what is listed above and run the same command again: what is done is skipped.';
  if (!something) {
    return new CliError(`${bad.length === 1 ? 'The item' : `All ${bad.length} items`} failed; nothing was created.`, {
      hint,
      exitCode: EXIT.failure,
    });
  }
  return new PartialError(`${bad.length} of ${summary.items.length} items were not fully uploaded.`, hint);
}

/** The API, the journal of its library, and the checks that need the service (--to). */
async function openTarget(plan: UploadPlan, flags: UploadFlags, ctx: CliContext, globals: GlobalOptions) {
  const { client, target } = await openApi(ctx, globals, { writes: true });
  const targetId = journalTargetId(target.library.where, target.library.who);
  // Another upload to this library first finishes; then its journal says what to skip.
  const lock = await lockJournal(ctx.paths.state, targetId, {
    sleep: ctx.sleep,
    signal: ctx.signal,
    onWait: (pid) =>
      ctx.io.stderr.write(`Waiting for another contentlib upload to this library (pid ${pid}) to finish…\n`),
  });
  ctx.onClose(() => lock.release());
  const journal = await openJournal(ctx.paths.state, targetId, ctx.now);
  ctx.onClose(() => journal.close());
  if (journal.warning) ctx.io.stderr.write(`Warning: ${journal.warning}\n`);

  const remote = await checkAppendTargets(
    plan.items.map((item) => ({
      contentItemId: item.contentItemId,
      source: item.source,
      // Counted only for --to (a journal lookup per file).
      newFiles:
        flags.force || !item.contentItemId
          ? item.files.length
          : item.files.filter((f) => journal.completedItem(f) !== item.contentItemId).length,
    })),
    client,
    ctx.signal,
  );
  if (remote.length > 0)
    throw new RejectedFilesError(
      remote,
      'Fix the carousel id (--to, or the manifest\'s "to") and run the command again.',
    );
  return { client, journal, baseUrl: target.baseUrl, target: target.info };
}

export async function runUploadCommand(
  paths: string[],
  flags: UploadFlags,
  ctx: CliContext,
  globals: GlobalOptions,
  cwd: string,
): Promise<UploadResult> {
  // Plain `contentlib upload` is a question, not a rejected file: answer with what to type.
  if (paths.length === 0 && !flags.manifest) {
    throw new UsageError(
      'Nothing to upload: name files, folders or globs (or --manifest FILE).',
      'For example: contentlib upload fixtures/demo   (more in contentlib upload --help)',
    );
  }
  const sel = jsonSelection(globals, undefined, 'upload');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const plan = await buildPlan(
    paths,
    {
      type: flags.type,
      carousel: flags.carousel,
      to: flags.to,
      metadata: await metadataFromFlags(flags),
      manifest: flags.manifest,
      thumbnail: flags.thumbnail,
      strict: flags.strict,
    },
    { cwd },
  );
  const skipOutput = sel ? 'json' : ctx.io.stderrIsTTY ? 'tty' : 'plain';
  // Every NDJSON line goes through --jq when it is given, these as the engine's events do.
  const line = (v: object) => formatJson(v, sel ?? {}, false);
  if (plan.problems.length > 0) {
    // Nothing is sent; say why where the caller looks: NDJSON on stdout with --json.
    if (sel) await reportRefusedPlanJson(ctx.io, plan, line);
    else await reportSkipped(ctx.io, skipOutput, plan.skipped);
    throw new RejectedFilesError(
      plan.problems.map(formatProblem),
      'Fix these and run the command again; see contentlib upload --help for the rules.',
    );
  }
  if (!sel) for (const w of plan.warnings) ctx.io.stderr.write(`Note: ${formatProblem(w)}\n`);
  if (flags.dryRun) {
    // --json prints one plan object, which lists the skipped files itself.
    if (!sel) await reportSkipped(ctx.io, skipOutput, plan.skipped);
    await printPlan(ctx.io, sel ? 'json' : ctx.io.stdoutIsTTY ? 'table' : 'plain', plan, sel);
    return { kind: 'dry-run', plan };
  }
  if (ctx.signal.aborted) throw new InterruptedError('Interrupted before anything was sent.');
  await reportSkipped(ctx.io, skipOutput, plan.skipped, line);

  const { client, journal, baseUrl, target } = await interruptible(
    ctx,
    () => openTarget(plan, flags, ctx, globals),
    'Interrupted before anything was uploaded.',
  );
  const progress = await createProgress(progressKind(ctx.io, Boolean(sel)), ctx.io, {
    target,
    ...(sel ? { json: sel } : {}),
    heartbeatMs: heartbeatMs(ctx.env),
  });
  let summary: UploadSummary;
  try {
    summary = await runUpload(
      { items: readyItems(plan) },
      {
        api: client,
        journal,
        concurrency: flags.concurrency,
        force: Boolean(flags.force),
        // Listed one by one only where someone reads them one by one: NDJSON, or a log with --verbose.
        reportSkippedFiles: Boolean(sel) || Boolean(globals.verbose),
        signal: ctx.signal,
        now: ctx.now,
        sleep: ctx.sleep,
        policy: retryPolicy(ctx.env),
      },
      (event) => progress.onEvent(event),
    );
  } catch (err) {
    // The bars must not be left on the screen (or the cursor hidden) when something unexpected breaks.
    await progress.stop().catch(() => {});
    // The engine reports every item's own failure in its summary; what it throws comes from
    // reading the journal and checking its items, before any transfer.
    if (ctx.signal.aborted) throw new InterruptedError('Interrupted before anything was uploaded.');
    throw err;
  }
  // What only the plan knows: which items were appended to an existing carousel, and what was skipped.
  for (const o of summary.items) if (plan.items[o.index]?.contentItemId) o.appended = true;
  summary.skippedFiles = plan.skipped.length;
  await progress.finish(summary);
  if (ctx.env.CONTENTLIB_REPORT_RSS)
    ctx.io.stderr.write(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  const failure = outcomeError(summary, baseUrl);
  if (failure) throw failure;
  return { kind: 'uploaded', summary };
}

/**
 * How often a log (no terminal) says how far each running transfer is: every 10 s, as rclone's
 * --stats does. CONTENTLIB_HEARTBEAT_MS shortens it for the end-to-end tests.
 */
export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const raw = env.CONTENTLIB_HEARTBEAT_MS;
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 10_000;
}

/** `contentlib upload [paths...]`, from the working directory. */
export async function uploadCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  paths: string[],
  opts: UploadFlags,
): Promise<void> {
  await runUploadCommand(paths, opts, ctx, globals, process.cwd());
}
