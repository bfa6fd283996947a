// Completing an upload, decided once for both databases. The decision (is the upload still
// there, was it completed before, does the carousel exist and have room, what to create) is the
// generator `completion` below; it does nothing itself but ask for steps, and each database
// answers them inside its own transaction (./steps.ts: SQLite synchronously under its write
// lock, PostgreSQL with row locks over one connection). A replace (`replaceFileId`, docs/api.md
// Carousel images) is the same completion taking an image's place: ./carousel.ts `replaceImage`.
//
// Adding a write to the completion (an audit entry, a checksum) is one method in
// CompletionSteps, one small implementation per database, and one `yield* step(…)` line here.
import { type CarouselSteps, replaceImage } from './carousel.js';
import type { CompleteInput, CompleteResult } from './interface.js';
import type { FileRow, NewItem } from './items.js';
import { type Decision, stepsOf } from './steps.js';
import { type ObjectKeysOf, ownKey } from './uploads.js';

/** What a locked upload row says about an earlier complete of its key. */
export interface UploadCompletion {
  completedAt: string | null;
  itemId: string | null;
  fileRecordId: string | null;
}

/**
 * The small operations a completion is made of, each run inside the completion's transaction:
 * a carousel's (lockItem, audit, readItem and a replace's) and these.
 */
export interface CompletionSteps extends CarouselSteps {
  /** Locks the upload's row (completes of one key run one after another); null when it is gone. */
  lockUpload(key: string): UploadCompletion | null;
  createItem(item: NewItem): void;
  /** Appends an image at the next sortOrder and touches the item's updatedAt. */
  addFile(file: Omit<FileRow, 'sortOrder'>): FileRow;
  markCompleted(key: string, at: string, itemId: string, fileRecordId: string | null): void;
  readFile(id: string): FileRow | null;
}

type Completion = Decision<CompletionSteps, CompleteResult>;

const step = stepsOf<CompletionSteps>();

/**
 * The decision: turns a stored upload into a new item, a carousel image, or (with replaceFileId)
 * the image in another one's place; idempotent per key.
 */
export function* completion(c: CompleteInput, objectKeysOf: ObjectKeysOf = ownKey): Completion {
  const upload = yield* step('lockUpload', c.key);
  // Swept after its URL expired, or removed with the item it went into, since the route read it.
  if (!upload) return { kind: 'upload_gone' };
  if (upload.completedAt) return yield* answer(c.brandId, upload.itemId, upload.fileRecordId, []);
  const file = {
    fileKey: c.key,
    fileName: c.fileName,
    contentType: c.contentType,
    fileSize: c.fileSize,
    sha256: c.sha256,
    media: c.media,
  };
  let itemId = c.newItemId;
  let replacing: { files: FileRow[]; old: FileRow } | null = null;
  if (c.contentItemId) {
    itemId = c.contentItemId;
    const carousel = yield* step('lockItem', c.brandId, itemId);
    if (!carousel) return { kind: 'carousel_gone' };
    if (c.replaceFileId) {
      const files = yield* step('files', itemId);
      const old = files.find((f) => f.id === c.replaceFileId);
      if (!old) return { kind: 'file_gone' };
      replacing = { files, old };
    } else if (carousel.fileCount >= c.maxCarouselFiles) return { kind: 'carousel_full' };
  } else {
    yield* step('createItem', {
      id: itemId,
      brandId: c.brandId,
      type: c.type,
      title: c.title,
      ...file,
      // A carousel's facts are its images' (in their file records), not one item-wide value.
      media: c.type === 'carousel' ? null : c.media,
      durationSeconds: c.durationSeconds,
      createdAt: c.at,
    });
  }
  // A carousel's images are file records, its first included; a video is the item itself.
  const newFile = { id: c.newFileId, itemId, ...file, createdAt: c.at };
  let added: FileRow | null = null;
  let discarded: string[] = [];
  if (replacing) {
    ({ file: added, discarded } = yield* replaceImage(
      itemId,
      replacing.files,
      replacing.old,
      newFile,
      c.at,
      objectKeysOf,
    ));
  } else if (c.contentItemId || c.type === 'carousel') {
    added = yield* step('addFile', newFile);
  }
  yield* step('markCompleted', c.key, c.at, itemId, added?.id ?? null);
  yield* step('audit', {
    brandId: c.brandId,
    itemId,
    at: c.at,
    actor: c.actor,
    ...(replacing
      ? {
          action: 'item.image_replaced',
          details: {
            fileId: added!.id,
            fileName: c.fileName,
            sortOrder: added!.sortOrder,
            replacedFileId: replacing.old.id,
            replacedFileName: replacing.old.fileName,
          },
        }
      : c.contentItemId
        ? {
            action: 'item.image_added',
            details: { fileId: added!.id, fileName: c.fileName, sortOrder: added!.sortOrder },
          }
        : { action: 'item.created', details: { type: c.type, title: c.title, fileName: c.fileName } }),
  });
  return yield* answer(c.brandId, itemId, added?.id ?? null, discarded);
}

/** The rows the route answers with, read in the same transaction as the writes. */
function* answer(brandId: string, itemId: string | null, fileId: string | null, discarded: string[]): Completion {
  const item = itemId ? yield* step('readItem', brandId, itemId) : null;
  // Deleting an item removes its uploads in the same transaction: an upload completed into an
  // item that is not there is as gone as the item.
  if (!item) return { kind: 'upload_gone' };
  const file = fileId ? yield* step('readFile', fileId) : null;
  return { kind: 'done', item, file, discarded };
}
