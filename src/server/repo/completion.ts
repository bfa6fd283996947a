// Completing an upload, decided once for both databases. The decision (is the upload still
// there, was it completed before, does the carousel exist and have room, what to create) is the
// generator `completion` below; it does nothing itself but ask for steps, and each database
// answers them inside its own transaction: SQLite synchronously under its write lock
// (`runSteps`), PostgreSQL with row locks over one connection (`runStepsAsync`). A generator,
// because better-sqlite3's transactions cannot span an await while PostgreSQL's must.
//
// Adding a write to the completion (an audit entry, a checksum) is one method in
// CompletionSteps, one small implementation per database, and one `yield* step(…)` line here.
import type { CompleteInput, CompleteResult } from './interface.js';
import type { FileRow, ItemRow, NewItem } from './items.js';

/** What a locked upload row says about an earlier complete of its key. */
export interface UploadCompletion {
  completedAt: string | null;
  itemId: string | null;
  fileRecordId: string | null;
}

/** The small operations a completion is made of, each run inside the completion's transaction. */
export interface CompletionSteps {
  /** Locks the upload's row (completes of one key run one after another); null when it is gone. */
  lockUpload(key: string): UploadCompletion | null;
  /** Locks the caller's item (additions to one carousel count one after another); null when gone. */
  lockItem(brandId: string, id: string): ItemRow | null;
  createItem(item: NewItem): void;
  /** Appends an image at the next sortOrder and touches the item's updatedAt. */
  addFile(file: Omit<FileRow, 'sortOrder'>): FileRow;
  markCompleted(key: string, at: string, itemId: string, fileRecordId: string | null): void;
  /** The item as it now is (counts and sizes included), for the answer. */
  readItem(brandId: string, id: string): ItemRow | null;
  readFile(id: string): FileRow | null;
}

/** The same steps on a database that answers asynchronously. */
export type AsyncCompletionSteps = {
  [K in keyof CompletionSteps]: (...args: Parameters<CompletionSteps[K]>) => Promise<ReturnType<CompletionSteps[K]>>;
};

type StepRequest = {
  [K in keyof CompletionSteps]: { name: K; args: Parameters<CompletionSteps[K]> };
}[keyof CompletionSteps];

type Completion = Generator<StepRequest, CompleteResult, unknown>;

/** Asks the database for one step and hands back its answer, typed. */
function* step<K extends keyof CompletionSteps>(
  name: K,
  ...args: Parameters<CompletionSteps[K]>
): Generator<StepRequest, ReturnType<CompletionSteps[K]>, unknown> {
  // The drivers below answer each request with the named step's result.
  return (yield { name, args } as StepRequest) as ReturnType<CompletionSteps[K]>;
}

/** The decision: turns a stored upload into a new item or a carousel image, idempotent per key. */
export function* completion(c: CompleteInput): Completion {
  const upload = yield* step('lockUpload', c.key);
  // Swept after its URL expired, or removed with the item it went into, since the route read it.
  if (!upload) return { kind: 'upload_gone' };
  if (upload.completedAt) return yield* answer(c.brandId, upload.itemId, upload.fileRecordId);
  const file = {
    fileKey: c.key,
    fileName: c.fileName,
    contentType: c.contentType,
    fileSize: c.fileSize,
    sha256: c.sha256,
  };
  let itemId = c.newItemId;
  if (c.contentItemId) {
    itemId = c.contentItemId;
    const carousel = yield* step('lockItem', c.brandId, itemId);
    if (!carousel) return { kind: 'carousel_gone' };
    if (carousel.fileCount >= c.maxCarouselFiles) return { kind: 'carousel_full' };
  } else {
    yield* step('createItem', {
      id: itemId,
      brandId: c.brandId,
      type: c.type,
      title: c.title,
      ...file,
      durationSeconds: c.durationSeconds,
      createdAt: c.at,
    });
  }
  // A carousel's images are file records, its first included; a video is the item itself.
  const added =
    c.contentItemId || c.type === 'carousel'
      ? yield* step('addFile', { id: c.newFileId, itemId, ...file, createdAt: c.at })
      : null;
  yield* step('markCompleted', c.key, c.at, itemId, added?.id ?? null);
  return yield* answer(c.brandId, itemId, added?.id ?? null);
}

/** The rows the route answers with, read in the same transaction as the writes. */
function* answer(brandId: string, itemId: string | null, fileId: string | null): Completion {
  const item = itemId ? yield* step('readItem', brandId, itemId) : null;
  // Deleting an item removes its uploads in the same transaction: an upload completed into an
  // item that is not there is as gone as the item.
  if (!item) return { kind: 'upload_gone' };
  const file = fileId ? yield* step('readFile', fileId) : null;
  return { kind: 'done', item, file };
}

/** Calls the step a request names on `steps`. */
function perform<S extends CompletionSteps | AsyncCompletionSteps>(steps: S, request: StepRequest): unknown {
  // The request pairs a step's name with that step's arguments; TypeScript cannot follow the pair.
  const fn = steps[request.name] as (...args: unknown[]) => unknown;
  return fn(...request.args);
}

/** Runs the completion over synchronous steps (call it inside the database's transaction). */
export function runSteps(steps: CompletionSteps, c: CompleteInput): CompleteResult {
  const run = completion(c);
  let next = run.next();
  while (!next.done) next = run.next(perform(steps, next.value));
  return next.value;
}

/** Runs the completion over asynchronous steps (call it inside the database's transaction). */
export async function runStepsAsync(steps: AsyncCompletionSteps, c: CompleteInput): Promise<CompleteResult> {
  const run = completion(c);
  let next = run.next();
  while (!next.done) next = run.next(await perform(steps, next.value));
  return next.value;
}
