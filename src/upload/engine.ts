// The upload engine: runs a checked plan against the service. For each file presign → PUT →
// complete, then one PATCH per item for its metadata and thumbnail. It emits events (./events.ts)
// and never draws; it returns what became of every item.
//
// - Transfers (presign + PUT) of all files run through one pool of `concurrency`.
// - A carousel's images transfer in parallel but complete in name order: the first creates the
//   item (unless --to or a resumed run names it), the rest pass its id.
// - The journal records each complete at once; a re-run skips what is done (if the item still
//   exists) and finishes a half-done carousel into the same item.
// - A failure never leaves a broken item behind: a carousel this tool made that ends with fewer
//   than 2 images is deleted again. One that has 2 or more keeps them and stays in the journal, so
//   running the command again appends the rest in order. An item whose PATCH failed stays too
//   (its bytes are fine) and the re-run applies the metadata.
// - Ctrl-C (deps.signal) aborts the PUTs in flight and starts no new complete or PATCH; what was
//   completed is in the journal, including a carousel of one image, which the re-run finishes.
import { performance } from 'node:perf_hooks';
import type { ApiClient } from '../api/client.js';
import { ApiError, StorageError, requestIdNote } from '../api/errors.js';
import { describeRefusal } from '../api/storage-refusal.js';
import type { CompleteRequest, PatchRequest } from '../api/schemas.js';
import type { ContentType } from '../rules/rules.js';
import { TYPE_RULES } from '../rules/rules.js';
import type { EmitFn, FileRef, ItemOutcome, UploadSummary } from './events.js';
import type { Journal, JournalFileEntry } from './journal.js';
import { fileKeyOf, metadataHash } from './journal.js';
import type { Pool } from './pool.js';
import { createPool } from './pool.js';
import { FileChangedError } from './put.js';
import type { SendableFile, TransferDeps } from './transfer.js';
import { contentTypeOf, transferFile } from './transfer.js';
import { escapeName } from '../text/escape-name.js';

export const DEFAULT_CONCURRENCY = 4;

export type EngineApi = Pick<ApiClient, 'dispatcher' | 'presign' | 'complete' | 'patch' | 'get' | 'remove'>;

/** Metadata applied by PATCH after the item exists (flags < sidecar < manifest, merged by the plan). */
export type ItemMetadata = Pick<PatchRequest, 'title' | 'description' | 'hashtags' | 'status' | 'platformSettings'>;

/** A planned item (src/upload/plan.ts PlannedItem fits). */
export interface EngineItem {
  type: ContentType;
  /** A carousel's images in the order they are to appear. */
  files: SendableFile[];
  /** --to: an existing carousel to append to. */
  contentItemId?: string;
  metadata: ItemMetadata;
  thumbnail?: SendableFile;
  source: string;
}

export interface EnginePlan {
  items: EngineItem[];
}

export interface EngineDeps extends TransferDeps {
  api: EngineApi;
  journal: Journal;
  concurrency: number;
  /** Upload again what the journal says is done. */
  force: boolean;
  /** Ctrl-C. */
  signal: AbortSignal;
}

/** What the journal knows about one planned item before this run. */
interface Prior {
  /** Per file: its journal entry when it is already part of the item. */
  done: Array<JournalFileEntry | undefined>;
  /** The item to add to: --to, or the one an earlier run created. */
  itemId?: string;
}

export async function runUpload(plan: EnginePlan, deps: EngineDeps, emit: EmitFn): Promise<UploadSummary> {
  const clock = deps.clock ?? (() => performance.now());
  const started = clock();
  const priors = await readPriors(plan, deps);
  const todo = plan.items.flatMap((item, i) => item.files.filter((_, f) => !priors[i]!.done[f]));
  emit({
    type: 'planned',
    items: plan.items.length,
    files: todo.length,
    bytes: todo.reduce((n, f) => n + f.size, 0),
    alreadyDone: plan.items.reduce((n, _, i) => n + priors[i]!.done.filter(Boolean).length, 0),
  });
  const run: Run = { deps, emit, pool: createPool(deps.concurrency, deps.signal), bytesSent: 0 };
  const items = await Promise.all(
    plan.items.map((item, index) =>
      item.type === 'carousel'
        ? uploadCarousel(run, item, index, priors[index]!)
        : uploadSingle(run, item, index, priors[index]!),
    ),
  );
  await deps.journal.flush();
  return { items, interrupted: deps.signal.aborted, bytesSent: run.bytesSent, ms: Math.round(clock() - started) };
}

