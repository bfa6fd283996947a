// contentlib upload --watch FOLDERS…: a hot folder. First what is there is uploaded, then every
// file that appears or changes, once it has stopped growing for the settle time.
//
// The shape: the watcher's events only mark folders (src/upload/watch/watch-queue.ts); when a folder
// is due, its settled files that the journal does not know are picked (src/upload/watch/watch-pick.ts)
// and planned and sent by the same plan and engine as `upload DIR`. The journal and the
// library's content identity then make it exactly once, across restarts too: a restart is just
// the first look again. Memory holds the folders changed in the last moments and counters,
// never a record per file uploaded.
import type { PlatformId } from '../../rules/platforms.js';
import { basename, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { RetryPolicy } from '../../api/retry.js';
import { type EngineApi, runPlan } from '../../upload/send/engine.js';
import type { UploadSummary } from '../../upload/send/events.js';
import type { Journal } from '../../upload/send/journal.js';
import { openLockedLibrary } from './upload-library.js';
import { type UploadPlan, buildPlan, formatProblem, readyItems } from '../../upload/plan/plan.js';
import { shownPath } from '../../upload/plan/plan-inputs.js';
import { isPartialName } from '../../upload/watch/watch-names.js';
import { type Observations, pickNew } from '../../upload/watch/watch-pick.js';
import { createWatchQueue } from '../../upload/watch/watch-queue.js';
import { type WatchSource, watchFolders } from '../../upload/watch/watch-source.js';
import { retryPolicy } from '../api.js';

import type { CliContext, GlobalOptions } from '../context.js';
import { keyRejectedError, scopeRefusedError } from '../error-messages.js';
import { EXIT, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { type WatchLog, type WatchTotals, createWatchLog, emptyTotals } from '../output/watch-log.js';
import type { TargetInfo } from '../target.js';
import type { ItemMetadata } from '../../upload/plan/plan.js';
import type { ContentType } from '../../rules/rules.js';
import type { SkippedFile } from '../../upload/plan/skips.js';

/** Seconds a file must stay unchanged before it is sent, unless --settle says otherwise. */
export const DEFAULT_SETTLE_S = 3;
/** --poll's interval when none is given. */
export const DEFAULT_POLL_S = 5;

/** The upload flags a watch reads (src/cli/commands/upload.ts UploadFlags fits). */
export interface WatchFlags {
  type?: ContentType;
  split?: boolean;
  strict?: boolean;
  /** --for: a file a platform refuses is left out and reported, as any file breaking a rule. */
  for?: PlatformId[];
  concurrency: number;
  partConcurrency?: number;
  settle?: number;
  poll?: number | true;
  /** Refused with --watch (NOT_WITH_WATCH). */
  manifest?: string;
  to?: string;
  carousel?: boolean;
  thumbnail?: string;
  title?: string;
  dryRun?: boolean;
  force?: boolean;
}

export interface WatchOptions {
  paths: string[];
  flags: WatchFlags;
  /** The metadata flags (--description, --hashtags, --status, --platform), as upload reads them. */
  metadata: ItemMetadata;
  settleMs: number;
  /** --poll: look every pollMs instead of asking the system for events. */
  pollMs?: number;
  json: boolean;
  /** How often --json says it is alive. */
  heartbeatMs: number;
}

export interface WatchLibrary {
  api: EngineApi;
  journal: Journal;
  target: TargetInfo | null;
  baseUrl: string;
}

export interface WatchDeps {
  io: IO;
  open: () => Promise<WatchLibrary>;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ctrl-C: the watch stops, says what it did, and exits 0. */
  signal: AbortSignal;
  cwd: string;
  policy: RetryPolicy;
}

/** Flags that name one item or one plan, which a folder watched all day has no use for. */
const NOT_WITH_WATCH: Array<[keyof WatchFlags, string]> = [
  ['manifest', '--manifest'],
  ['to', '--to'],
  ['carousel', '--carousel'],
  ['thumbnail', '--thumbnail'],
  ['title', '--title'],
  ['dryRun', '--dry-run'],
  ['force', '--force'],
];

/** The folders to watch, absolute; a usage error for anything else. */
export function watchRoots(o: Pick<WatchOptions, 'paths' | 'flags'>, cwd: string): string[] {
  for (const [flag, name] of NOT_WITH_WATCH)
    if (o.flags[flag] !== undefined && o.flags[flag] !== false)
      throw new UsageError(
        `${name} does not combine with --watch.`,
        'A watched folder uploads each video as an item and each folder of images as a carousel; give titles in sidecars (<file>.json, carousel.json).',
      );
  if (o.paths.length === 0)
    throw new UsageError('--watch needs the folders to watch.', 'For example: contentlib upload --watch ~/Exports');
  return o.paths.map((p) => {
    const abs = resolve(cwd, p);
    if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`${p} is not a folder: --watch watches folders.`, 'Name the folder the files arrive in.');
    return abs;
  });
}

/**
 * Watches until Ctrl-C, then returns what it did. Throws for a refused key (exit 4): every
 * later upload would be refused too.
 */
export async function runWatch(o: WatchOptions, deps: WatchDeps): Promise<WatchTotals> {
  const roots = watchRoots(o, deps.cwd);
  const library = await deps.open();
  const clock = () => deps.now().getTime();
  const startedAt = clock();
  const log = createWatchLog(deps.io, { json: o.json, now: deps.now });
  const totals = emptyTotals();
  const queue = createWatchQueue({
    settleMs: o.settleMs,
    // A folder that never goes quiet (a card being copied) is still looked at now and then.
    maxWaitMs: Math.max(6 * o.settleMs, 10_000),
    startedAt,
  });
  let wake = () => {};
  const source = startSource(roots, o, deps, log, (path) => {
    if (isPartialName(basename(path))) return;
    queue.touch(path, clock());
    wake();
  });
  // The first look: everything under the folders, as `upload DIR` would (files still being
  // written wait for the settle time like any other).
  for (const root of roots) queue.later(root, startedAt, true);
  log.started({
    roots: roots.map((r) => shownPath(r, deps.cwd)),
    settleMs: o.settleMs,
    poll: o.pollMs !== undefined,
    target: library.target,
  });

  const seen: Observations = new Map();
  const reported = new Set<string>();
  let failStreak = 0;
  let nextBeat = startedAt + o.heartbeatMs;
  // Files seen that have not settled yet: still being written, or waiting for their settle time.
  const waiting = () => seen.size;
  try {
    while (!deps.signal.aborted) {
      const now = clock();
      const until = Math.min(queue.nextDue(), o.json ? nextBeat : Infinity);
      if (until > now) {
        await new Promise<void>((res) => {
          const timer = until === Infinity ? undefined : setTimeout(res, until - now);
          const done = () => {
            if (timer) clearTimeout(timer);
            deps.signal.removeEventListener('abort', done);
            res();
          };
          wake = done;
          deps.signal.addEventListener('abort', done);
        });
        wake = () => {};
        continue;
      }
      if (o.json && now >= nextBeat) {
        log.heartbeat({ waiting: waiting(), queued: queue.size });
        nextBeat = now + o.heartbeatMs;
      }
      const due = queue.takeDue(now);
      if (due.length === 0) continue;
      const picked = await pickNew(due, seen, {
        journal: library.journal,
        cwd: deps.cwd,
        settleMs: o.settleMs,
        quietSince: queue.quietSince,
        now: clock,
        split: Boolean(o.flags.split),
      });
      for (const l of picked.later) queue.later(l.path, l.at);
      reportSkippedOnce(picked.skipped, log, reported, totals);
      if (picked.paths.length === 0) continue;
      const batch = await sendBatch(picked.paths, o, deps, library, log, reported);
      if (!batch) continue;
      add(totals, batch.summary);
      if (batch.summary.keyRejected) {
        const exitCode = EXIT.auth;
        await log.finish({ totals, ms: clock() - startedAt, waiting: waiting(), exitCode, target: library.target });
        throw batch.summary.missingScope !== undefined
          ? scopeRefusedError(library.baseUrl, batch.summary.missingScope)
          : keyRejectedError(library.baseUrl);
      }
      // What failed (the service away, a file unreadable for a moment) is looked at again,
      // later each time while it keeps failing: the journal sends only what is still missing.
      if (batch.retry.length > 0 && !deps.signal.aborted) {
        failStreak++;
        const at = clock() + Math.min(60_000, 1000 * 2 ** Math.min(failStreak, 6));
        for (const folder of batch.retry) queue.later(folder, at);
      } else failStreak = 0;
    }
  } finally {
    source.current?.close();
  }
  await log.finish({
    totals,
    ms: clock() - startedAt,
    waiting: waiting(),
    exitCode: EXIT.ok,
    target: library.target,
  });
  return totals;
}

/** The system's events, or polling; if the system refuses (too many watches), polling from then on. */
function startSource(
  roots: string[],
  o: WatchOptions,
  deps: WatchDeps,
  log: WatchLog,
  onChange: (path: string) => void,
): { current?: WatchSource } {
  const holder: { current?: WatchSource } = {};
  const start = (pollMs: number | undefined) => {
    holder.current = watchFolders(roots, {
      poll: pollMs !== undefined,
      pollMs: pollMs ?? 0,
      onChange,
      onError: (err) => {
        if (pollMs !== undefined) return;
        log.onEvent({
          type: 'notice',
          message: `the system stopped reporting changes (${err.message}); polling instead`,
        });
        holder.current?.close();
        start(DEFAULT_POLL_S * 1000);
        // Whatever happened meanwhile is found by looking at everything once.
        for (const root of roots) onChange(root);
      },
    });
  };
  try {
    start(o.pollMs);
  } catch (err) {
    log.onEvent({ type: 'notice', message: `cannot watch for changes (${(err as Error).message}); polling instead` });
    start(DEFAULT_POLL_S * 1000);
  }
  return holder;
}

/** Plans the picked files as `upload` would (leaving out what breaks a rule) and sends what is new. */
async function sendBatch(
  paths: string[],
  o: WatchOptions,
  deps: WatchDeps,
  library: WatchLibrary,
  log: WatchLog,
  reported: Set<string>,
): Promise<{ summary: UploadSummary; retry: string[] } | undefined> {
  const f = o.flags;
  const plan = await buildPlan(
    paths,
    {
      ...(f.type ? { type: f.type } : {}),
      ...(f.split ? { split: true } : {}),
      ...(f.strict ? { strict: true } : {}),
      ...(f.for?.length ? { for: f.for } : {}),
      metadata: o.metadata,
      skipInvalid: true,
    },
    { cwd: deps.cwd },
  );
  reportLeftOut(plan, log, reported);
  if (plan.problems.length > 0 || plan.items.length === 0) return undefined;
  const summary = await runPlan(
    { items: readyItems(plan) },
    {
      api: library.api,
      journal: library.journal,
      // A hot folder on a network share, as scanning found: never read synchronously.
      ...(plan.stalls ? { stalls: true } : {}),
      concurrency: f.concurrency,
      ...(f.partConcurrency !== undefined ? { partConcurrency: f.partConcurrency } : {}),
      force: false,
      reportSkippedFiles: false,
      signal: deps.signal,
      now: deps.now,
      sleep: deps.sleep,
      policy: deps.policy,
    },
    (event) => log.onEvent(event),
  );
  const retry = new Set<string>();
  for (const item of summary.items) {
    if (item.status !== 'failed' && item.status !== 'partial' && item.status !== 'interrupted') continue;
    const first = plan.items[item.index]?.files[0];
    if (first) retry.add(resolve(first.path, '..'));
  }
  return { summary, retry: [...retry] };
}

/**
 * What the plan left out (a carousel of one image, a file that is not what its name says…), said
 * once per file version: the folder is looked at again on every change, the file is not news.
 */
function reportLeftOut(plan: UploadPlan, log: WatchLog, reported: Set<string>): void {
  // Bounded: a day of broken files must not grow memory without end.
  if (reported.size > 10_000) reported.clear();
  const once = (key: string, file: string, message: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    log.problem({ file, message });
  };
  for (const l of plan.leftOut) {
    const what = l.problems.map((p) => formatProblem(p)).join('; ');
    const stamp = l.paths.map((p) => `${p}:${statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0}`).join('|');
    once(`${stamp}#${what}`, l.source, what);
  }
  for (const p of plan.problems) once(`problem#${formatProblem(p)}`, p.file, formatProblem(p));
}

/** Each file passed over is said once per version (its size and time): a folder is looked at again on every change. */
function reportSkippedOnce(
  skipped: readonly SkippedFile[],
  log: WatchLog,
  reported: Set<string>,
  t: WatchTotals,
): void {
  if (reported.size > 10_000) reported.clear();
  for (const s of skipped) {
    const st = statSync(s.absPath ?? s.path, { throwIfNoEntry: false });
    const key = `skip#${s.absPath ?? s.path}:${st?.size ?? 0}:${st?.mtimeMs ?? 0}`;
    if (reported.has(key)) continue;
    reported.add(key);
    t.skipped++;
    log.skipped(s);
  }
}

function add(t: WatchTotals, s: UploadSummary): void {
  for (const item of s.items) {
    t.files += item.filesCompleted;
    t.inLibrary += item.filesInLibrary ?? 0;
    if (item.status === 'created' && item.appended) t.appended++;
    else if (item.status === 'created' && item.filesCompleted > 0) t.created++;
    if (item.status === 'failed' || item.status === 'partial')
      t.failed += item.filesTotal - item.filesCompleted - item.filesSkipped;
  }
  t.leftOut += s.leftOut ?? 0;
  t.bytesSent += s.bytesSent;
}

/** `contentlib upload --watch`: opens the library (its journal locked for as long as it watches) and watches. */
export async function watchCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  paths: string[],
  flags: WatchFlags,
  metadata: ItemMetadata,
): Promise<WatchTotals> {
  if (globals.jq !== undefined || globals.jsonFields !== undefined)
    throw new UsageError(
      '--jq and --json FIELDS do not combine with --watch.',
      'Use --json, and filter its lines with jq.',
    );
  const json = Boolean(globals.json);
  const raw = ctx.env.CONTENTLIB_HEARTBEAT_MS;
  const heartbeatMs = raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 60_000;
  return runWatch(
    {
      paths,
      flags,
      metadata,
      settleMs: Math.round((flags.settle ?? DEFAULT_SETTLE_S) * 1000),
      ...(flags.poll !== undefined
        ? { pollMs: Math.round((flags.poll === true ? DEFAULT_POLL_S : flags.poll) * 1000) }
        : {}),
      json,
      heartbeatMs,
    },
    {
      io: ctx.io,
      open: async () => {
        const { client, target, journal } = await openLockedLibrary(ctx, globals);
        return { api: client, journal, target: target.info, baseUrl: target.baseUrl };
      },
      now: ctx.now,
      sleep: ctx.sleep,
      signal: ctx.signal,
      cwd: ctx.cwd,
      policy: retryPolicy(ctx.env),
    },
  );
}
