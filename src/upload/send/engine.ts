// The upload engine: runs a checked plan against the service. For each file presign → PUT →
// complete, then one PATCH per item for its metadata and thumbnail. It emits events (./events.ts)
// and never draws; it returns what became of every item. Its parts: ./run.ts (what a run is
// given, the state its parts share, and their common steps), ./finish-item.ts (an item's
// thumbnail and metadata once its files are in), ./run-parts.ts (the run's side of sending a
// file as parts), ./failure.ts (what an error means, in words).
//
// Scheduling, so that time grows with the number of files and memory does not:
// - Items are worked through in plan order. A window of files (WINDOW_PER_TRANSFER × concurrency)
//   is admitted at a time: a file takes a slot before its presign and gives it back after its
//   complete, and at most as many items are open. Nothing else is kept per file.
// - Transfers (presign + PUT) run through one pool of `concurrency`. A carousel's images
//   transfer in parallel but complete in name order: the first creates the item (unless --to or
//   a resumed run names it), the rest pass its id. The window keeps a PUT and its complete close
//   together, so a presigned URL never waits long enough to expire.
//
// Exactly once:
// - The journal records each key when presigned, marks it PUT, then completed, each at once. A
//   key that is PUT (or presigned) but not confirmed completed is completed again by the next
//   run — complete is idempotent per key on the server — instead of presigning a new one, so an
//   answer lost on the way back never makes a second item. A key the server no longer knows
//   (swept, or its item deleted) is forgotten and the file sent afresh.
// - A re-run skips what is done (if the item still exists) and finishes a half-done carousel into
//   the same item.
// - Wherever it runs: each file the journal does not know is hashed and the library asked whether
//   it holds those bytes (./identify.ts, batched, one batch ahead of the transfers). A video
//   already there as an item of its type is that item; a carousel folder whose images are all in
//   one carousel is that carousel, and one that gained photos appends them (./library-match.ts).
//   What is found is recorded in the journal, the fast path of the next run on this machine.
// - Every file's SHA-256 is declared at presign, so bytes changed on the way are refused (by the
//   store at PUT, or by complete); such a file is sent again from disk, once.
// - A failure never leaves a broken item behind: a carousel this tool made that ends with fewer
//   than 2 images is deleted again. One that has 2 or more keeps them and stays in the journal, so
//   running the command again appends the rest in order. An item whose PATCH failed stays too
//   (its bytes are fine) and the re-run applies the metadata.
// - A rejected key (401, or a 403 for a scope it lacks) stops the whole run at once: every later
//   request would be refused too.
// - Ctrl-C (deps.signal) aborts the PUTs in flight and starts no new complete or PATCH; what was
//   completed is in the journal, including a carousel of one image, which the re-run finishes.
//
// Stopping: three signals, each a narrower scope than the one before it.
// - deps.signal is the user's Ctrl-C. Only the caller aborts it; the engine reads it to tell an
//   interrupted run from one stopped by a rejected key.
// - run.signal stops the run: it follows deps.signal and is aborted by run.rejectKey() the
//   moment a request's 401 (or 403 for a missing scope) reaches `judge`. After it, nothing new starts: no window slot, no
//   transfer from the pool, no complete, no PATCH.
// - Each item's signal (ItemState.ctl) stops that item: it follows run.signal and is aborted by
//   the item's own first failure, since its later images could not complete in order. Its
//   transfers in flight listen to it.
// Why the run stopped is `stopReason(run)` (Ctrl-C wins: the user asked). What an error means
// is `judge`'s to say: the 401 that stops the run is reported; an error that only says a signal
// cut a request short is not a failure of its own. A complete already sent is never aborted: its
// answer says whether the item exists.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { missingScopeOf } from '../../api/errors.js';
import { escapeName } from '../../text/escape-name.js';
import type { CompleteRequest, CompleteResponse } from '../../api/schemas.js';
import { TYPE_RULES } from '../../rules/rules.js';
import { type EmitFn, type FileRef, type ItemOutcome, StepError, type UploadSummary } from './events.js';
import type { Slots } from '../../concurrency/pool.js';
import { createPool, createSlots } from '../../concurrency/pool.js';
import { goneItems } from './item-check.js';
import type { SendableFile } from './transfer.js';
import { transferFile, wireFile } from './transfer.js';
import { type Identifier, type ItemIdentity, type Wanted, createIdentifier } from './identify.js';
import { sha256OfFile } from './hash.js';
import { libraryVerdict } from './library-match.js';
import { libraryMetadata } from './metadata-diff.js';
import { type SentPart, continueParts, startParts } from './multipart.js';
import { asksForParts } from '../../rules/parts.js';
import { bytesKept, forgetParts, journalParts, multipartContext } from './run-parts.js';
import { OutcomeList } from './outcomes.js';
import {
  type EngineDeps,
  type EngineItem,
  type EnginePlan,
  type ItemState,
  type Run,
  checksumOf,
  fileCountOf,
  judge,
  onceAgainIfChanged,
  type Settled,
  refOf,
  retryEvent,
  sendingAgain,
  settle,
  stopReason,
  stopped,
} from './run.js';
import { alongsideEligible, refusesLateChecksum, sendAlongside, verdictOf } from './hash-alongside.js';
import {
  STEP_LABEL,
  codeOf,
  isChangedOnTheWay,
  isKeyRejected,
  isUnknownKey,
  isUploadGone,
  messageOf,
} from './failure.js';
import {
  type ThumbnailUpload,
  finishItem,
  itemCreated,
  metadataPending,
  startThumbnail,
  thumbnailAttached,
} from './finish-item.js';

