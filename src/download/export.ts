// contentlib export DIR: the library (or what the filters select) as a folder that
// `contentlib upload DIR` reads back (export-folder.ts says what is where), kept up to date by
// re-runs.
//
// - The list is read page by page, newest first; each item is compared with the folder's log
//   (export-log.ts). An item whose files, thumbnail and metadata are as recorded and whose files
//   are on disk with their recorded sizes costs a few stat calls and no request; otherwise a
//   carousel is fetched for its files, and only what is new or changed is downloaded
//   (fetch.ts: part files, Range resume, size and SHA-256 checks). Its log line is appended once
//   it is complete.
// - Items go through a window of WINDOW_PER_TRANSFER × concurrency at a time and their files
//   through a pool of `concurrency`: memory holds a page, the window, and the current set (one
//   compact line per item).
// - An item the folder holds that the list did not show is asked for by its id: gone (404), or
//   no longer matching the filters, it is taken out of the folder (only the files the export
//   wrote, as it wrote them); still there, it was missed by paging (a delete shifts the pages)
//   and is exported now.
// - Interrupted (Ctrl-C), the run leaves the log as it is and the part files for the next run to
//   resume; the manifest is rewritten only by a run that went through the whole list.
import { join, posix } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { RetryPolicy } from '../api/retry.js';
import type { ContentItem } from '../api/schemas.js';
import { makeDir } from '../fs/make-dir.js';
import { mayStall } from '../fs/stalling-fs.js';
import { LIST_LIMITS } from '../rules/rules.js';
import { type Pool, createPool, createSlots } from '../concurrency/pool.js';
import type { DownloadEvent, EmitFn, FileRef, ItemChange } from './events.js';
import {
  fileRecord,
  matchesFilters,
  ownSize,
  removeItemFiles,
  removeOwn,
  sha256Of,
  sidecarPath,
  sidecarText,
  strangers,
  writeAtomic,
  writeUploadManifest,
} from './export-folder.js';
import {
  type ExportFilters,
  type ExportState,
  type FileRecord,
  type ItemRecord,
  type LogWriter,
  openLog,
  readExportState,
} from './export-log.js';
import { type FetchDeps, fetchToFile, hashFile } from './fetch.js';
import { ExportLogError } from './errors.js';
import { confine } from '../fs/confine.js';
import { type ItemFile, mediaFiles, sourceOfUrl, thumbnailFile } from './item-files.js';
import { partName, safeName } from './names.js';

/** Items in the works at once per transfer slot (as upload's window: src/upload/send/engine.ts). */
export const WINDOW_PER_TRANSFER = 4;

export interface ExportOptions {
  /** The export folder (absolute). */
  dir: string;
  filters: ExportFilters;
  concurrency: number;
  /** Where the items come from, as the log records it (the target line: no key, no URL secret). */
  from: string;
}

export interface ExportDeps {
  api: Pick<ApiClient, 'list' | 'get' | 'http'>;
  emit: EmitFn;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  policy: RetryPolicy;
  signal: AbortSignal;
  clock?: () => number;
}

export interface ExportSummary {
  dir: string;
  /** Items the folder holds for this run's list. */
  items: number;
  new: number;
  changed: number;
  unchanged: number;
  removed: number;
  failed: number;
  /** What is in the folder that the export did not write (relative paths), left alone. */
  left: string[];
  bytes: number;
  interrupted: boolean;
  /** Lines of the log that could not be read (cut short by a crash) and were passed over. */
  unreadableLogLines: number;
}

interface Run {
  o: ExportOptions;
  /** The export's folder is on a network share or a FUSE mount: asked once, not per file (fetch.ts). */
  stalls: boolean;
  deps: ExportDeps;
  state: ExportState;
  log: LogWriter;
  pool: Pool;
  /** Aborts on Ctrl-C and on a rejected key. */
  signal: AbortSignal;
  stop: (reason: unknown) => void;
  fatal?: unknown;
  summary: ExportSummary;
}

