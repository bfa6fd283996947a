// contentlib upload <paths…>: files, folders and globs (or a --manifest) become items. Every
// file is checked first and every problem reported at once (exit 2, nothing sent); then the
// engine streams them with progress, retries and a journal that makes re-runs safe.
import type { Command } from 'commander';
import { Option } from 'commander';
import { CONTENT_TYPES, STATUSES } from '../../rules/rules.js';
import type { ContentType, Status } from '../../rules/rules.js';
import type { UploadSummary } from '../../upload/events.js';
import type { ItemMetadata, UploadPlan } from '../../upload/plan.js';
import type { openApi as OpenApiFn } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import {
  CliError,
  EXIT,
  InterruptedError,
  PartialError,
  RejectedFilesError,
  UsageError,
  keyRejectedError,
} from '../errors.js';

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

export const MAX_CONCURRENCY = 16;

/** What the command did: the plan it printed (--dry-run), or the engine's summary. */
export type UploadResult = { kind: 'dry-run'; plan: UploadPlan } | { kind: 'uploaded'; summary: UploadSummary };

/** The metadata flags as the plan takes them; --platform and --hashtags parsed as `edit` does. */
export async function metadataFromFlags(f: UploadFlags): Promise<ItemMetadata> {
  const { applyPlatformSet, hashtagsFlag, parsePlatformFlag } = await import('./edit-flags.js');
  const metadata: ItemMetadata = {};
  if (f.title !== undefined) metadata.title = f.title;
  if (f.description !== undefined) metadata.description = f.description;
  if (f.status !== undefined) metadata.status = f.status;
  if (f.hashtags !== undefined) metadata.hashtags = hashtagsFlag('--hashtags', f.hashtags);
  if (f.platform?.length) {
    let settings: Record<string, unknown> = {};
    for (const flag of f.platform) settings = applyPlatformSet(settings, parsePlatformFlag(flag));
    metadata.platformSettings = settings as ItemMetadata['platformSettings'];
  }
  return metadata;
}

