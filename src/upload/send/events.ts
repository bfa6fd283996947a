// What the upload engine tells the world. The engine only emits these; the progress bars, the
// plain CI lines and the NDJSON stream are three listeners (src/cli/output/progress-*.ts), and
// tests simply collect them.
import type { ContentType } from '../../rules/rules.js';
import type { MetadataField } from './metadata-diff.js';

/** One file as events name it: enough for a listener to print a line or draw a bar. */
export interface FileRef {
  /** Absolute path. */
  path: string;
  /** Base name, what people recognise. */
  name: string;
  size: number;
  /** Index of the planned item the file belongs to (0-based, plan order). */
  item: number;
  /** "file" for the item's media, "thumbnail" for its thumbnail image. */
  role: 'file' | 'thumbnail';
}

/**
 * The step a retry or a failure belongs to: reading a file for its checksum, the check that the
 * library holds its bytes or that an earlier run's item still exists, presign, the storage PUT,
 * complete, the metadata PATCH.
 */
export type Step = 'hash' | 'check' | 'presign' | 'put' | 'complete' | 'patch';

/** A request of `step` failed with `cause`: thrown where the step fails, so whoever reports it knows which. */
export class StepError extends Error {
  override readonly cause: unknown;
  constructor(
    readonly step: Step,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'StepError';
    this.cause = cause;
  }
}

/** The error a StepError wraps, or the error itself. */
export function causeOf(err: unknown): unknown {
  return err instanceof StepError ? err.cause : err;
}

export type UploadEvent =
  | { type: 'planned'; items: number; files: number; bytes: number; alreadyDone: number }
  /**
   * The file's transfer starts. `resumedFrom`: the bytes of it an earlier run stored already (the
   * parts of a multipart upload the service holds), which this run does not send again.
   */
  | { type: 'started'; file: FileRef; resumedFrom?: number }
  /** Bytes handed to the connection so far for this try (restarts at 0 when a PUT is retried). */
  | { type: 'progress'; file: FileRef; sent: number }
  /** The storage PUT answered 2xx: the bytes are stored, the item not yet created. */
  | { type: 'uploaded'; file: FileRef; ms: number }
  /** complete answered: the file is part of item `itemId` (sortOrder for a carousel image). */
  | { type: 'completed'; file: FileRef; itemId: string; itemType: ContentType; sortOrder?: number; created: boolean }
  /** `message` starts with the step ("complete: …") and ends with the server's code when it gave one. */
  | { type: 'failed'; file?: FileRef; item: number; message: string; step?: Step; code?: string }
  /**
   * Not sent: done in an earlier run (the journal says so and the item still exists), or its
   * bytes are in the library already (`inLibrary`: found by checksum, wherever they came from).
   */
  | { type: 'skipped'; file: FileRef; itemId: string; reason: string; inLibrary?: true }
  /** Something the user should know once, e.g. that duplicates are detected only by this machine's journal. */
  | { type: 'notice'; message: string }
  /** A request failed and is tried again after `delayMs`; `file` is the file it is for (for patch and check: the item's first file). */
  | { type: 'retrying'; step: Step; file: FileRef; attempt: number; delayMs: number; reason: string };

export type EmitFn = (event: UploadEvent) => void;

/** What became of one planned item. */
export interface ItemOutcome {
  index: number;
  type: ContentType;
  /** The file or directory the item came from, as planned. */
  source: string;
  /** created: made (or finished) by this run; skipped: all done before; failed: nothing usable; partial: exists but incomplete. */
  status: 'created' | 'skipped' | 'failed' | 'partial' | 'interrupted';
  itemId?: string;
  /** Files completed into the item by this run, and those not sent: done before (journal) or in the library. */
  filesCompleted: number;
  filesSkipped: number;
  /** Of filesSkipped, those found in the library by their checksum. */
  filesInLibrary?: number;
  filesTotal: number;
  /** Why it failed or is incomplete, and what to do. */
  message?: string;
  /** The service rejected the API key (401, or 403 for a missing scope): a new key, not a retry, is what helps. */
  keyRejected?: true;
  /** An item this run created and then deleted because it could not be finished. */
  deletedItemId?: string;
  /** The files were added to an existing carousel (--to's, or one the library held), not a new item. */
  appended?: true;
  /**
   * The item was in the library before this run and its metadata differs from the local one in
   * these fields: reported, not applied (--update-metadata applies them).
   */
  differs?: MetadataField[];
  /** --update-metadata: the fields of an item already in the library that this run changed. */
  updated?: MetadataField[];
  /** The title the plan gave it (for the summary). */
  title?: string;
}

/**
 * The items' outcomes in plan order: what the engine returns keeps them packed and makes each
 * again when read (./outcomes.ts); an array will do as well. Read them in order, or one by `at`.
 */
export interface ItemOutcomes extends Iterable<ItemOutcome> {
  readonly length: number;
  at(index: number): ItemOutcome | undefined;
}

export interface UploadSummary {
  items: ItemOutcomes;
  interrupted: boolean;
  /** The service rejected the API key (401, or 403 for a missing scope): the run stopped at once. */
  keyRejected?: true;
  /** The scope the key lacks, when that is why it was refused (e.g. content:write). */
  missingScope?: string;
  bytesSent: number;
  /**
   * Bytes of files sent as parts (a multipart upload) that the service holds but that are not
   * part of an item yet: kept for the next run, which sends only the rest. Absent when none.
   */
  bytesKept?: number;
  ms: number;
  /** Files under the named folders the plan did not upload (reported before the upload). */
  skippedFiles?: number;
  /** --skip-invalid: files left out of the plan because they broke a rule (reported before the upload). */
  leftOut?: number;
  /** The command's exit code for this outcome (set by the command before the summary is written). */
  exitCode?: number;
}