/** Exports the library into o.dir; resolves with what it did (a rejected key or a failed list throws). */
export async function runExport(o: ExportOptions, deps: ExportDeps): Promise<ExportSummary> {
  await makeDir(o.dir, 0o755);
  const state = await readExportState(o.dir);
  const log = await openLog(o.dir);
  // Asked once for every file of the export (they all go under o.dir): src/fs/stalling-fs.ts.
  const stalls = await mayStall(o.dir);
  const controller = new AbortController();
  const onAbort = () => controller.abort(deps.signal.reason);
  if (deps.signal.aborted) onAbort();
  else deps.signal.addEventListener('abort', onAbort, { once: true });
  const run: Run = {
    o,
    stalls,
    deps,
    state,
    log,
    pool: createPool(o.concurrency, controller.signal),
    signal: controller.signal,
    stop: (reason) => {
      run.fatal ??= reason;
      controller.abort(reason);
    },
    summary: {
      dir: o.dir,
      items: 0,
      new: 0,
      changed: 0,
      unchanged: 0,
      removed: 0,
      failed: 0,
      left: [],
      bytes: 0,
      interrupted: false,
      unreadableLogLines: state.unreadable,
    },
  };
  try {
    const { newestFirst, seen } = await exportListed(run);
    if (!run.signal.aborted) await reconcile(run, newestFirst, seen);
    if (run.fatal) throw run.fatal;
    run.summary.interrupted = deps.signal.aborted;
    if (!run.summary.interrupted) await finishRun(run, newestFirst);
    return run.summary;
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
    await log.close();
    await state.close();
  }
}

/** Walks the list and exports each item through the window; returns the ids seen, newest first. */
async function exportListed(run: Run): Promise<{ newestFirst: string[]; seen: Set<string> }> {
  const { o, deps } = run;
  const seen = new Set<string>();
  const newestFirst: string[] = [];
  const slots = createSlots(WINDOW_PER_TRANSFER * o.concurrency, run.signal);
  const inFlight = new Set<Promise<void>>();
  try {
    for (let offset = 0; ;) {
      const page = await deps.api.list({ ...o.filters, limit: LIST_LIMITS.maxLimit, offset }, { signal: run.signal });
      for (const item of page.items) {
        if (seen.has(item.id)) continue; // shifted onto this page by an item created meanwhile
        seen.add(item.id);
        newestFirst.push(item.id);
        if (!(await slots.acquire())) break;
        const task = exportItem(run, item).finally(() => {
          slots.release();
          inFlight.delete(task);
        });
        inFlight.add(task);
      }
      offset += page.items.length;
      if (run.signal.aborted || !page.hasMore || page.items.length === 0) break;
    }
  } catch (err) {
    if (!run.signal.aborted) run.stop(err);
  } finally {
    await Promise.all(inFlight);
  }
  return { newestFirst, seen };
}

/**
 * The items the folder holds that the list did not show: taken out when gone or no longer
 * matching; exported when the list only missed them.
 */
async function reconcile(run: Run, newestFirst: string[], seen: Set<string>): Promise<void> {
  const unseen = [...run.state.items.keys()].filter((id) => !seen.has(id));
  for (const id of unseen) {
    if (run.signal.aborted) return;
    let item: ContentItem | undefined;
    try {
      item = (await run.deps.api.get(id, { signal: run.signal })).item;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) {
        if (!run.signal.aborted) run.stop(err);
        return;
      }
    }
    if (item && matchesFilters(item, run.o.filters)) {
      newestFirst.push(id);
      await exportItem(run, item);
      continue;
    }
    await removeItem(run, id, item ? 'no longer matches the filters' : 'deleted from the library');
  }
}

async function removeItem(run: Run, id: string, reason: string): Promise<void> {
  const record = (await run.state.record(id))!;
  const { removed, left } = await removeItemFiles(run.o.dir, record);
  await run.log.append({
    kind: 'removed',
    id,
    folder: record.folder,
    reason,
    exportedAt: run.deps.now().toISOString(),
  });
  run.state.items.delete(id);
  run.summary.removed++;
  run.summary.left.push(...left);
  run.deps.emit({ type: 'removed', itemId: id, folder: record.folder, reason, files: removed, left });
}

/** The manifest, what else is in the folder, and the log's line for this run. */
async function finishRun(run: Run, newestFirst: string[]): Promise<void> {
  const { o, state, summary } = run;
  const { count, folders } = await writeUploadManifest(o.dir, newestFirst, state);
  summary.items = count;
  // A removed item's folder that kept files of someone else's was named with those files already.
  const named = new Set(summary.left.map((p) => p.split('/')[0]));
  summary.left.push(...(await strangers(o.dir, folders)).filter((name) => !named.has(name)));
  await run.log.append({
    kind: 'run',
    at: run.deps.now().toISOString(),
    from: o.from,
    filters: o.filters,
    items: summary.items,
    new: summary.new,
    changed: summary.changed,
    removed: summary.removed,
    failed: summary.failed,
  });
}