/** Exit status from the outcome: 0 all done, 3 some not, 1 none (4 when the key was refused), 130 interrupted. */
export function outcomeError(summary: UploadSummary, baseUrl: string): CliError | undefined {
  // The summary above already said "Interrupted." and what was and was not created: once is enough.
  if (summary.interrupted) return new InterruptedError('');
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  if (summary.keyRejected) return keyRejectedError(baseUrl);
  const bad = summary.items.filter((o) => o.status === 'failed' || o.status === 'partial');
  if (bad.length === 0) return undefined;
  const something = summary.items.some((o) => o.status !== 'failed');
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  if (!something && bad.every((o) => o.keyRejected)) return keyRejectedError(baseUrl);
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
async function openTarget(
  openApi: typeof OpenApiFn,
  plan: UploadPlan,
  flags: UploadFlags,
  ctx: CliContext,
  globals: GlobalOptions,
) {
  const { client, target } = await openApi(ctx, globals, { writes: true });
  const { journalTargetId, openJournal } = await import('../../upload/journal.js');
  const { lockJournal } = await import('../../upload/journal-lock.js');
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

  const { checkAppendTargets } = await import('../../upload/preflight.js');
  const remote = await checkAppendTargets(
    plan.items.map((item) => ({
      contentItemId: item.contentItemId,
      source: item.source,
      // Counted only for --to (a journal lookup per file).
      newFiles:
        flags.force || !item.contentItemId
          ? item.files.length
          : item.files.filter((f) => journal.findFile(f)?.itemId !== item.contentItemId).length,
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
  const { checkJq, jsonSelection } = await import('../output/json.js');
  const sel = jsonSelection(globals, undefined, 'upload');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const { buildPlan, formatProblem } = await import('../../upload/plan.js');
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
  const { reportRefusedPlanJson, reportSkipped } = await import('../output/upload-skips.js');
  const skipOutput = globals.json ? 'json' : ctx.io.stderrIsTTY ? 'tty' : 'plain';
  if (plan.problems.length > 0) {
    // Nothing is sent; say why where the caller looks: NDJSON on stdout with --json.
    if (globals.json) await reportRefusedPlanJson(ctx.io, plan);
    else await reportSkipped(ctx.io, skipOutput, plan.skipped);
    throw new RejectedFilesError(
      plan.problems.map(formatProblem),
      'Fix these and run the command again; see contentlib upload --help for the rules.',
    );
  }
  if (!sel) for (const w of plan.warnings) ctx.io.stderr.write(`Note: ${formatProblem(w)}\n`);
  if (flags.dryRun) {
    // --json prints one plan object, which lists the skipped files itself.
    if (!globals.json) await reportSkipped(ctx.io, skipOutput, plan.skipped);
    const { printPlan } = await import('../output/upload-plan.js');
    await printPlan(ctx.io, sel ? 'json' : ctx.io.stdoutIsTTY ? 'table' : 'plain', plan, sel);
    return { kind: 'dry-run', plan };
  }
  if (ctx.signal.aborted) throw new InterruptedError('Interrupted before anything was sent.');
  await reportSkipped(ctx.io, skipOutput, plan.skipped);

  const api = await import('../api.js');
  const { client, journal, baseUrl, target } = await api.interruptible(
    ctx,
    () => openTarget(api.openApi, plan, flags, ctx, globals),
    'Interrupted before anything was uploaded.',
  );
  const { runUpload } = await import('../../upload/engine.js');
  const { createProgress, progressKind } = await import('../output/progress.js');
  const progress = await createProgress(progressKind(ctx.io, Boolean(sel)), ctx.io, {
    target,
    ...(sel ? { json: sel } : {}),
    heartbeatMs: heartbeatMs(ctx.env),
  });
  let summary: UploadSummary;
  try {
    summary = await runUpload(
      plan,
      {
        api: client,
        journal,
        concurrency: flags.concurrency,
        force: Boolean(flags.force),
        signal: ctx.signal,
        now: ctx.now,
        sleep: ctx.sleep,
        policy: api.retryPolicy(ctx.env),
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

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * How often a log (no terminal) says how far each running transfer is: every 10 s, as rclone's
 * --stats does. CONTENTLIB_HEARTBEAT_MS shortens it for the end-to-end tests.
 */
export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const raw = env.CONTENTLIB_HEARTBEAT_MS;
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 10_000;
}

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(
      `--concurrency ${value} is not a whole number from 1 to ${MAX_CONCURRENCY}.`,
      'For example: --concurrency 4',
    );
  }
  return n;
}

export function registerUpload(program: Command, ctx: CliContext): Command {
  return program
    .command('upload')
    .description('upload videos and images: each video one item, the images of a folder one carousel')
    .argument('[paths...]', 'files, folders or globs (quote globs: "clips/*.mp4")')
    .addOption(new Option('--type <type>', 'make every item this type (checked strictly)').choices(CONTENT_TYPES))
    .option('--carousel', 'put all the given images into one carousel, wherever they are')
    .option('--to <id>', 'append the images to this existing carousel')
    .option('--title <text>', 'title of the item (one item only; use sidecars or --manifest for more)')
    .option('--description <text>', 'description')
    .option('--hashtags <list>', 'hashtags: "summer, #sale"')
    .addOption(new Option('--status <status>', 'status after upload (default: draft)').choices(STATUSES))
    .option('--platform <path=value>', 'a platform setting, e.g. youtube.visibility=private (repeatable)', collect)
    .option('--manifest <file>', 'a JSON list of items with their files and metadata (for CI)')
    .option('--thumbnail <image>', 'thumbnail image for a single video')
    .addOption(new Option('--concurrency <n>', 'files sent at once').default(4).argParser(parseConcurrency))
    .option('--dry-run', 'check everything and print the plan; send nothing')
    .option('--force', 'upload again what the journal says was uploaded before')
    .option('--strict', 'refuse the upload (exit 2) when a media file in a folder would be skipped (HEIC, GIF, …)')
    .addHelpText(
      'after',
      `
Rules: shortform is an mp4/mov of 3–90 s and at most 300 MB; longform a video up to 1 GB;
a carousel 2–10 jpeg/png/webp images of at most 20 MB. Every file is checked before a byte is sent.
Re-running the same command skips what was uploaded (a journal in the state directory).
Files in a folder that are not uploaded (HEIC, GIF, MKV, text, links leaving the folder) are listed
as skipped, with what to convert them to; --strict refuses the upload for any skipped media file.

Examples:
  contentlib upload fixtures/demo
  contentlib upload talk.mp4 --type longform --title "Keynote" --thumbnail cover.jpg --platform youtube.visibility=private
  contentlib upload --manifest release.json --json > upload-log.ndjson
  contentlib upload clips --jq 'select(.type == "summary") | .items[].id'`,
    )
    .action(async (paths: string[], opts: UploadFlags, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      await runUploadCommand(paths, opts, ctx, globals, process.cwd());
    });
}