export type { EngineApi, EngineDeps, EngineItem, EnginePlan } from './run.js';

/**
 * Files admitted at once per transfer slot. Enough for the pool never to wait on a carousel's
 * completes (which go one at a time, in order) and for a few carousels to be worked on at once;
 * few enough that a file waits for at most a handful of completes between its PUT and its own.
 */
export const WINDOW_PER_TRANSFER = 4;

/** What the journal knows about one planned item before this run, in compact form. */
interface Prior {
  /** Per file, whether it is already part of the item; undefined when none is. */
  done: boolean[] | undefined;
  doneCount: number;
  /** The item to add to: --to, or the one an earlier run created (or the library holds). */
  itemId?: string;
  /** Of doneCount, the files found in the library by their checksum (not in the journal). */
  inLibrary?: number;
  /** The images go to a carousel the library held already (it gained photos). */
  appended?: true;
  /** Per file, whether it was found in the library (said as it was found, not as done before). */
  found?: boolean[];
}

export async function runPlan(plan: EnginePlan, deps: EngineDeps, emit: EmitFn): Promise<UploadSummary> {
  const clock = deps.clock ?? (() => performance.now());
  const started = clock();
  const stop = new AbortController();
  // One listener per open item and per request in flight: bounded by the window, not a leak.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort(deps.signal.reason);
  if (deps.signal.aborted) onAbort();
  else deps.signal.addEventListener('abort', onAbort, { once: true });
  const run: Run = {
    deps,
    emit,
    identifier: undefined as unknown as Identifier, // set below, once the priors are known
    sentAgain: new WeakSet(),
    signal: stop.signal,
    pool: createPool(deps.concurrency, stop.signal),
    bytesSent: 0,
    held: new Map(),
    library: new Map(),
    noParts: !deps.api.parts || !deps.api.abortUpload,
    lateChecksum: true,
    alongside: new Set(),
    keyRejected: false,
    rejectKey(err) {
      run.keyRejected = true;
      run.missingScope ??= missingScopeOf(err);
      // Not the 401 itself: what this abort cuts short must not be reported as refused too.
      stop.abort(new Error('the upload stopped: the service rejected the API key'));
    },
  };
  try {
    const priors = await readPriors(plan, run);
    let files = 0;
    let bytes = 0;
    let alreadyDone = 0;
    plan.items.forEach((item, i) => {
      const prior = priors[i]!;
      alreadyDone += prior.doneCount;
      item.files.forEach((f, n) => {
        if (prior.done?.[n]) return;
        files++;
        bytes += f.size;
      });
    });
    emit({ type: 'planned', items: plan.items.length, files, bytes, alreadyDone });
    run.identifier = identifierOf(plan, priors, run);
    const items = await driveItems(plan, priors, run);
    return {
      items,
      interrupted: deps.signal.aborted,
      ...(run.keyRejected ? { keyRejected: true as const } : {}),
      ...(run.missingScope !== undefined ? { missingScope: run.missingScope } : {}),
      bytesSent: run.bytesSent,
      ...bytesKept(run),
      ms: Math.round(clock() - started),
    };
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
  }
}

