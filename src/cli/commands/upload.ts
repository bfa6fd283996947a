// contentlib upload <paths…>: files, folders and globs (or a --manifest) become items. Every
// file is checked first and every problem reported at once (exit 2, nothing sent); then the
// engine streams them with progress, retries and a journal that makes re-runs safe.
import { type PlatformId, TARGETS_KEY } from '../../rules/platforms.js';
import type { RetryPolicy } from '../../api/retry.js';
import type { ContentType, Status } from '../../rules/rules.js';
import { type EngineApi, runPlan } from '../../upload/send/engine.js';
import type { UploadSummary } from '../../upload/send/events.js';
import { readOutcomes } from '../../upload/send/outcomes.js';
import { type Journal, journalTargetId, openJournal } from '../../upload/send/journal.js';
import { openLockedLibrary } from './upload-library.js';
import { type Lookup, lookUp } from '../../upload/send/library-lookup.js';
import {
  type ItemMetadata,
  type PlanProblem,
  type UploadPlan,
  buildPlan,
  formatProblem,
  readyItems,
} from '../../upload/plan/plan.js';
import { existsSync } from 'node:fs';
import { openConfig } from '../../config/store.js';
import { resolveTarget } from '../../config/resolve.js';
import { messageOf } from '../../upload/send/failure.js';
import { checkAppendTargets } from '../../upload/send/preflight.js';
import { interruptible, libraryOf, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { describeError, keyRejectedError, scopeRefusedError } from '../error-messages.js';
import { CliError, EXIT, InterruptedError, PartialError, RejectedFilesError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { applyPlatformFlags, hashtagsFlag } from '../metadata-flags.js';
import { type JsonSelection, checkJq, formatJson, jsonSelection } from '../output/json.js';
import { createProgress, progressKind } from '../output/progress.js';
import type { ProgressListener } from '../output/progress-shared.js';
import { write } from '../output/mode.js';
import { emptySummary } from '../output/progress-json.js';
import { printPlan } from '../output/upload-plan.js';
import { reportLeftOut, reportRefusedPlanJson, reportSkipped } from '../output/upload-skips.js';
import type { TargetInfo } from '../target.js';

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
  /** Parts of one large file sent at once (a multipart upload); the engine's default when unset. */
  partConcurrency?: number;
  dryRun?: boolean;
  force?: boolean;
  /** Apply the local metadata's differences to items already in the library (else only report them). */
  updateMetadata?: boolean;
  strict?: boolean;
  skipInvalid?: boolean;
  split?: boolean;
  /** --for: the platforms every file must suit, checked before a byte is sent; kept as the items' targets. */
  for?: PlatformId[];
  /** --watch: keep watching the folders and upload what appears (./upload-watch.ts). */
  watch?: boolean;
  /** --settle SECONDS: how long a watched file must stay unchanged before it is sent. */
  settle?: number;
  /** --poll [SECONDS]: poll the watched folders instead of asking the system for events. */
  poll?: number | true;
}

/**
 * What the command did: the plan it printed (--dry-run), the plan it refused (nothing sent), or
 * the engine's summary and, when the outcome is not a success, the error it means for the exit
 * code (`outcomeError`). A refusal or a summary has said itself already (with --json, on stdout):
 * the caller only throws `error` / `failure`. What runUpload throws has been said nowhere.
 */
export type UploadResult =
  | { kind: 'dry-run'; plan: UploadPlan }
  | { kind: 'refused'; error: RejectedFilesError }
  | { kind: 'uploaded'; summary: UploadSummary; failure?: CliError };

/** The metadata flags as the plan takes them; --platform and --hashtags parsed as `edit` does. */
export async function metadataFromFlags(f: UploadFlags): Promise<ItemMetadata> {
  const metadata: ItemMetadata = {};
  if (f.title !== undefined) metadata.title = f.title;
  if (f.description !== undefined) metadata.description = f.description;
  if (f.status !== undefined) metadata.status = f.status;
  if (f.hashtags !== undefined) metadata.hashtags = hashtagsFlag('--hashtags', f.hashtags);
  if (f.platform?.length)
    metadata.platformSettings = applyPlatformFlags({}, f.platform) as ItemMetadata['platformSettings'];
  // The platforms an item is for, where check and browse's badges find them (docs/cli.md).
  if (f.for?.length)
    metadata.platformSettings = {
      ...metadata.platformSettings,
      [TARGETS_KEY]: { ...(metadata.platformSettings?.[TARGETS_KEY] as object | undefined), targets: f.for },
    } as ItemMetadata['platformSettings'];
  return metadata;
}

/**
 * Exit status from the outcome: 0 all done, 3 some not (or files left out by --skip-invalid), 1
 * none (4 when the key was refused), 130 interrupted.
 */
export function outcomeError(summary: UploadSummary, baseUrl: string): CliError | undefined {
  // The summary above already said "Interrupted." and what was and was not created: once is enough.
  if (summary.interrupted) return new InterruptedError('');
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  const refused = () =>
    summary.missingScope !== undefined ? scopeRefusedError(baseUrl, summary.missingScope) : keyRejectedError(baseUrl);
  if (summary.keyRejected) return refused();
  const f = readOutcomes(summary.items, 0);
  const bad = f.failedOrPartial.count;
  const leftOut = summary.leftOut ?? 0;
  if (bad === 0 && leftOut === 0) return undefined;
  if (bad === 0) {
    return new PartialError(
      `${leftOut} file${leftOut === 1 ? ' was' : 's were'} left out as invalid (listed above); the rest was uploaded.`,
      'Fix those files and run the same command again: what is done is skipped.',
    );
  }
  const { failed } = f.tally;
  const something = Object.values(f.tally).reduce((sum, n) => sum + n, 0) > failed;
  // Running it again will not help when the key itself is refused: say to log in (exit 4).
  if (!something && f.failedKeyRejected === failed) return refused();
  const hint = 'Fix what is listed above and run the same command again: what is done is skipped.';
  if (!something) {
    return new CliError(`${bad === 1 ? 'The item' : `All ${bad} items`} failed; nothing was created.`, {
      hint,
      exitCode: EXIT.failure,
    });
  }
  return new PartialError(`${bad} of ${summary.items.length} items were not fully uploaded.`, hint);
}

/** The library an upload writes to, opened only for a plan that is good to send. */
export interface OpenedLibrary {
  api: EngineApi;
  /** The service's base URL, for messages (a refused key names it). */
  baseUrl?: string;
  /** Its journal, locked for this run. */
  journal: Journal;
  /** Draws the engine's events: bars, plain lines or NDJSON. */
  progress: ProgressListener;
}

export interface UploadOptions extends UploadFlags {
  paths: string[];
  /** --json / --json FIELDS / --jq: NDJSON events, a JSON plan. */
  json?: JsonSelection;
  /** --verbose: list the files an earlier run uploaded one by one. */
  verbose?: boolean;
}

/** What a dry run asks of the library: its API (the check) and this machine's journal of it. */
export interface PeekedLibrary {
  api: Pick<EngineApi, 'check'>;
  journal?: Pick<Journal, 'completedItem'>;
}

export interface UploadDeps {
  io: IO;
  /**
   * For --dry-run: the library to ask which files it has already, read-only (no lock, no key
   * made); undefined when there is none to ask (an embedded library not created yet).
   */
  peek?: () => Promise<PeekedLibrary | undefined>;
  /**
   * Opens the library: its API, its journal and the progress renderer. Called once the plan is
   * good to send, never for a refused plan or --dry-run, so those touch no library at all.
   */
  open: () => Promise<OpenedLibrary>;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ctrl-C. */
  signal: AbortSignal;
  /** What relative paths are relative to. */
  cwd: string;
  policy: RetryPolicy;
  /** The library the command line names, for a summary written before it is opened (null: not known). */
  target?: () => TargetInfo | null;
}

/**
 * `contentlib upload`, without the process: plans (every problem reported at once, exit 2,
 * nothing sent), prints the plan for --dry-run, else opens the library, checks --to and sends.
 * Returns what happened; what the outcome means for the exit code is `outcomeError`'s.
 */
export async function runUpload(o: UploadOptions, deps: UploadDeps): Promise<UploadResult> {
  const { io } = deps;
  const sel = o.json;
  // Plain `contentlib upload` is a question, not a rejected file: answer with what to type.
  if (o.paths.length === 0 && !o.manifest) {
    throw new UsageError(
      'Nothing to upload: name files, folders or globs (or --manifest FILE).',
      'For example: contentlib upload fixtures/demo   (more in contentlib upload --help)',
    );
  }
  const startedAt = deps.now().getTime();
  const plan = await buildPlan(
    o.paths,
    {
      type: o.type,
      carousel: o.carousel,
      to: o.to,
      metadata: await metadataFromFlags(o),
      manifest: o.manifest,
      thumbnail: o.thumbnail,
      strict: o.strict,
      split: o.split,
      skipInvalid: o.skipInvalid,
      ...(o.for?.length ? { for: o.for } : {}),
    },
    { cwd: deps.cwd },
  );
  const say = sayingOf(plan, o, deps, startedAt);
  if (plan.problems.length > 0) {
    if (!sel) await reportSkipped(io, say.skipOutput, plan.skipped);
    return say.refuse(
      new RejectedFilesError(
        plan.problems.map(formatProblem),
        o.skipInvalid
          ? 'These are not about one file or item, so --skip-invalid cannot leave them out: fix them and run the command again.'
          : 'Fix these and run the command again (or add --skip-invalid to upload the rest); see contentlib upload --help for the rules.',
      ),
    );
  }
  if (!sel) for (const w of plan.warnings) io.stderr.write(`Note: ${formatProblem(w)}\n`);
  if (o.dryRun) {
    // --json prints one plan object, which lists the skipped and left-out files itself.
    if (!sel) {
      await reportSkipped(io, say.skipOutput, plan.skipped);
      await reportLeftOut(io, say.skipOutput, plan);
    }
    const lookup = await lookInLibrary(plan, o, deps);
    await printPlan(io, sel ? 'json' : io.stdoutIsTTY ? 'table' : 'plain', plan, sel, lookup);
    return { kind: 'dry-run', plan };
  }
  return sendPlan(plan, o, deps, say);
}

/** How a run says what it skipped and refused: as lines, on a terminal, or as NDJSON through --jq. */
function sayingOf(plan: UploadPlan, o: UploadOptions, deps: UploadDeps, startedAt: number) {
  const sel = o.json;
  // Every NDJSON line goes through --jq when it is given, these as the engine's events do.
  const line = (v: object) => formatJson(v, sel ?? {}, false);
  return {
    skipOutput: sel ? 'json' : deps.io.stderrIsTTY ? 'tty' : 'plain',
    line,
    /** Nothing is sent; says why where the caller looks (NDJSON on stdout with --json). */
    refuse: async (error: RejectedFilesError, problems = plan.problems) => {
      if (sel)
        await reportRefusedPlanJson(deps.io, { ...plan, problems }, line, {
          target: deps.target?.() ?? null,
          exitCode: error.exitCode,
          ms: deps.now().getTime() - startedAt,
        });
      return { kind: 'refused', error } as const;
    },
  } as const;
}

/** A good plan sent: the library opened, --to checked, the engine run, its summary finished. */
async function sendPlan(
  plan: UploadPlan,
  o: UploadOptions,
  deps: UploadDeps,
  say: ReturnType<typeof sayingOf>,
): Promise<UploadResult> {
  const { io } = deps;
  if (deps.signal.aborted) throw new InterruptedError('Interrupted before anything was sent.');
  await reportSkipped(io, say.skipOutput, plan.skipped, say.line);
  await reportLeftOut(io, say.skipOutput, plan, say.line);

  const opened = await interruptible(
    deps,
    async () => {
      const library = await deps.open();
      const problems = await checkAppendTo(plan, o, library, deps.signal);
      if (problems.length === 0) return { library };
      await library.progress.stop().catch(() => {});
      // The carousel's id is fine when only its room is short: then the hint says what fits.
      const full = problems.every((p) => p.rule === 'carousel-full');
      return {
        refused: await say.refuse(
          new RejectedFilesError(
            problems.map(formatProblem),
            full
              ? 'Append fewer images (the rest can go into a new carousel: leave out --to), and run the command again.'
              : 'Fix the carousel id (--to, or the manifest\'s "to") and run the command again.',
          ),
          problems,
        ),
      };
    },
    'Interrupted before anything was uploaded.',
  );
  if (opened.refused) return opened.refused;
  const { progress, baseUrl } = opened.library;
  const summary = await runEngine(plan, o, deps, opened.library);
  // What only the plan knows: what was skipped and left out; then what it all means for the
  // exit code, which the summary carries.
  summary.skippedFiles = plan.skipped.length;
  summary.leftOut = plan.leftOut.reduce((n, l) => n + l.paths.length, 0);
  const failure = outcomeError(summary, baseUrl ?? '');
  summary.exitCode = failure?.exitCode ?? EXIT.ok;
  await progress.finish(summary);
  return { kind: 'uploaded', summary, ...(failure ? { failure } : {}) };
}

/** The engine over the plan's ready items, drawing with the library's progress renderer. */
async function runEngine(
  plan: UploadPlan,
  o: UploadOptions,
  deps: UploadDeps,
  { api, journal, progress }: OpenedLibrary,
): Promise<UploadSummary> {
  try {
    return await runPlan(
      { items: readyItems(plan) },
      {
        api,
        journal,
        // Files on a network share or a FUSE mount, as scanning found: never read synchronously.
        ...(plan.stalls ? { stalls: true } : {}),
        concurrency: o.concurrency,
        ...(o.partConcurrency !== undefined ? { partConcurrency: o.partConcurrency } : {}),
        force: Boolean(o.force),
        updateMetadata: Boolean(o.updateMetadata),
        // Listed one by one only where someone reads them one by one: NDJSON, or a log with --verbose.
        reportSkippedFiles: Boolean(o.json) || Boolean(o.verbose),
        signal: deps.signal,
        now: deps.now,
        sleep: deps.sleep,
        policy: deps.policy,
      },
      (event) => progress.onEvent(event),
    );
  } catch (err) {
    // The bars must not be left on the screen (or the cursor hidden) when something unexpected breaks.
    await progress.stop().catch(() => {});
    // The engine reports every item's own failure in its summary; what it throws comes from
    // reading the journal and checking its items, before any transfer.
    if (deps.signal.aborted) throw new InterruptedError('Interrupted before anything was uploaded.');
    throw err;
  }
}

/**
 * --dry-run: what the library has of each planned item already (as which item), when there is a
 * library to ask; a library that cannot be reached is said once and the plan shown without it.
 */
async function lookInLibrary(plan: UploadPlan, o: UploadOptions, deps: UploadDeps): Promise<Lookup | undefined> {
  if (!deps.peek || o.force) return undefined;
  try {
    const library = await deps.peek();
    if (!library) return undefined;
    return await lookUp(readyItems(plan), library.api, library.journal, deps.signal);
  } catch (err) {
    if (deps.signal.aborted) throw new InterruptedError('Interrupted; nothing was sent.');
    if (!o.json)
      deps.io.stderr.write(`Note: could not ask the library which files it has already: ${messageOf(err)}\n`);
    return undefined;
  }
}

/** --to (or a manifest's "to"): the carousel exists, is one, and has room; checked before a byte is sent. */
async function checkAppendTo(
  plan: UploadPlan,
  o: UploadOptions,
  library: OpenedLibrary,
  signal: AbortSignal,
): Promise<PlanProblem[]> {
  return checkAppendTargets(
    plan.items.map((item) => ({
      contentItemId: item.contentItemId,
      source: item.source,
      // Counted only for --to (a journal lookup per file).
      newFiles:
        o.force || !item.contentItemId
          ? item.files.length
          : item.files.filter((f) => library.journal.completedItem(f) !== item.contentItemId).length,
    })),
    library.api,
    signal,
  );
}

/**
 * How often a log (no terminal) says how far each running transfer is: every 10 s, as rclone's
 * --stats does. CONTENTLIB_HEARTBEAT_MS shortens it for the end-to-end tests.
 */
export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const raw = env.CONTENTLIB_HEARTBEAT_MS;
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 10_000;
}