interface Run {
  deps: EngineDeps;
  emit: EmitFn;
  pool: Pool;
  bytesSent: number;
}

// ---- What is done already -------------------------------------------------------------------

/**
 * Reads the journal for every file and checks that the items it names still exist (one GET per
 * item): an item deleted since is forgotten and its files count as new.
 */
async function readPriors(plan: EnginePlan, deps: EngineDeps): Promise<Prior[]> {
  if (deps.force)
    return plan.items.map((item) => ({ done: item.files.map(() => undefined), itemId: item.contentItemId }));
  const entries = plan.items.map((item) => item.files.map((f) => deps.journal.findFile(f)));
  const ids = new Set(entries.flat().flatMap((e) => (e ? [e.itemId] : [])));
  const gone = new Set<string>();
  const pool = createPool(4, deps.signal);
  await Promise.all(
    [...ids].map((id) =>
      pool.run(async () => {
        try {
          await deps.api.get(id, { signal: deps.signal });
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) throw err;
          gone.add(id);
          await deps.journal.forgetItem(id);
        }
      }),
    ),
  );
  return plan.items.map((item, i) => {
    const known = entries[i]!.map((e) => (e && !gone.has(e.itemId) ? e : undefined));
    // A carousel resumes into one item: --to, else the item of its first done image.
    const itemId = item.contentItemId ?? known.find(Boolean)?.itemId;
    const done = known.map((e) => (e && (item.type !== 'carousel' || e.itemId === itemId) ? e : undefined));
    return { done, itemId };
  });
}

// ---- One video ------------------------------------------------------------------------------

async function uploadSingle(run: Run, item: EngineItem, index: number, prior: Prior): Promise<ItemOutcome> {
  const { deps, emit } = run;
  const file = item.files[0]!;
  const ref = refOf(file, index, 'file');
  const outcome = baseOutcome(item, index);
  const ctl = new AbortController();
  const signal = AbortSignal.any([deps.signal, ctl.signal]);
  const thumb = startThumbnail(run, item, index, prior.done[0]?.itemId, signal);
  let itemId = prior.done[0]?.itemId;

  if (itemId) {
    emit({ type: 'skipped', file: ref, itemId, reason: 'already uploaded' });
    outcome.filesSkipped = 1;
  } else {
    try {
      const presigned = await run.pool.run(() => transferFile(file, ref, { type: item.type }, deps, emit, signal));
      run.bytesSent += file.size;
      if (deps.signal.aborted) return interrupted(outcome, thumb);
      const res = await completeFile(run, item, file, ref, presigned.key, undefined);
      itemId = res.contentItemId;
      outcome.filesCompleted = 1;
    } catch (err) {
      ctl.abort();
      await thumb?.catch(() => {});
      if (deps.signal.aborted) return interrupted(outcome);
      emit({ type: 'failed', file: ref, item: index, message: messageOf(err) });
      return {
        ...outcome,
        status: 'failed',
        message: `${escapeName(file.name)}: ${messageOf(err)}`,
        ...keyRejected(err),
      };
    }
  }
  outcome.itemId = itemId;
  return finishItem(run, item, index, itemId, thumb, outcome);
}