/** Exports one item; never throws (a failure is reported and counted; a rejected key stops the run). */
async function exportItem(run: Run, listed: ContentItem): Promise<void> {
  try {
    const placed = await placeItem(run, listed);
    if (placed) {
      run.summary[placed.change]++;
      run.deps.emit({
        type: 'exported',
        itemId: listed.id,
        itemType: listed.type,
        title: listed.title,
        change: placed.change,
        folder: placed.folder,
      });
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return run.stop(err);
    // A log line that leads outside the folder stops the run: it names the line.
    if (err instanceof ExportLogError) return run.stop(err);
    if (run.signal.aborted) return;
    run.summary.failed++;
    const message = err instanceof Error ? err.message : String(err);
    run.deps.emit({
      type: 'failed',
      itemId: listed.id,
      message,
      ...(err instanceof ApiError ? { code: err.code } : {}),
    });
  }
}

/** Brings the item's folder up to date; undefined when interrupted before it was complete. */
async function placeItem(run: Run, listed: ContentItem): Promise<{ change: ItemChange; folder: string } | undefined> {
  const prev = await run.state.record(listed.id);
  const text = sidecarText(listed);
  if (prev && (await isUnchanged(run, listed, prev, text))) return { change: 'unchanged', folder: prev.folder };
  // A carousel's files (and fresh URLs) come with its GET; a video's with the list.
  const { item, files } =
    listed.type === 'carousel'
      ? await run.deps.api.get(listed.id, { signal: run.signal })
      : { item: listed, files: [] };
  const folder = prev?.folder ?? safeName(item.id);
  // A new item's folder may be in the way already: a link out of the export folder is refused.
  if (!prev) await confine(run.o.dir, folder);
  const wanted = [...mediaFiles(item, files), ...[thumbnailFile(item)].filter((f) => f !== undefined)];
  // Every file settles before the item is judged: none is left running behind a failed one.
  const settled = await Promise.allSettled(wanted.map((f) => placeFile(run, item, folder, f, prev)));
  if (run.signal.aborted) return undefined;
  const failure = settled.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  const placed = settled.map((r) => (r as PromiseFulfilledResult<FileRecord>).value);
  const media = placed.filter((_, i) => wanted[i]!.role === 'file');
  const thumbnail = placed.find((_, i) => wanted[i]!.role === 'thumbnail');
  const sidecar = sidecarPath(
    folder,
    item,
    media.map((f) => posix.basename(f.path)),
  );
  const finalText = item === listed ? text : sidecarText(item);
  const sidecarRecord = { path: sidecar, size: Buffer.byteLength(finalText), sha256: sha256Of(finalText) };
  if (
    prev?.sidecar.path !== sidecar ||
    prev.sidecar.sha256 !== sidecarRecord.sha256 ||
    (await ownSize(join(run.o.dir, sidecar))) !== sidecarRecord.size
  )
    await writeAtomic(join(run.o.dir, sidecar), finalText);
  const record: ItemRecord = {
    kind: 'item',
    id: item.id,
    type: item.type,
    title: item.title,
    status: item.status,
    createdAt: item.createdAt,
    ...(item.updatedAt ? { updatedAt: item.updatedAt } : {}),
    folder,
    files: media,
    ...(thumbnail ? { thumbnail } : {}),
    sidecar: sidecarRecord,
    exportedAt: run.deps.now().toISOString(),
  };
  if (prev) await removeStale(run, prev, record);
  run.state.items.set(item.id, await run.log.append(record));
  return { change: prev ? 'changed' : 'new', folder };
}

/** The library still has what the log says, and the folder still holds it: nothing to do. */
async function isUnchanged(run: Run, item: ContentItem, prev: ItemRecord, text: string): Promise<boolean> {
  if (item.updatedAt !== prev.updatedAt || item.type !== prev.type) return false;
  if (prev.sidecar.sha256 !== sha256Of(text)) return false;
  const count = item.type === 'carousel' ? (item.fileCount ?? prev.files.length) : 1;
  if (prev.files.length !== count) return false;
  if (item.type !== 'carousel') {
    const video = prev.files[0]!;
    if (!item.fileUrl || video.source !== sourceOfUrl(item.fileUrl)) return false;
    if (item.fileSize != null && item.fileSize !== video.size) return false;
    if (item.sha256 && item.sha256 !== video.sha256) return false;
  }
  const thumb = item.thumbnailUrl ? sourceOfUrl(item.thumbnailUrl) : undefined;
  if (thumb !== prev.thumbnail?.source) return false;
  for (const f of [...prev.files, ...(prev.thumbnail ? [prev.thumbnail] : []), prev.sidecar])
    if ((await ownSize(join(run.o.dir, f.path))) !== f.size) return false;
  return true;
}

/** One file of the item in place: kept when it is the recorded one, adopted when a run was cut short after writing it, else fetched. */
async function placeFile(
  run: Run,
  item: ContentItem,
  folder: string,
  f: ItemFile,
  prev: ItemRecord | undefined,
): Promise<FileRecord> {
  const path = posix.join(folder, f.name);
  const abs = join(run.o.dir, path);
  const recorded = [...(prev?.files ?? []), ...(prev?.thumbnail ? [prev.thumbnail] : [])].find((r) => r.path === path);
  const onDisk = await ownSize(abs);
  const sameInLibrary =
    recorded !== undefined &&
    recorded.source === f.source &&
    (f.size === undefined || f.size === recorded.size) &&
    (!f.sha256 || f.sha256 === recorded.sha256);
  // Kept as recorded; facts the library measured since (its sweeper) are added to the record.
  if (sameInLibrary && onDisk === recorded.size) return f.media ? { ...recorded, media: f.media } : recorded;
  // No record of it, but the file is there with the library's size: a run that stopped between
  // renaming it into place and logging its item. Its checksum is taken from the disk.
  if (!recorded && onDisk !== undefined && f.size !== undefined && onDisk === f.size) {
    const got = await hashFile(abs);
    if (!f.sha256 || f.sha256 === got.sha256) return fileRecord(path, f, got);
  }
  return run.pool.run(async () => {
    await makeDir(join(run.o.dir, folder), 0o755);
    const ref: FileRef = {
      path: abs,
      shown: path,
      ...(f.size !== undefined ? { size: f.size } : {}),
      itemId: item.id,
      role: f.role,
    };
    const fetched = await fetchToFile(
      { url: f.url, ...(f.size !== undefined ? { size: f.size } : {}), ...(f.sha256 ? { sha256: f.sha256 } : {}) },
      abs,
      partName(abs, `${item.id}/${f.source}`),
      fetchDeps(run, item, f, ref),
    );
    // Export asks for the checksum always (fetchDeps: hash on by default): the log records it.
    const sha256 = fetched.sha256!;
    run.summary.bytes += fetched.bytes - fetched.resumedFrom;
    run.deps.emit({
      type: 'downloaded',
      file: ref,
      bytes: fetched.bytes,
      sha256,
      resumedFrom: fetched.resumedFrom,
      ms: fetched.ms,
    });
    return fileRecord(path, f, { size: fetched.bytes, sha256 });
  });
}

function fetchDeps(run: Run, item: ContentItem, f: ItemFile, ref: FileRef): FetchDeps {
  const { deps } = run;
  const emit = (e: DownloadEvent) => deps.emit(e);
  return {
    http: deps.api.http,
    policy: deps.policy,
    sleep: deps.sleep,
    now: deps.now,
    signal: run.signal,
    stalls: run.stalls,
    ...(deps.clock ? { clock: deps.clock } : {}),
    refreshUrl: async () => {
      const { item: fresh, files } = await deps.api.get(item.id, { signal: run.signal });
      const again =
        f.role === 'thumbnail' ? thumbnailFile(fresh) : mediaFiles(fresh, files).find((m) => m.source === f.source);
      if (!again) throw new Error(`${ref.shown} is no longer part of item ${item.id}`);
      return again.url;
    },
    onStart: (from) => emit({ type: 'started', file: ref, from }),
    onProgress: (have) => emit({ type: 'progress', file: ref, have }),
    onRetry: ({ attempt, delayMs, error, from }) =>
      emit({
        type: 'retrying',
        file: ref,
        attempt,
        delayMs,
        reason: error instanceof Error ? error.message : String(error),
        from,
      }),
  };
}

/** Files of the item's previous record that its new one no longer has (a replaced thumbnail). */
async function removeStale(run: Run, prev: ItemRecord, next: ItemRecord): Promise<void> {
  const keep = new Set([...next.files, ...(next.thumbnail ? [next.thumbnail] : []), next.sidecar].map((f) => f.path));
  for (const f of [...prev.files, ...(prev.thumbnail ? [prev.thumbnail] : []), prev.sidecar])
    if (!keep.has(f.path)) await removeOwn(run.o.dir, f);
}