// ---- What is done already -------------------------------------------------------------------

/**
 * Looks every file up in the journal (one indexed lookup each) and checks that the items it
 * names still exist (./item-check.ts: a page of the list per 100 items): an item deleted since is
 * forgotten and its files count as new.
 */
async function readPriors(plan: EnginePlan, run: Run): Promise<Prior[]> {
  const { deps } = run;
  if (deps.force) return plan.items.map((item) => nothingDone(item.contentItemId));
  // Per item, the item each file is completed into (only for items with any); each item once,
  // with a file of it to name in `retrying` events.
  const found: Array<Array<string | undefined> | undefined> = [];
  const ids = new Map<string, FileRef>();
  plan.items.forEach((item, index) =>
    item.files.forEach((f, n) => {
      const itemId = deps.journal.completedItem(f);
      if (!itemId) return;
      (found[index] ??= [])[n] = itemId;
      if (!ids.has(itemId)) ids.set(itemId, refOf(f, index, 'file'));
    }),
  );
  const gone = await goneItems(
    ids.keys(),
    deps.api,
    run.signal,
    (id) => retryEvent(run, 'check', ids.get(id)!),
    // What the library holds of them, to compare local metadata with at the end (no GET then).
    (item) => run.library.set(item.id, libraryMetadata(item)),
  );
  for (const id of gone) deps.journal.forgetItem(id);
  return plan.items.map((item, index) => priorOf(item, found[index], gone));
}

/**
 * The prior of an item nothing is known of, shared: a first run of 100,000 files has 10,000 of
 * them, and an object each was ~0.5 MB held for the whole run (bench/notes.md). Never mutated.
 */
const NOTHING_DONE: Prior = Object.freeze({ done: undefined, doneCount: 0 });

/** An item none of whose files is done: to be added to `itemId` (--to) if given. */
function nothingDone(itemId: string | undefined): Prior {
  return itemId === undefined ? NOTHING_DONE : { done: undefined, doneCount: 0, itemId };
}

function priorOf(item: EngineItem, found: Array<string | undefined> | undefined, gone: Set<string>): Prior {
  if (!found) return nothingDone(item.contentItemId);
  let itemId = item.contentItemId;
  let done: boolean[] | undefined;
  let doneCount = 0;
  item.files.forEach((_, i) => {
    const e = found?.[i];
    if (!e || gone.has(e)) return;
    // A carousel resumes into one item: --to, else the item of its first done image.
    itemId ??= e;
    if (item.type === 'carousel' && e !== itemId) return;
    (done ??= item.files.map(() => false))[i] = true;
    doneCount++;
  });
  return { done, doneCount, itemId };
}

// ---- What the library holds -----------------------------------------------------------------

/**
 * Hashes what is to be sent and asks the library about it (./identify.ts): every file the
 * journal does not have as done or as a key to resume, and the thumbnail unless attached. With
 * --force the library is not asked: files are hashed for their checksums only.
 */
function identifierOf(plan: EnginePlan, priors: Prior[], run: Run): Identifier {
  const { deps } = run;
  const wanted = (index: number): Wanted => {
    const item = plan.items[index]!;
    const prior = priors[index]!;
    return {
      files: item.files.map(
        (f, n) => !prior.done?.[n] && resumableKey(run, item, f) === undefined && !hashedAlongside(run, item, f),
      ),
      thumbnail: item.thumbnail !== undefined && !thumbnailAttached(run, item, prior.itemId),
    };
  };
  return createIdentifier(plan.items, wanted, {
    api: deps.api,
    signal: run.signal,
    check: !deps.force,
    hash: deps.hash ?? (deps.stalls ? (file, signal) => sha256OfFile(file, signal, { stalls: true }) : undefined),
    onUnsupported: () =>
      run.emit({
        type: 'notice',
        message:
          'this service cannot say which files it already has (no POST /api/v1/upload/check, or the key lacks content:read): duplicates are detected only by this machine’s upload journal; uploading as before',
      }),
    onRetry: (index) => {
      const first = plan.items[index]?.files[0];
      return first ? retryEvent(run, 'check', refOf(first, index, 'file')) : undefined;
    },
  });
}