// ---- A carousel -----------------------------------------------------------------------------

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function uploadCarousel(run: Run, item: EngineItem, index: number, prior: Prior): Promise<ItemOutcome> {
  const { deps, emit } = run;
  const outcome = baseOutcome(item, index);
  let itemId = prior.itemId;
  const doneBefore = prior.done.filter(Boolean).length;
  outcome.filesSkipped = doneBefore;
  item.files.forEach((f, i) => {
    const entry = prior.done[i];
    if (entry)
      emit({ type: 'skipped', file: refOf(f, index, 'file'), itemId: entry.itemId, reason: 'already uploaded' });
  });

  const todo = item.files.map((f, i) => ({ file: f, i })).filter(({ i }) => !prior.done[i]);
  // One controller per image: when image k fails, the images after it are useless (they may not
  // complete out of order), so their transfers stop; the ones before it go on.
  const controllers = todo.map(() => new AbortController());
  const transfers = todo.map(({ file }, n) => {
    const signal = AbortSignal.any([deps.signal, controllers[n]!.signal]);
    return settle(
      run.pool.run(() => transferFile(file, refOf(file, index, 'file'), { type: 'carousel' }, deps, emit, signal)),
    ).then((r) => {
      if (!r.ok) controllers.slice(n + 1).forEach((c) => c.abort());
      return r;
    });
  });

  let failure: { name: string; message: string; error: unknown } | undefined;
  for (const [n, { file }] of todo.entries()) {
    const ref = refOf(file, index, 'file');
    const r = await transfers[n]!;
    if (deps.signal.aborted) break;
    try {
      if (!r.ok) throw r.error;
      run.bytesSent += file.size;
      const res = await completeFile(run, item, file, ref, r.value.key, itemId);
      itemId = res.contentItemId;
      outcome.filesCompleted++;
    } catch (err) {
      controllers.slice(n + 1).forEach((c) => c.abort());
      failure = { name: file.name, message: messageOf(err), error: err };
      emit({ type: 'failed', file: ref, item: index, message: failure.message });
      break;
    }
  }
  await Promise.all(transfers);
  outcome.itemId = itemId;
  const count = doneBefore + outcome.filesCompleted;
  const progress = `${count} of ${item.files.length} images added`;

  if (deps.signal.aborted && count < item.files.length) {
    return interrupted({
      ...outcome,
      message: itemId
        ? `${progress} to ${itemId}; run the same command again to finish it (or: contentlib rm ${itemId})`
        : undefined,
    });
  }
  if (failure) {
    const why = `${escapeName(failure.name)}: ${failure.message}`;
    if (!itemId) return { ...outcome, status: 'failed', message: why, ...keyRejected(failure.error) };
    if (!item.contentItemId && count < TYPE_RULES.carousel.minFiles)
      return removeHalfCarousel(run, outcome, itemId, why);
    return {
      ...outcome,
      status: 'partial',
      message: `${why}; ${progress} to ${itemId}. Fix it and run the same command again to add the rest in order.`,
    };
  }
  return finishItem(run, item, index, itemId!, startThumbnail(run, item, index, itemId, deps.signal), outcome);
}

/** A carousel this tool made that failed below 2 images is not a carousel: delete it and forget it. */
async function removeHalfCarousel(run: Run, outcome: ItemOutcome, itemId: string, why: string): Promise<ItemOutcome> {
  try {
    await run.deps.api.remove(itemId);
    await run.deps.journal.forgetItem(itemId);
    return {
      ...outcome,
      status: 'failed',
      itemId: undefined,
      deletedItemId: itemId,
      message: `${why}; the carousel ${itemId} it had started was deleted again`,
    };
  } catch (err) {
    return {
      ...outcome,
      status: 'partial',
      message: `${why}; the carousel ${itemId} has fewer than 2 images and could not be deleted (${messageOf(err)}). Run the same command again to finish it, or: contentlib rm ${itemId}`,
    };
  }
}

// ---- Shared steps ---------------------------------------------------------------------------

async function completeFile(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  key: string,
  contentItemId: string | undefined,
) {
  const body: CompleteRequest = {
    key,
    fileName: file.name,
    contentType: contentTypeOf(file),
    fileSize: file.size,
    type: item.type,
    ...(file.durationSeconds !== undefined && item.type !== 'carousel'
      ? { durationSeconds: file.durationSeconds }
      : {}),
    ...(contentItemId ? { contentItemId } : {}),
  };
  // No abort signal: a complete already sent is let finish, so we know whether the item exists.
  const res = await run.deps.api.complete(body);
  await run.deps.journal.recordFile(file, {
    itemId: res.contentItemId,
    key,
    type: item.type,
    sortOrder: res.file?.sortOrder,
  });
  run.emit({
    type: 'completed',
    file: ref,
    itemId: res.contentItemId,
    itemType: item.type,
    sortOrder: res.file?.sortOrder,
    created: !contentItemId,
  });
  return res;
}

