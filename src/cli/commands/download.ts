// contentlib download ID… [-o DIR] [-O FILE|-]: an item's files out of the library. A video is
// written as its file name, a carousel as a folder of its images named by position (01-…, 02-…)
// so that name order is carousel order. Each file streams to a part file beside it, is checked
// (size, SHA-256 where the library knows it) and renamed into place; a broken transfer resumes
// with Range (src/download/fetch.ts). Files already there are an error unless --skip-existing
// or --clobber, checked before anything is fetched (as gh release download does).
import { isAbsolute, join, relative, resolve, dirname } from 'node:path';
import type { Writable } from 'node:stream';
import type { ApiClient } from '../../api/client.js';
import { ApiError, isHttpFailure } from '../../api/errors.js';
import type { RetryPolicy } from '../../api/retry.js';
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { HashError, MismatchError } from '../../download/errors.js';
import type { EmitFn, FileRef } from '../../download/events.js';
import { type Fetched, fetchToFile, fetchToStream, sizeOnDisk } from '../../download/fetch.js';
import { type ItemFile, downloadFolder, mediaFiles } from '../../download/item-files.js';
import { foldName, numbered, partName } from '../../download/names.js';
import { makeDir } from '../../fs/make-dir.js';
import type { ContentType } from '../../rules/rules.js';
import { formatBytes } from '../../rules/rules.js';
import { createPool } from '../../concurrency/pool.js';
import { interruptible, openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { describeError } from '../error-messages.js';
import { CliError, EXIT, InterruptedError, NotFoundError, PartialError, UsageError } from '../errors.js';
import { createTransferProgress, heartbeatMs } from '../output/download-progress.js';
import { notInLibrary, parseIdInput, resolveItemId } from '../item-id.js';
import { checkJq, formatJson, jsonSelection } from '../output/json.js';
import { progressKind } from '../output/progress.js';
import { formatMs } from '../output/progress-shared.js';

export interface DownloadOptions {
  ids: readonly string[];
  /** -o DIR: where files go (absolute). */
  dir: string;
  /** -O FILE: the one file to this path (absolute), or '-' for stdout. */
  output?: string;
  skipExisting?: boolean;
  clobber?: boolean;
  concurrency: number;
}

export interface DownloadDeps {
  api: Pick<ApiClient, 'get' | 'http'>;
  emit: EmitFn;
  /** Where `-O -` writes. */
  stdout: Writable;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  policy: RetryPolicy;
  signal: AbortSignal;
  clock?: () => number;
  /** Paths are shown relative to this folder. */
  cwd: string;
  /**
   * The whole id an argument stands for (a short id's item, src/cli/item-id.ts); throws
   * NotFoundError when none, UsageError when ambiguous. Without it, ids are used as given.
   */
  resolve?: (id: string) => Promise<string>;
  /** The library in words, for "Item … is not in …"; "this brand's library" when not given. */
  library?: string;
}

export interface FileResult {
  path: string;
  shown: string;
  size?: number;
  sha256?: string;
  outcome: 'downloaded' | 'skipped' | 'failed' | 'interrupted';
  message?: string;
}

export interface ItemResult {
  id: string;
  type?: ContentType;
  title?: string;
  files: FileResult[];
  error?: { status?: number; code: string; message: string };
}

export interface DownloadResult {
  items: ItemResult[];
  bytes: number;
  interrupted: boolean;
}

/** One file to fetch and where it goes. */
interface Planned {
  item: ContentItem;
  file: ItemFile;
  /** Absolute destination, or '-' for stdout. */
  dest: string;
  result: FileResult;
}

function checkOptions(o: DownloadOptions): void {
  if (o.ids.length === 0)
    throw new UsageError(
      'Name the ids of the items to download.',
      'For example: contentlib download 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 -o media/',
    );
  if (o.skipExisting && o.clobber)
    throw new UsageError(
      '--skip-existing and --clobber contradict each other.',
      'Choose one: --skip-existing keeps files already there, --clobber replaces them.',
    );
  if (o.output !== undefined && new Set(o.ids).size > 1)
    throw new UsageError('-O writes one file; several ids were given.', 'Use -o DIR to download several items.');
}

/** Looks up each id; a 401 stops everything, any other failure is that id's. */
async function resolveItems(ids: readonly string[], deps: DownloadDeps) {
  const found: Array<{ item: ContentItem; files: CarouselFile[]; result: ItemResult }> = [];
  const results: ItemResult[] = [];
  // Short ids first, all of them: an ambiguous one stops the command before any file is written.
  const whole = new Map<string, string | NotFoundError>();
  for (const id of new Set(ids)) {
    try {
      whole.set(id, deps.resolve ? await deps.resolve(id) : id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      whole.set(id, err);
    }
  }
  for (const [given, resolved] of whole) {
    const id = typeof resolved === 'string' ? resolved : given;
    if (results.some((r) => r.id === id)) continue; // a short id and its whole id: once
    const result: ItemResult = { id, files: [] };
    results.push(result);
    try {
      if (typeof resolved !== 'string') throw resolved;
      const { item, files } = await deps.api.get(id, { signal: deps.signal });
      Object.assign(result, { type: item.type, title: item.title });
      found.push({ item, files, result });
    } catch (err) {
      if ((err instanceof ApiError && err.status === 401) || deps.signal.aborted) throw err;
      result.error = errorOf(err, id, deps.library);
      deps.emit({ type: 'failed', itemId: id, message: result.error.message, code: result.error.code });
    }
  }
  return { found, results };
}

function errorOf(
  err: unknown,
  id?: string,
  library = "this brand's library",
): { status?: number; code: string; message: string } {
  // Not there: said as every command says it, never in the API's words (they name its endpoints).
  if (err instanceof NotFoundError) return { status: 404, code: 'not_found', message: err.message };
  if (err instanceof ApiError && err.status === 404 && id !== undefined)
    return { status: 404, code: err.code, message: notInLibrary(id, library).message };
  if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
  const message = describeError(err).message.split('\n')[0]!;
  return {
    code: isHttpFailure(err)
      ? err.name
      : err instanceof MismatchError
        ? `${err.kind}_mismatch`
        : err instanceof HashError
          ? 'hash_failed'
          : 'error',
    message,
  };
}

function shownOf(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Each file of each item with its destination; two files bound for one path are a usage error. */
function planFiles(
  found: Awaited<ReturnType<typeof resolveItems>>['found'],
  o: DownloadOptions,
  cwd: string,
): Planned[] {
  const planned: Planned[] = [];
  for (const { item, files, result } of found) {
    const folder = downloadFolder(item);
    for (const file of mediaFiles(item, files)) {
      const dest =
        o.output === '-' ? '-' : (o.output ?? (folder ? join(o.dir, folder, file.name) : join(o.dir, file.name)));
      const fileResult: FileResult = {
        path: dest,
        shown: dest === '-' ? 'stdout' : shownOf(dest, cwd),
        ...(file.size !== undefined ? { size: file.size } : {}),
        outcome: 'failed',
      };
      result.files.push(fileResult);
      planned.push({ item, file, dest, result: fileResult });
    }
  }
  if (o.output !== undefined && planned.length > 1) {
    const item = planned[0]!.item;
    throw new UsageError(
      `-O writes one file; ${item.id} is a carousel of ${planned.length} images.`,
      `Download it into a folder instead: contentlib download ${item.id} -o DIR`,
    );
  }
  const seen = new Map<string, string>();
  const folded = new Set<string>();
  for (const p of planned) {
    if (p.dest === '-') continue;
    const other = seen.get(p.dest);
    if (other && other !== p.item.id)
      throw new UsageError(
        `Two items would be written to ${p.result.shown} (${other} and ${p.item.id}).`,
        'Download them into separate folders, one command each with -o DIR.',
      );
    seen.set(p.dest, p.item.id);
    // Names that differ only in case are one file on Windows and macOS: the later one is
    // numbered, `Clip (2).mp4` (the rule of src/download/names.ts, portableNames).
    let dest = p.dest;
    for (let n = 2; folded.has(foldName(dest)); n++) dest = numbered(p.dest, n);
    folded.add(foldName(dest));
    if (dest !== p.dest) {
      p.dest = dest;
      Object.assign(p.result, { path: dest, shown: shownOf(dest, cwd) });
    }
  }
  return planned;
}

/** Files already there: skipped (--skip-existing, same size), replaced (--clobber), else an error before any transfer. */
async function checkExisting(planned: Planned[], o: DownloadOptions, deps: DownloadDeps): Promise<Planned[]> {
  const todo: Planned[] = [];
  const inTheWay: string[] = [];
  for (const p of planned) {
    const size = p.dest === '-' ? undefined : await sizeOnDisk(p.dest);
    if (size === undefined || o.clobber) {
      todo.push(p);
      continue;
    }
    if (!o.skipExisting) {
      inTheWay.push(p.result.shown);
      continue;
    }
    const ref = refOf(p);
    if (p.file.size === undefined || size === p.file.size) {
      p.result.outcome = 'skipped';
      deps.emit({ type: 'skipped', file: ref, reason: 'already there (--skip-existing)' });
    } else {
      p.result.message = `already there with ${formatBytes(size)}, not the library's ${formatBytes(p.file.size)}; use --clobber to replace it`;
      deps.emit({ type: 'failed', file: ref, itemId: p.item.id, message: p.result.message, code: 'exists' });
    }
  }
  if (inTheWay.length > 0)
    throw new CliError(
      `${inTheWay.length === 1 ? `${inTheWay[0]} already exists` : `${inTheWay.length} files already exist: ${inTheWay.join(', ')}`}; nothing was downloaded.`,
      { hint: 'Use --skip-existing to keep them, or --clobber to replace them.', exitCode: EXIT.failure },
    );
  return todo;
}

function refOf(p: Planned): FileRef {
  return {
    path: p.dest,
    shown: p.result.shown,
    ...(p.file.size !== undefined ? { size: p.file.size } : {}),
    itemId: p.item.id,
    role: p.file.role,
  };
}

/** Fetches one planned file, reporting as it goes; never throws (its result says what happened). */
async function fetchOne(p: Planned, deps: DownloadDeps, tally: { bytes: number }): Promise<void> {
  const ref = refOf(p);
  const fetchDeps = {
    http: deps.api.http,
    policy: deps.policy,
    sleep: deps.sleep,
    now: deps.now,
    signal: deps.signal,
    ...(deps.clock ? { clock: deps.clock } : {}),
    refreshUrl: async () => freshUrl(p, deps),
    // A download computes the SHA-256 only to check it against the library's (export records it).
    hash: false,
    onStart: (from: number) => deps.emit({ type: 'started', file: ref, from }),
    onProgress: (have: number) => deps.emit({ type: 'progress', file: ref, have }),
    onRetry: ({ attempt, delayMs, error, from }: { attempt: number; delayMs: number; error: unknown; from: number }) =>
      deps.emit({ type: 'retrying', file: ref, attempt, delayMs, reason: errorOf(error).message, from }),
  };
  const remote = {
    url: p.file.url,
    ...(p.file.size !== undefined ? { size: p.file.size } : {}),
    ...(p.file.sha256 ? { sha256: p.file.sha256 } : {}),
  };
  try {
    let fetched: Fetched;
    if (p.dest === '-') fetched = await fetchToStream(remote, deps.stdout, fetchDeps, 'stdout');
    else {
      await makeDir(dirname(p.dest), 0o755);
      fetched = await fetchToFile(
        remote,
        p.dest,
        partName(p.dest, `${p.item.id}/${p.file.source}/${p.file.size ?? ''}`),
        fetchDeps,
      );
    }
    tally.bytes += fetched.bytes - fetched.resumedFrom;
    Object.assign(p.result, {
      outcome: 'downloaded',
      size: fetched.bytes,
      ...(fetched.sha256 ? { sha256: fetched.sha256 } : {}),
    });
    deps.emit({
      type: 'downloaded',
      file: ref,
      bytes: fetched.bytes,
      ...(fetched.sha256 ? { sha256: fetched.sha256 } : {}),
      resumedFrom: fetched.resumedFrom,
      ms: fetched.ms,
    });
  } catch (err) {
    if (deps.signal.aborted) {
      p.result.outcome = 'interrupted';
      p.result.message = 'interrupted; run the same command again to resume';
      return;
    }
    const { code, message } = errorOf(err);
    p.result.message =
      err instanceof MismatchError
        ? `${message}; the partial file was removed`
        : p.dest === '-'
          ? message
          : `${message}; run the same command again to resume`;
    deps.emit({ type: 'failed', file: ref, itemId: p.item.id, message: p.result.message, code });
  }
}

/** A fresh signed URL for a planned file (its old one expired): the item fetched again. */
async function freshUrl(p: Planned, deps: DownloadDeps): Promise<string> {
  const { item, files } = await deps.api.get(p.item.id, { signal: deps.signal });
  const again = mediaFiles(item, files).find((f) => f.source === p.file.source);
  if (!again) throw new Error(`${p.result.shown} is no longer part of item ${p.item.id}`);
  return again.url;
}

/** Resolves the ids, plans every file, checks what is in the way, then fetches `concurrency` at a time. */
export async function runDownload(o: DownloadOptions, deps: DownloadDeps): Promise<DownloadResult> {
  checkOptions(o);
  const { found, results } = await resolveItems(o.ids, deps);
  const planned = planFiles(found, o, deps.cwd);
  const todo = await checkExisting(planned, o, deps);
  const pool = createPool(o.concurrency, deps.signal);
  const tally = { bytes: 0 };
  await Promise.all(
    todo.map((p) =>
      pool
        .run(() => fetchOne(p, deps, tally))
        .catch(() => {
          p.result.outcome = 'interrupted';
        }),
    ),
  );
  return { items: results, bytes: tally.bytes, interrupted: deps.signal.aborted };
}

/** Exit status: 0 all there, 5 when every id is unknown, 3 some, 1 none, 130 interrupted. */
export function downloadOutcome(result: DownloadResult, library?: string): Error | undefined {
  if (result.interrupted)
    return new InterruptedError('Interrupted; run the same command again to resume where it stopped.');
  const files = result.items.flatMap((i) => i.files);
  const bad = result.items.filter((i) => i.error || i.files.some((f) => f.outcome === 'failed'));
  if (bad.length === 0) return undefined;
  if (result.items.every((i) => i.error?.status === 404)) {
    const n = result.items.length;
    const where = library ?? "this brand's library";
    return new NotFoundError(
      n === 1
        ? `${result.items[0]!.error!.message.replace(/\.$/, '')}; nothing was downloaded.`
        : `None of those ids is in ${where}; nothing was downloaded.`,
      'Check the ids with: contentlib ls',
    );
  }
  const good = files.filter((f) => f.outcome !== 'failed').length;
  if (good === 0) return new CliError('Nothing was downloaded (see above).', { exitCode: EXIT.failure });
  return new PartialError(
    `${bad.length} of ${result.items.length} items were not fully downloaded (see above).`,
    'Run the same command again: files already there are checked and kept with --skip-existing.',
  );
}

function summaryLines(result: DownloadResult, ms: number): string[] {
  const files = result.items.flatMap((i) => i.files);
  const n = (outcome: FileResult['outcome']) => files.filter((f) => f.outcome === outcome).length;
  const parts = [`${n('downloaded')} file${n('downloaded') === 1 ? '' : 's'} downloaded`];
  if (n('skipped')) parts.push(`${n('skipped')} already there`);
  if (n('failed')) parts.push(`${n('failed')} failed`);
  return [`${parts.join(', ')}; ${formatBytes(result.bytes)} in ${formatMs(ms)}.`];
}

export interface DownloadFlags {
  output?: string;
  outputFile?: string;
  skipExisting?: boolean;
  clobber?: boolean;
  concurrency: number;
}

/** `contentlib download ID… [-o DIR] [-O FILE|-]`. */
export async function downloadCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  ids: string[],
  flags: DownloadFlags,
): Promise<void> {
  const sel = jsonSelection(globals, undefined, 'download');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const cwd = process.cwd();
  const options: DownloadOptions = {
    ids,
    dir: resolve(cwd, flags.output ?? '.'),
    ...(flags.outputFile !== undefined
      ? { output: flags.outputFile === '-' ? '-' : resolve(cwd, flags.outputFile) }
      : {}),
    skipExisting: flags.skipExisting,
    clobber: flags.clobber,
    concurrency: flags.concurrency,
  };
  if (options.output === '-' && sel)
    throw new UsageError(
      '-O - writes the file to stdout, where --json would write too.',
      'Leave out --json, or write to a file with -O FILE.',
    );
  checkOptions(options);
  // A malformed id is a usage error before anything is opened (exit 2).
  for (const id of ids) parseIdInput(id);
  const { client, target } = await openApi(ctx, globals);
  const kind = progressKind(ctx.io, Boolean(sel));
  const progress = createTransferProgress(kind, ctx.io, {
    line: (v) => formatJson(v, sel ?? {}, false),
    heartbeatMs: heartbeatMs(ctx.env),
  });
  const started = Date.now();
  let result: DownloadResult;
  try {
    result = await interruptible(ctx, () =>
      runDownload(options, {
        api: client,
        emit: (e) => progress.onEvent(e),
        stdout: ctx.io.stdout,
        now: ctx.now,
        sleep: ctx.sleep,
        policy: retryPolicy(ctx.env),
        signal: ctx.signal,
        cwd,
        resolve: (id) => resolveItemId(id, { client, signal: ctx.signal, library: target.label }),
        library: target.label,
      }),
    );
  } catch (err) {
    await progress.stop().catch(() => {});
    throw err;
  }
  const ms = Date.now() - started;
  await progress.finish({ ...result, ms }, summaryLines(result, ms));
  const failure = downloadOutcome(result, target.label);
  if (failure) throw failure;
}
