// Changing a carousel's images after upload (docs/api.md, Carousel images): reorder, remove one,
// replace one. Each is decided once for both databases, like the completion (./steps.ts): the
// decision locks the item's row first, so it runs one after another with every other change of
// the same carousel, appends included (the completion locks the same row), and it leaves the
// sortOrders 0..n-1 without gaps, the first image as the item's main file, and updatedAt moved.
// The replace is part of the completion (a new upload completed into a file's place, with every
// check complete makes); its writes are `replaceImage` below.
import type { ContentType } from '../../rules/rules.js';
import type { Actor } from './audit.js';
import { type ItemSteps, discardUpload } from './item-changes.js';
import type { FileRow, ItemRow } from './items.js';
import type { ObjectKeysOf } from './uploads.js';
import { type Decision, stepsOf } from './steps.js';

/**
 * The small operations a change of a carousel's images is made of, each inside its transaction:
 * an item's (./item-changes.ts; `lockItem` is what makes changes of one carousel, appends
 * included, run one after another) and these.
 */
export interface CarouselSteps extends ItemSteps {
  dropFile(id: string): void;
  insertFile(file: FileRow): void;
  /** Numbers the images 0..n-1 in this order, makes the first the item's main file, moves updatedAt. */
  arrange(itemId: string, files: readonly FileRow[], at: string): void;
}

/** Whose carousel, when, and who changes it (the audit entry). */
export interface CarouselChange {
  brandId: string;
  itemId: string;
  at: string;
  actor: Actor;
}

export type CarouselResult =
  /** The carousel as the transaction left it; `discarded`: objects queued for deletion, to remove now. */
  | { kind: 'done'; item: ItemRow; files: FileRow[]; discarded: string[] }
  | { kind: 'item_gone' }
  | { kind: 'not_a_carousel'; type: ContentType }
  /** The image named is not (or no longer) one of the carousel's. */
  | { kind: 'file_gone' }
  /** The order sent is not a permutation of the images: which are not in it, which are not the carousel's. */
  | { kind: 'stale'; missing: FileRow[]; unknown: string[] }
  /** Removing would leave fewer than the type's minimum. */
  | { kind: 'too_few'; count: number };

const step = stepsOf<CarouselSteps>();

/** How a proposed order differs from the images there are; both lists empty when it is a permutation. */
export function orderDifference(
  files: readonly FileRow[],
  fileIds: readonly string[],
): { missing: FileRow[]; unknown: string[] } {
  const sent = new Set(fileIds);
  const have = new Set(files.map((f) => f.id));
  return {
    missing: files.filter((f) => !sent.has(f.id)),
    unknown: [...new Set(fileIds.filter((id) => !have.has(id)))],
  };
}

/** The locked carousel, or why there is none to change. */
function* lockCarousel(c: CarouselChange): Decision<CarouselSteps, ItemRow | CarouselResult> {
  const item = yield* step('lockItem', c.brandId, c.itemId);
  if (!item) return { kind: 'item_gone' };
  if (item.type !== 'carousel') return { kind: 'not_a_carousel', type: item.type };
  return item;
}

const isItem = (v: ItemRow | CarouselResult): v is ItemRow => !('kind' in v);

/** The carousel as it now is, for the answer, read in the same transaction. */
function* finish(c: CarouselChange, discarded: string[]): Decision<CarouselSteps, CarouselResult> {
  const item = yield* step('readItem', c.brandId, c.itemId);
  // The row is locked until the transaction ends: it cannot have gone.
  if (!item) return { kind: 'item_gone' };
  return { kind: 'done', item, files: yield* step('files', c.itemId), discarded };
}

/**
 * Puts the images in the order of `fileIds`, which must name each of them once (else `stale`,
 * nothing changed). The order they already have changes nothing: updatedAt stays, no entry.
 */
export function* reorder(c: CarouselChange & { fileIds: readonly string[] }): Decision<CarouselSteps, CarouselResult> {
  const item = yield* lockCarousel(c);
  if (!isItem(item)) return item;
  const files = yield* step('files', item.id);
  const { missing, unknown } = orderDifference(files, c.fileIds);
  if (missing.length > 0 || unknown.length > 0 || c.fileIds.length !== files.length)
    return { kind: 'stale', missing, unknown };
  const byId = new Map(files.map((f) => [f.id, f]));
  const ordered = c.fileIds.map((id) => byId.get(id)!);
  if (ordered.every((f, i) => f.sortOrder === i)) return yield* finish(c, []);
  yield* step('arrange', item.id, ordered, c.at);
  yield* step('audit', {
    brandId: c.brandId,
    action: 'item.images_reordered',
    itemId: item.id,
    at: c.at,
    actor: c.actor,
    // `order`: each image's old position (from 1) in the new order, as `edit --order` takes it.
    details: {
      fileIds: c.fileIds,
      previousFileIds: files.map((f) => f.id),
      order: ordered.map((f) => f.sortOrder + 1),
    },
  });
  return yield* finish(c, []);
}

/** Removes one image, never below `minFiles`; the ones after it move up, its objects are queued for deletion. */
export function* removeImage(
  c: CarouselChange & { fileId: string; minFiles: number },
  objectKeysOf: ObjectKeysOf,
): Decision<CarouselSteps, CarouselResult> {
  const item = yield* lockCarousel(c);
  if (!isItem(item)) return item;
  const files = yield* step('files', item.id);
  const target = files.find((f) => f.id === c.fileId);
  if (!target) return { kind: 'file_gone' };
  if (files.length <= c.minFiles) return { kind: 'too_few', count: files.length };
  yield* step('dropFile', target.id);
  yield* step(
    'arrange',
    item.id,
    files.filter((f) => f.id !== target.id),
    c.at,
  );
  const discarded = yield* discardUpload(target.fileKey, c.at, objectKeysOf, { withPreview: true });
  yield* step('audit', {
    brandId: c.brandId,
    action: 'item.image_removed',
    itemId: item.id,
    at: c.at,
    actor: c.actor,
    details: { fileId: target.id, fileName: target.fileName, sortOrder: target.sortOrder },
  });
  return yield* finish(c, discarded);
}

/**
 * The writes of a replace, inside the completion's transaction (./completion.ts): the new image
 * takes the old one's sortOrder, and the old one's upload and objects go the way of a deleted
 * item's. Returns the new record and the objects queued for deletion.
 */
export function* replaceImage(
  itemId: string,
  files: readonly FileRow[],
  old: FileRow,
  added: Omit<FileRow, 'sortOrder'>,
  at: string,
  objectKeysOf: ObjectKeysOf,
): Decision<CarouselSteps, { file: FileRow; discarded: string[] }> {
  yield* step('dropFile', old.id);
  const file: FileRow = { ...added, sortOrder: old.sortOrder };
  yield* step('insertFile', file);
  yield* step(
    'arrange',
    itemId,
    files.map((f) => (f.id === old.id ? file : f)),
    at,
  );
  const discarded = yield* discardUpload(old.fileKey, at, objectKeysOf, { withPreview: true });
  return { file, discarded };
}