/** A large video left out of the batches: hashed while its parts are sent (./hash-alongside.ts). */
function hashedAlongside(run: Run, item: EngineItem, file: SendableFile): boolean {
  if (run.alongside.has(file.path)) return true;
  if (!alongsideEligible(run, item, file)) return false;
  run.alongside.add(file.path);
  return true;
}

/** Whether the library's answer makes the item already there (what `withLibrary` then records). */
function foundIn(run: Run, item: EngineItem, itemId: string | undefined, identity: ItemIdentity): boolean {
  if (run.deps.force || identity.matches.every((m) => m === undefined)) return false;
  return (
    libraryVerdict({ type: item.type, matches: identity.matches, ...(itemId ? { target: itemId } : {}) }).kind !== 'new'
  );
}

/** The prior with what the library holds: files found there count as done, into the item they are in. */
function withLibrary(run: Run, item: EngineItem, index: number, prior: Prior, identity: ItemIdentity): Prior {
  if (run.deps.force || identity.matches.every((m) => m === undefined)) return prior;
  const verdict = libraryVerdict({
    type: item.type,
    matches: identity.matches,
    ...(prior.itemId ? { target: prior.itemId } : {}),
  });
  if (verdict.kind === 'new') return prior;
  const inLibrary = verdict.kind === 'there' ? item.files.map(() => true) : verdict.present;
  const done = item.files.map((_, n) => Boolean(prior.done?.[n]));
  let found = 0;
  item.files.forEach((file, n) => {
    if (done[n] || !inLibrary[n]) return;
    done[n] = true;
    found++;
    // The next run on this machine knows it without hashing it (no key of ours: it was not sent).
    run.deps.journal.recordFile(file, { itemId: verdict.itemId, key: `library:${verdict.itemId}`, type: item.type });
    run.emit({
      type: 'skipped',
      file: refOf(file, index, 'file'),
      itemId: verdict.itemId,
      reason: `already in the library as ${item.type}`,
      inLibrary: true,
    });
  });
  if (found === 0) return prior;
  return {
    done,
    doneCount: prior.doneCount + found,
    itemId: verdict.itemId,
    inLibrary: found,
    found: item.files.map((_, n) => done[n]! && !prior.done?.[n]),
    // Images added to a carousel that was there before this run.
    ...(verdict.kind === 'append' && !prior.itemId ? { appended: true as const } : {}),
  };
}

// ---- The window -----------------------------------------------------------------------------

async function driveItems(plan: EnginePlan, priors: Prior[], run: Run): Promise<OutcomeList> {
  const size = WINDOW_PER_TRANSFER * run.deps.concurrency;
  const fileSlots = createSlots(size, run.signal);
  const itemSlots = createSlots(size, run.signal);
  const outcomes = new OutcomeList(plan.items);
  const open = new Set<Promise<void>>();
  for (const [index, item] of plan.items.entries()) {
    let prior = priors[index]!;
    if (!(await itemSlots.acquire())) {
      // Stopped: no slot comes back once the signal is aborted, so no later item starts either.
      notStartedFrom(index, plan, priors, run, outcomes);
      break;
    }
    // Its files hashed and looked for in the library (a batch ahead of the transfers).
    const identity = await settle(run.identifier.of(index));
    if (!identity.ok || identity.value.error) {
      itemSlots.release();
      outcomes.set(
        identity.ok
          ? unidentified(run, item, index, prior, identity.value.error!)
          : notStarted(run, item, index, prior),
      );
      continue;
    }
    prior = withLibrary(run, item, index, prior, identity.value);
    const work = openItem(run, item, index, prior, identity.value);
    await work.admit(fileSlots);
    const settled: Promise<void> = work
      .conclude()
      .then((o) => outcomes.set(o))
      .finally(() => {
        itemSlots.release();
        open.delete(settled);
      });
    open.add(settled);
  }
  await Promise.all(open);
  return outcomes;
}