/**
 * The library of the command's target (./upload-library.ts: its API and locked journal) and the
 * renderer the output calls for. Everything is closed through ctx.onClose.
 */
async function openLibrary(ctx: CliContext, globals: GlobalOptions, sel: JsonSelection | undefined) {
  const { client, target, journal } = await openLockedLibrary(ctx, globals);
  const progress = await createProgress(progressKind(ctx.io, Boolean(sel)), ctx.io, {
    target: target.info,
    ...(sel ? { json: sel } : {}),
    heartbeatMs: heartbeatMs(ctx.env),
  });
  return { api: client, journal, progress, baseUrl: target.baseUrl, target: target.info };
}

/**
 * The library a dry run asks, read-only: its API and its journal (not locked: only read). An
 * embedded library that does not exist yet holds nothing, and is not created for a dry run.
 */
async function peekLibrary(ctx: CliContext, globals: GlobalOptions): Promise<PeekedLibrary | undefined> {
  const resolved = resolveTarget(globals, ctx.env, openConfig(ctx.paths.config).read());
  if (resolved.kind === 'embedded' && !existsSync(ctx.paths.data)) return undefined;
  const { client, target } = await openApi(ctx, globals);
  const journal = await openJournal(
    ctx.paths.state,
    journalTargetId(target.library.where, target.library.who),
    ctx.now,
  );
  ctx.onClose(() => journal.close());
  return { api: client, journal };
}

