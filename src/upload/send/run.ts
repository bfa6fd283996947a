// One run of the engine (./engine.ts): what it is given (EngineDeps), the state its parts share
// (Run, and ItemState per open item), and the small steps every part takes: a file's FileRef,
// its retry events, what an error means for the run (`judge`, `stopped`), the checksum presign
// declares, and the one send again of a file whose bytes changed on the way.
import type { ApiClient } from '../../api/client.js';
import type { ItemMetadata } from '../../api/schemas.js';
import type { ContentType } from '../../rules/rules.js';
import type { Pool } from '../../concurrency/pool.js';
import { type EmitFn, type FileRef, type ItemOutcome, type Step, StepError, causeOf } from './events.js';
import type { Journal } from './journal.js';
import type { LocalFile } from './put.js';
import { type SendableFile, type TransferDeps, reasonOf } from './transfer.js';
import type { Identifier, ItemIdentity } from './identify.js';
import type { LibraryMetadata } from './metadata-diff.js';
import { isChangedOnTheWay, isKeyRejected } from './failure.js';

/** `parts` and `abortUpload` (the multipart extension) are optional: without them every file goes as one PUT. */
export type EngineApi = Pick<
  ApiClient,
  'dispatcher' | 'presign' | 'complete' | 'check' | 'patch' | 'get' | 'list' | 'remove'
> &
  Partial<Pick<ApiClient, 'parts' | 'abortUpload'>>;

/** A planned item (src/upload/plan/plan.ts PlannedItem fits). */
export interface EngineItem {
  type: ContentType;
  /** A carousel's images in the order they are to appear. */
  files: SendableFile[];
  /**
   * How many files, where the item knows without making `files` (a plan's items make a record
   * per file each time `files` is read: src/upload/plan/decide.ts, PackedItem). Read through
   * fileCountOf.
   */
  readonly fileCount?: number;
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
  /**
   * --update-metadata: an item that was in the library before this run gets the differences
   * between the local metadata and its own applied. Without it such an item is never written to:
   * the differences are only reported (./metadata-diff.ts).
   */
  updateMetadata?: boolean;
  /**
   * Emit a `skipped` event for each file an earlier run uploaded (NDJSON, --verbose). Off, the
   * `planned` event's `alreadyDone` and the summary's counts say it once: a re-run over 10,000
   * files costs no event per file for output that would drop them.
   */
  reportSkippedFiles?: boolean;
  /** Ctrl-C. */
  signal: AbortSignal;
  /** Parts of one file sent at once when the service offers a multipart upload (./multipart.ts). */
  partConcurrency?: number;
  /** Tests: how a file is hashed (./hash.ts by default). */
  hash?: (file: SendableFile, signal: AbortSignal) => Promise<string>;
  /**
   * The files are on a network share or a FUSE mount (src/fs/stalling-fs.ts): even small ones
   * are hashed through the thread pool (two at a time, identify.ts), never with synchronous reads that wait
   * for the share one after another.
   */
  stalls?: boolean;
  /**
   * Tests: a file hashed from what its parts read (./hash-fed.ts), once hashed: the bytes its
   * parts read (every try) and those the hash read itself.
   */
  onFedHash?: (file: SendableFile, counts: { fed: number; read: number }) => void;
}

export interface Run {
  deps: EngineDeps;
  emit: EmitFn;
  /** Each file's SHA-256 and what the library holds of it (./identify.ts). */
  identifier: Identifier;
  /** Files sent again because the bytes that reached the store were not theirs: once each. */
  sentAgain: WeakSet<SendableFile>;
  /** Aborts on Ctrl-C and on a rejected key: nothing new starts. */
  signal: AbortSignal;
  pool: Pool;
  bytesSent: number;
  /** Per file sent as parts and not yet completed: the bytes of its parts the service holds. */
  held: Map<LocalFile, number>;
  /** Set once the service refused parts (the field, or the endpoint): every file goes as one PUT. */
  noParts: boolean;
  /**
   * Whether complete may declare the SHA-256 (an extension): false once the service refused the
   * field, and from then on large files are hashed before presign again (./hash-alongside.ts).
   */
  lateChecksum: boolean;
  /**
   * Files left out of the identifier's batches, to be hashed while their parts are sent
   * (./hash-alongside.ts), by path: each read of a planned item's files makes its records again
   * (PackedItem), so a record's identity does not last from the batches to the send.
   */
  alongside: Set<string>;
  /** The parts of every file run in one pool (made at the first file sent as parts). */
  parts?: { pool: Pool };
  /**
   * Items the library held before this run, as the existence check read them: their metadata,
   * compared with the local one when they are concluded (metadataToApply). Cleared as used.
   */
  library: Map<string, LibraryMetadata>;
  keyRejected: boolean;
  /** The scope the key lacks, when that is why it was refused. */
  missingScope?: string;
  rejectKey(err: unknown): void;
}