/** An item whose files could not be hashed, or the library not asked about them: not sent. */
function unidentified(run: Run, item: EngineItem, index: number, prior: Prior, err: StepError): ItemOutcome {
  const outcome = { ...baseOutcome(item, index), filesSkipped: prior.doneCount, itemId: prior.itemId };
  if (judge(run, err, run.signal) === 'cut-short') return stopped(run, outcome);
  const message = `${STEP_LABEL[err.step]} failed: ${messageOf(err.cause)}`;
  run.emit({
    type: 'failed',
    file: refOf(item.files[0]!, index, 'file'),
    item: index,
    message,
    step: err.step,
    ...codeOf(err.cause),
  });
  const rejected = isKeyRejected(err) ? { keyRejected: true as const } : {};
  return {
    ...outcome,
    status: prior.itemId ? 'partial' : 'failed',
    message: `${escapeName(item.files[0]!.name)}: ${message}`,
    ...rejected,
  };
}

/**
 * The items from `from` on, which the run never got to, kept in `outcomes` in one synchronous pass
 * that makes nothing for most of them (OutcomeList.setNotStarted): after a Ctrl-C early in a run
 * of 10,000 items, an outcome made for each of them, an await apart, grew the process by 5–16 MiB
 * within a tenth of a second, its peak (bench/notes.md, issue 41). A stop by a rejected key gives
 * each a message of its own (notStarted).
 */
function notStartedFrom(from: number, plan: EnginePlan, priors: Prior[], run: Run, outcomes: OutcomeList): void {
  const keyRejected = stopReason(run) === 'key-rejected';
  for (let index = from; index < plan.items.length; index++) {
    const item = plan.items[index]!;
    const prior = priors[index]!;
    const total = fileCountOf(item);
    const done = prior.doneCount === total;
    if (keyRejected && !done) outcomes.set(notStarted(run, item, index, prior));
    else outcomes.setNotStarted(index, done ? 'skipped' : 'interrupted', prior.doneCount, total, prior.itemId);
  }
}

/** An item the run never got to (Ctrl-C or a rejected key): done before, or not made. */
function notStarted(run: Run, item: EngineItem, index: number, prior: Prior): ItemOutcome {
  const outcome = { ...baseOutcome(item, index), filesSkipped: prior.doneCount, itemId: prior.itemId };
  if (prior.doneCount === fileCountOf(item)) return { ...outcome, status: 'skipped' };
  return stopped(run, outcome);
}

// ---- One item -------------------------------------------------------------------------------

function openItem(run: Run, item: EngineItem, index: number, prior: Prior, identity: ItemIdentity) {
  const state: ItemState = {
    itemId: prior.itemId,
    identity,
    completed: 0,
    chain: Promise.resolve(),
    ctl: new AbortController(),
  };
  const onStop = () => state.ctl.abort(run.signal.reason);
  run.signal.addEventListener('abort', onStop, { once: true });
  if (run.deps.reportSkippedFiles !== false)
    item.files.forEach((f, i) => {
      if (prior.done?.[i] && !prior.found?.[i])
        run.emit({ type: 'skipped', file: refOf(f, index, 'file'), itemId: prior.itemId!, reason: 'already uploaded' });
    });
  // An item the library held before this run gets a thumbnail only when asked (--update-metadata).
  const thumbFor = (p: Prior) =>
    p.itemId === undefined || metadataPending(run, p.itemId) || run.deps.updateMetadata
      ? startThumbnail(run, item, index, p.itemId, identity, state.ctl.signal)
      : undefined;
  // A file hashed while its parts are sent may turn out to be in the library: its thumbnail waits
  // for that answer, as it would have waited for the hash before.
  const late = item.files.some(
    (f, i) => !prior.done?.[i] && identity.sha256[i] === undefined && run.alongside.has(f.path),
  );
  let thumb = late ? undefined : thumbFor(prior);

  return {
    /** Takes a window slot for each file still to send, in order, and starts it. */
    async admit(slots: Slots): Promise<void> {
      // One read of the item's files: each read makes its records again (PackedItem).
      for (const [i, file] of item.files.entries()) {
        if (prior.done?.[i]) continue;
        if (!(await slots.acquire())) return;
        if (state.failure || state.ctl.signal.aborted) {
          slots.release();
          return;
        }
        const sha256 = state.identity.sha256[i];
        state.chain = sendFile(run, item, index, file, sha256, state, state.chain).finally(() => slots.release());
      }
    },
    /** Waits for the item's files, then applies its metadata or says what went wrong. */
    async conclude(): Promise<ItemOutcome> {
      await state.chain;
      run.signal.removeEventListener('abort', onStop);
      let known = prior;
      if (state.foundLate) {
        known = withLibrary(run, item, index, prior, state.foundLate);
        state.itemId = known.itemId;
      }
      if (late && !state.failure && !run.signal.aborted) thumb = thumbFor(known);
      return concludeItem(run, item, index, known, state, thumb);
    },
  };
}