/** Sends the thumbnail's bytes (in parallel with the item's) unless the journal has it attached. */
function startThumbnail(run: Run, item: EngineItem, index: number, itemId: string | undefined, signal: AbortSignal) {
  const thumb = item.thumbnail;
  if (!thumb) return undefined;
  if (itemId && run.deps.journal.item(itemId)?.thumbnail === fileKeyOf(thumb) && !run.deps.force) return undefined;
  const ref = refOf(thumb, index, 'thumbnail');
  const p = run.pool.run(() => transferFile(thumb, ref, { thumbnail: true }, run.deps, run.emit, signal));
  p.catch(() => {}); // awaited later; this only keeps an early failure from being "unhandled"
  return p.then((presigned) => ({ key: presigned.key, fileKey: fileKeyOf(thumb), ref }));
}

/** One PATCH with the item's metadata and thumbnail key, unless the journal says it is applied. */
async function finishItem(
  run: Run,
  item: EngineItem,
  index: number,
  itemId: string,
  thumb: Promise<{ key: string; fileKey: string; ref: FileRef }> | undefined,
  outcome: ItemOutcome,
): Promise<ItemOutcome> {
  const { deps } = run;
  const status: ItemOutcome['status'] = outcome.filesCompleted > 0 ? 'created' : 'skipped';
  const metadata = definedFields(item.metadata);
  const hash = Object.keys(metadata).length > 0 ? metadataHash(metadata) : undefined;
  const applied = deps.journal.item(itemId);
  const body: PatchRequest = hash && (deps.force || applied?.metadataHash !== hash) ? { ...metadata } : {};
  let thumbFileKey: string | undefined;
  try {
    if (thumb) {
      const t = await thumb;
      body.thumbnailKey = t.key;
      thumbFileKey = t.fileKey;
    }
    if (Object.keys(body).length === 0) return { ...outcome, status };
    if (deps.signal.aborted)
      return interrupted({
        ...outcome,
        message: `${itemId} was created; its metadata was not applied: run the same command again to apply it`,
      });
    await deps.api.patch(itemId, body);
    await deps.journal.recordItem(itemId, {
      ...(hash ? { metadataHash: hash } : {}),
      ...(thumbFileKey ? { thumbnail: thumbFileKey } : {}),
    });
    return { ...outcome, status };
  } catch (err) {
    if (deps.signal.aborted)
      return interrupted({
        ...outcome,
        message: `${itemId} was created; its metadata was not applied: run the same command again to apply it`,
      });
    const what = body.thumbnailKey === undefined && thumb ? 'its thumbnail' : 'its metadata';
    const message = `${itemId} was created, but ${what} could not be applied: ${messageOf(err)}. Run the same command again to apply it.`;
    run.emit({ type: 'failed', item: index, message });
    return { ...outcome, status: 'partial', message };
  }
}

// ---- Small helpers --------------------------------------------------------------------------

function refOf(file: SendableFile, item: number, role: FileRef['role']): FileRef {
  return { path: file.path, name: file.name, size: file.size, item, role };
}

function baseOutcome(item: EngineItem, index: number): ItemOutcome {
  return {
    index,
    type: item.type,
    source: item.source,
    status: 'created',
    filesCompleted: 0,
    filesSkipped: 0,
    filesTotal: item.files.length,
  };
}

function interrupted(outcome: ItemOutcome, pending?: Promise<unknown>): ItemOutcome {
  pending?.catch(() => {});
  return { ...outcome, status: 'interrupted' };
}

function definedFields(metadata: ItemMetadata): ItemMetadata {
  return Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined)) as ItemMetadata;
}

function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Marks an item stopped by a 401, so the command can exit 4 and say to log in again. */
function keyRejected(err: unknown): Pick<ItemOutcome, 'keyRejected'> {
  return err instanceof ApiError && err.status === 401 ? { keyRejected: true } : {};
}

/** One line on why a file failed, with the server's code so a person can search for it. */
export function messageOf(err: unknown): string {
  if (err instanceof FileChangedError) return err.message;
  if (err instanceof StorageError) return `storage refused the upload: ${describeRefusal(err, requestIdNote(err))}`;
  if (err instanceof ApiError) return `${err.message} (${err.status} ${err.code}${requestIdNote(err)})`;
  return err instanceof Error ? err.message : String(err);
}