export interface ItemState {
  itemId: string | undefined;
  /** This run created the item (its first file's complete made it): its metadata is applied. */
  created?: true;
  /** Each file's SHA-256 (declared at presign) and what the library holds. */
  identity: ItemIdentity;
  /** Its file, hashed while its parts were sent, turned out to be in the library: what the check said. */
  foundLate?: ItemIdentity;
  completed: number;
  failure?: { name: string; message: string; keyRejected: boolean };
  /** The last admitted file's work; each file's complete waits for the one before. */
  chain: Promise<void>;
  /** Stops this item's transfers: a failure (later images are useless) or the run stopping. */
  ctl: AbortController;
}

export function refOf(file: SendableFile, item: number, role: FileRef['role']): FileRef {
  return { path: file.path, name: file.name, size: file.size, item, role };
}

export function retryEvent(run: Run, step: Step, file: FileRef) {
  return ({ attempt, delayMs, error }: { attempt: number; delayMs: number; error: unknown }) =>
    run.emit({ type: 'retrying', step, file, attempt, delayMs, reason: reasonOf(error) });
}

/**
 * How many files `item` has, without making a record of each (a Ctrl-C in a run of 10,000 items
 * counts the files of every item not started; by `files`, ten records each; issue 41).
 */
export function fileCountOf(item: EngineItem): number {
  return item.fileCount ?? item.files.length;
}

/** Why the run stopped, if it did: Ctrl-C, or a request's 401. Ctrl-C wins: the user asked. */
export function stopReason(run: Run): 'interrupted' | 'key-rejected' | undefined {
  if (run.deps.signal.aborted) return 'interrupted';
  if (run.keyRejected) return 'key-rejected';
  return undefined;
}

/** An item the stop left unfinished: stopped by another request's 401, or interrupted (with what to do). */
export function stopped(run: Run, outcome: ItemOutcome, interruptedMessage?: string): ItemOutcome {
  if (stopReason(run) !== 'key-rejected')
    return { ...outcome, status: 'interrupted', ...(interruptedMessage ? { message: interruptedMessage } : {}) };
  const made = outcome.itemId !== undefined;
  return {
    ...outcome,
    status: made ? 'partial' : 'failed',
    keyRejected: true,
    message: `not ${made ? 'finished' : 'uploaded'}: the service rejected the API key, so the upload stopped`,
  };
}

/**
 * What an error means for the run: the service rejected the key (a 401 stops the whole run at
 * once, as every later request would be refused too, and is reported), or `signal` had cut the
 * request short (not a failure of its own), or a failure.
 */
export function judge(run: Run, err: unknown, signal: AbortSignal): 'key-rejected' | 'cut-short' | 'failed' {
  if (isKeyRejected(err)) {
    run.rejectKey(causeOf(err));
    return 'key-rejected';
  }
  return signal.aborted ? 'cut-short' : 'failed';
}

export function definedFields(metadata: ItemMetadata): ItemMetadata {
  return Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined)) as ItemMetadata;
}

export function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The checksum presign declares: the known SHA-256, else the file hashed now; none once the service refused them. */
export async function checksumOf(run: Run, file: SendableFile, known: string | undefined) {
  const { identifier } = run;
  const sha256 = identifier.declares ? (known ?? (await identifier.sha256Of(file).catch(hashFailed))) : undefined;
  return {
    sha256,
    declares: () => identifier.declares,
    refused: () => {
      if (!identifier.declares) return;
      identifier.refused();
      run.emit({
        type: 'notice',
        message:
          'this service refuses a declared checksum at presign: uploading without one (the bytes are not verified end to end)',
      });
    },
  };
}

function hashFailed(err: unknown): never {
  throw new StepError('hash', err);
}

/**
 * Runs `send` (presign → PUT); when the store refused the bytes that reached it as not the
 * file's (SHA-256 mismatch: changed on the way), sends them once more from disk.
 */
export async function onceAgainIfChanged<T>(
  run: Run,
  file: SendableFile,
  ref: FileRef,
  send: () => Promise<T>,
): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!isChangedOnTheWay(err) || run.sentAgain.has(file)) throw err;
    sendingAgain(run, file, ref);
    return send();
  }
}

/** Says why the file is sent again, and that it is the one time. */
export function sendingAgain(run: Run, file: SendableFile, ref: FileRef): void {
  run.sentAgain.add(file);
  run.emit({
    type: 'retrying',
    step: 'put',
    file: ref,
    attempt: 1,
    delayMs: 0,
    reason:
      'the bytes that reached the store differ from the file (SHA-256 mismatch); nothing was stored, sending it again from disk',
  });
}