/** One file: its transfer (or the key an earlier run left unconfirmed), then its complete in turn. */
async function sendFile(
  run: Run,
  item: EngineItem,
  index: number,
  file: SendableFile,
  sha256: string | undefined,
  state: ItemState,
  previous: Promise<void>,
): Promise<void> {
  const ref = refOf(file, index, 'file');
  const signal = state.ctl.signal;
  try {
    const resumed = resumableKey(run, item, file);
    // A changed byte refused at PUT is sent again at once, before this file's turn to complete.
    const sent: Settled<Sent | undefined> = resumed
      ? { ok: true as const, value: { key: resumed, ...journalParts(run, file, resumed) } }
      : sha256 === undefined && run.alongside.has(file.path)
        ? await settle(sendLate(run, item, file, ref, state, signal))
        : await settle(onceAgainIfChanged(run, file, ref, () => transfer(run, item, file, ref, sha256, signal)));
    await previous;
    // The refusal itself is reported; what the stop cut short is not a failure of its own.
    if (!sent.ok && isKeyRejected(sent.error)) throw sent.error;
    if (state.failure || signal.aborted) return;
    if (!sent.ok) throw sent.error;
    // In the library after all (hashed while its parts were sent): concluded as found.
    if (!sent.value) return;
    let res: CompleteResponse;
    try {
      res = await completeFile(run, item, file, ref, sent.value, state.itemId);
    } catch (err) {
      const changed = isChangedOnTheWay(err) && !run.sentAgain.has(file);
      if (!changed && !(resumed ? isUnknownKey(err) : isUploadGone(err))) throw err;
      // The server no longer knows the key (swept after its URL expired, or its item deleted
      // since), or refused the bytes that reached it: send the file afresh from disk, once.
      if (changed) sendingAgain(run, file, ref);
      run.deps.journal.dropPending(file);
      await forgetParts(run, file);
      const again = await transfer(run, item, file, ref, sha256, signal);
      res = await completeFile(run, item, file, ref, again, state.itemId);
    }
    if (!state.itemId) itemCreated(run, item, state, res.contentItemId);
    state.itemId = res.contentItemId;
    state.completed++;
  } catch (err) {
    const verdict = judge(run, err, signal);
    if (verdict === 'cut-short') return;
    // Only the journal's lookup before the first request can fail outside a step.
    const { step, cause } = err instanceof StepError ? err : new StepError('presign', err);
    const message = `${STEP_LABEL[step]} failed: ${messageOf(cause)}`;
    state.failure = { name: file.name, message, keyRejected: verdict === 'key-rejected' };
    state.ctl.abort();
    run.emit({ type: 'failed', file: ref, item: index, message, step, ...codeOf(cause) });
  }
}

/**
 * A file left out of the batches (./hash-alongside.ts): its parts sent while it is hashed, or,
 * when that is no longer possible (the service refused parts or the SHA-256 at complete), hashed
 * and looked up first as before. Undefined: the library holds it (`state.foundLate` says how).
 */
async function sendLate(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  state: ItemState,
  signal: AbortSignal,
): Promise<Sent | undefined> {
  const isFound = (identity: ItemIdentity) => foundIn(run, item, state.itemId, identity);
  // Decided once the transfer slot is free: what the service refused meanwhile counts.
  return run.pool.run(async () => {
    if (alongsideEligible(run, item, file)) {
      const result = await sendAlongside(run, item, file, ref, signal, isFound);
      if (result.kind === 'sent') return result.sent;
      state.foundLate = result.identity;
      return undefined;
    }
    const verdict = await verdictOf(run, file, ref);
    if (verdict.identity && isFound(verdict.identity)) {
      state.foundLate = verdict.identity;
      return undefined;
    }
    return onceAgainIfChanged(run, file, ref, () => transferNow(run, item, file, ref, verdict.sha256, signal));
  });
}