/** `contentlib upload [paths...]`: opens what runUpload needs and reports its outcome. */
export async function uploadCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  paths: string[],
  flags: UploadFlags,
): Promise<UploadResult | { kind: 'watched' }> {
  // A hot folder is its own loop over the same plan, engine and journal.
  if (flags.watch) {
    const { watchCommand } = await import('./upload-watch.js');
    await watchCommand(ctx, globals, paths, flags, await metadataFromFlags(flags));
    return { kind: 'watched' };
  }
  if (flags.settle !== undefined || flags.poll !== undefined)
    throw new UsageError(
      `${flags.settle !== undefined ? '--settle' : '--poll'} goes with --watch.`,
      'For example: contentlib upload --watch ~/Exports --settle 5',
    );
  const json = jsonSelection(globals, undefined, 'upload');
  let targetInfo: TargetInfo | null = null;
  let result: UploadResult;
  try {
    if (json?.jq !== undefined) await checkJq(json.jq);
    result = await runUpload(
      { ...flags, paths, ...(json ? { json } : {}), verbose: Boolean(globals.verbose) },
      {
        io: ctx.io,
        peek: () => peekLibrary(ctx, globals),
        open: async () => {
          const library = await openLibrary(ctx, globals, json);
          targetInfo = library.target;
          return library;
        },
        now: ctx.now,
        sleep: ctx.sleep,
        signal: ctx.signal,
        cwd: ctx.cwd,
        policy: retryPolicy(ctx.env),
        target: () => (targetInfo ??= describeTarget(ctx, globals)),
      },
    );
  } catch (err) {
    // With --json, stdout says what happened in every run: what runUpload throws has not said
    // so there (no remote in CI, a missing key, a journal that cannot be opened…), so it ends
    // with an `error` event and a summary, as a refused plan does.
    if (json) await reportErrorJson(ctx.io, err, json, targetInfo ?? describeTarget(ctx, globals));
    throw err;
  }
  // A refusal and a summary have said themselves; what they mean for the exit code is left.
  if (result.kind === 'refused') throw result.error;
  if (result.kind === 'uploaded' && result.failure) throw result.failure;
  if (result.kind === 'uploaded' && ctx.env.CONTENTLIB_REPORT_RSS)
    ctx.io.stderr.write(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  return result;
}

/** The error event and the summary of a run that stopped before its items could be reported. */
async function reportErrorJson(io: IO, err: unknown, sel: JsonSelection, target: TargetInfo | null): Promise<void> {
  const { message, exitCode } = describeError(err);
  const line = (v: object) => formatJson(v, sel, false);
  await write(io.stdout, await line({ type: 'error', exitCode, message }));
  await write(io.stdout, await line(emptySummary({ target, exitCode, refused: exitCode !== EXIT.interrupted })));
}

/** The library the command line names, as the NDJSON `target`, without opening it; null when it cannot be told. */
function describeTarget(ctx: CliContext, globals: GlobalOptions): TargetInfo | null {
  try {
    return libraryOf(ctx, globals).info;
  } catch {
    return null;
  }
}