/** A key presigned for this file by an earlier run and never confirmed completed. */
function resumableKey(run: Run, item: EngineItem, file: SendableFile): string | undefined {
  if (run.deps.force) return undefined;
  const known = run.deps.journal.lookup(file);
  if (!known || known.state === 'completed') return undefined;
  // Parts still to send: the transfer continues them (./multipart.ts), after the file is hashed.
  if (known.state === 'presigned' && run.deps.journal.multipart(file.path)?.key === known.key) return undefined;
  if (known.type === item.type) return known.key;
  run.deps.journal.dropPending(file); // presigned as another type: of no use now
  return undefined;
}

/**
 * presign → PUT in the pool, each step in the journal; resolves with the stored key. The
 * file's SHA-256 is declared at presign (hashed now if it was not: a file sent after all).
 */
function transfer(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  sha256: string | undefined,
  signal: AbortSignal,
): Promise<Sent> {
  return run.pool.run(() => transferNow(run, item, file, ref, sha256, signal));
}

/** `transfer` in a slot of the pool already taken. */
async function transferNow(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  sha256: string | undefined,
  signal: AbortSignal,
): Promise<Sent> {
  const { journal } = run.deps;
  try {
    const checksum = await checksumOf(run, file, sha256);
    const ctx = multipartContext(run);
    const parts = { file, ref, type: item.type, sha256: checksum.sha256 };
    // An earlier run's parts, if the file is unchanged and the service still has the upload:
    // continued; else presign, which may offer parts (startParts). Both doors are multipart.ts's.
    const resumed = ctx && asksForParts(file.size) ? await continueParts(parts, ctx, signal) : undefined;
    if (resumed) {
      journal.recordPut(file, resumed.key);
      return resumed;
    }
    const presigned = await transferFile(file, ref, { type: item.type }, run.deps, run.emit, signal, {
      onPresigned: (p) => journal.recordPresigned(file, { key: p.key, type: item.type }),
      onBytes: (n) => (run.bytesSent += n),
      checksum,
      ...(ctx
        ? {
            multipart: {
              asks: () => !run.noParts,
              refused: () => (run.noParts = true),
              send: (p) => startParts(parts, p, ctx, signal),
            },
          }
        : {}),
    });
    journal.recordPut(file, presigned.key);
    return { key: presigned.key, ...(presigned.parts ? { parts: presigned.parts } : {}) };
  } catch (err) {
    // Judged at once, not when this file's turn to complete comes: a 401 starts no other transfer.
    judge(run, err, signal);
    throw err instanceof StepError ? err : new StepError('put', err);
  }
}

/** complete, then the journal; fails with a StepError of step 'complete'. */
async function completeFile(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  { key, parts, sha256 }: Sent,
  contentItemId: string | undefined,
): Promise<CompleteResponse> {
  const body: CompleteRequest = {
    key,
    ...(parts ? { parts } : {}),
    // Declared here when it was not at presign (an extension; docs/api.md "Declared at complete").
    ...(sha256 && run.lateChecksum && run.identifier.declares ? { sha256 } : {}),
    ...wireFile(file, item.type),
    ...(file.durationSeconds !== undefined && item.type !== 'carousel'
      ? { durationSeconds: file.durationSeconds }
      : {}),
    ...(contentItemId ? { contentItemId } : {}),
  };
  let res: CompleteResponse;
  try {
    // No abort signal: a complete already sent is let finish, so we know whether the item exists.
    const call = (b: CompleteRequest) => run.deps.api.complete(b, { onRetry: retryEvent(run, 'complete', ref) });
    res = await call(body).catch((err: unknown) => {
      // A service without the extension refuses the field: the upload is intact, complete it without.
      if (!body.sha256 || !refusesLateChecksum(err)) throw err;
      run.lateChecksum = false;
      run.emit({
        type: 'notice',
        message:
          'this service takes no checksum at complete: the large files still to send are read for their checksum before their parts (slower); this one is checked by the service alone',
      });
      const { sha256: _, ...without } = body;
      return call(without);
    });
    run.deps.journal.recordFile(file, {
      itemId: res.contentItemId,
      key,
      type: item.type,
      sortOrder: res.file?.sortOrder,
    });
    if (parts) {
      run.deps.journal.dropMultipart(key);
      run.held.delete(file);
    }
  } catch (err) {
    throw new StepError('complete', err);
  }
  const sortOrder = res.file?.sortOrder;
  // A key completed before answers with the item it went into: for a carousel that must be ours.
  if (contentItemId && res.contentItemId !== contentItemId)
    throw new StepError('complete', new Error(`it is already part of ${res.contentItemId}, not of ${contentItemId}`));
  run.emit({
    type: 'completed',
    file: ref,
    itemId: res.contentItemId,
    itemType: item.type,
    sortOrder,
    created: !contentItemId,
  });
  return res;
}

// ---- How an item ends -----------------------------------------------------------------------

async function concludeItem(
  run: Run,
  item: EngineItem,
  index: number,
  prior: Prior,
  state: ItemState,
  thumb: ThumbnailUpload | undefined,
): Promise<ItemOutcome> {
  const outcome: ItemOutcome = {
    ...baseOutcome(item, index),
    filesCompleted: state.completed,
    filesSkipped: prior.doneCount,
    itemId: state.itemId,
    ...(prior.inLibrary ? { filesInLibrary: prior.inLibrary } : {}),
    ...(prior.appended ? { appended: true as const } : {}),
  };
  const count = prior.doneCount + state.completed;
  const finished = count === item.files.length;
  if (!state.failure && !finished) {
    // Only a stop leaves an item unfinished without a failure.
    const progress = `${count} of ${item.files.length} images added`;
    return stopped(
      run,
      outcome,
      item.type === 'carousel' && state.itemId
        ? `${progress} to ${state.itemId}; run the same command again to finish it (or: contentlib rm ${state.itemId})`
        : undefined,
    );
  }
  // A carousel the library held before this run is never deleted for a failed append.
  if (state.failure) return failedItem(run, item, outcome, state, count, !prior.inLibrary);
  return finishItem(run, item, index, state, thumb, outcome);
}

function failedItem(
  run: Run,
  item: EngineItem,
  outcome: ItemOutcome,
  state: ItemState,
  count: number,
  ours: boolean,
): ItemOutcome | Promise<ItemOutcome> {
  const failure = state.failure!;
  const why = `${escapeName(failure.name)}: ${failure.message}`;
  const rejected = failure.keyRejected ? { keyRejected: true as const } : {};
  if (!state.itemId) return { ...outcome, status: 'failed', message: why, ...rejected };
  if (item.type !== 'carousel') return { ...outcome, status: 'partial', message: why, ...rejected };
  if (ours && !item.contentItemId && count < TYPE_RULES.carousel.minFiles && !run.keyRejected)
    return removeHalfCarousel(run, outcome, state.itemId, why);
  const progress = `${count} of ${item.files.length} images added`;
  return {
    ...outcome,
    status: 'partial',
    ...rejected,
    message: `${why}; ${progress} to ${state.itemId}. Fix it and run the same command again to add the rest in order.`,
  };
}

/** A carousel this tool made that failed below 2 images is not a carousel: delete it and forget it. */
async function removeHalfCarousel(run: Run, outcome: ItemOutcome, itemId: string, why: string): Promise<ItemOutcome> {
  try {
    await run.deps.api.remove(itemId);
    run.deps.journal.forgetItem(itemId);
    return {
      ...outcome,
      status: 'failed',
      itemId: undefined,
      deletedItemId: itemId,
      message: `${why}; the carousel ${itemId} it had started was deleted again`,
    };
  } catch (err) {
    judge(run, err, run.signal);
    return {
      ...outcome,
      status: 'partial',
      message: `${why}; the carousel ${itemId} has fewer than 2 images and could not be deleted (${messageOf(err)}). Run the same command again to finish it, or: contentlib rm ${itemId}`,
    };
  }
}

// ---- Multipart --------------------------------------------------------------------------------

/** A stored upload ready for complete: its key, and its parts' ETags when it was sent as parts. */
interface Sent {
  key: string;
  parts?: SentPart[];
  /** The file's SHA-256 for complete to declare (it was not declared at presign). */
  sha256?: string;
}

// ---- Small helpers --------------------------------------------------------------------------

function baseOutcome(item: EngineItem, index: number): ItemOutcome {
  return {
    index,
    type: item.type,
    source: item.source,
    status: 'created',
    filesCompleted: 0,
    filesSkipped: 0,
    filesTotal: fileCountOf(item),
  };
}
