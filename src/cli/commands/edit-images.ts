// `contentlib edit <id> --order … | --remove-image … | --replace-image … [--dry-run]`: a
// carousel's images after upload, through the extension of docs/api.md (Carousel images). The
// flags are read against the images as the service has them now (./edit-image-flags.ts); a
// replacement image is checked before this runs; --dry-run stops before any change.
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import type { RetryPolicy } from '../../api/retry.js';
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { sendCarouselImage } from '../../upload/send/carousel-image.js';
import { type SendableFile, wireFile } from '../../upload/send/transfer.js';
import { CliError, UsageError } from '../errors.js';
import { extensionMissing } from '../error-messages.js';
import { type ShownFile, sortedFiles } from '../output/item.js';
import {
  type ImageChange,
  type ImageFlags,
  describeChange,
  imagesAfter,
  planImageChange,
  sameOrder,
} from './edit-image-flags.js';

export interface ImageEditOptions {
  id: string;
  images: ImageFlags;
  /** --replace-image's file, already checked like any carousel image (src/upload/send/carousel-image.ts). */
  replacement?: SendableFile;
  dryRun?: boolean;
}

export interface ImageEditDeps {
  client: Pick<
    ApiClient,
    'baseUrl' | 'dispatcher' | 'get' | 'presign' | 'reorderImages' | 'removeImage' | 'replaceImage'
  >;
  now: () => Date;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  policy: RetryPolicy;
  signal: AbortSignal;
}

export interface ImageEditResult {
  /** done: changed; dry-run: what it would be; unchanged: the order asked for is the one there is. */
  outcome: 'done' | 'dry-run' | 'unchanged';
  change: ImageChange;
  /** The change in words: "image 2 (b.jpg) removed; …". */
  summary: string;
  /** The item and its images as they are now (dry-run: as they would be). */
  item: ContentItem;
  files: ShownFile[];
}

/** What to do on a service that cannot change a carousel's images: what the spec allows. */
export function manifestWorkaround(id: string): string {
  return [
    'The workaround: put the images in a new carousel, in the order you want, and delete this one (the new one gets a new id and createdAt):',
    `  contentlib show ${id} --jq '.files[] | .fileUrl'   # download each image (curl -o 1.jpg URL …)`,
    '  contentlib upload --manifest carousel.json          # [{"files": ["1.jpg", "2.jpg", …], "type": "carousel", "title": …}]',
    `  contentlib rm ${id}`,
  ].join('\n');
}

/** Reads the carousel, works out the change, and (unless a dry run) asks the service for it. */
export async function runImageEdit(o: ImageEditOptions, deps: ImageEditDeps): Promise<ImageEditResult> {
  const signal = deps.signal;
  const current = await deps.client.get(o.id, { signal });
  const { item } = current;
  if (item.type !== 'carousel')
    throw new UsageError(
      `Item ${o.id} is a ${item.type}, not a carousel: only a carousel's images can be reordered, removed or replaced.`,
      `See the item with: contentlib show ${o.id}`,
    );
  const files = sortedFiles(current.files);
  const change = planImageChange(o.images, files, o.id);
  const summary = describeChange(change, files, o.replacement?.name);
  if (sameOrder(change, files)) return { outcome: 'unchanged', change, summary, item, files };
  if (o.dryRun) {
    const after = imagesAfter(change, files, preview(o));
    return { outcome: 'dry-run', change, summary, item: itemWith(item, after), files: after };
  }
  const after = await apply(o, change, deps).catch((err: unknown) => {
    throw explain(err, o.id, change, deps.client.baseUrl);
  });
  return { outcome: 'done', change, summary, item: after.item, files: sortedFiles(after.files) };
}

/** The new image of a replace as a dry run shows it: not uploaded, so without id or key. */
function preview(o: ImageEditOptions): ShownFile | undefined {
  const f = o.replacement;
  if (!f) return undefined;
  return {
    id: null,
    fileKey: null,
    sortOrder: 0,
    fileName: f.name,
    contentType: f.contentType,
    fileSize: f.size,
    path: f.path,
  };
}

/** The item as the change would leave it: its first image is its main file; counts and sizes follow. */
function itemWith(item: ContentItem, files: readonly ShownFile[]): ContentItem {
  const first = files[0];
  if (!first) return item;
  const sizes = files.map((f) => f.fileSize);
  return {
    ...item,
    fileName: first.fileName ?? item.fileName,
    contentType: first.contentType ?? item.contentType,
    fileUrl: typeof first.fileUrl === 'string' ? first.fileUrl : null,
    fileCount: files.length,
    ...(sizes.every((n) => typeof n === 'number') ? { fileSize: sizes.reduce((a, b) => a + b, 0) } : {}),
  };
}

async function apply(
  o: ImageEditOptions,
  change: ImageChange,
  deps: ImageEditDeps,
): Promise<{ item: ContentItem; files: CarouselFile[] }> {
  const { client, signal } = deps;
  switch (change.kind) {
    case 'order':
      return client.reorderImages(
        o.id,
        change.files.map((f) => f.id),
        { signal },
      );
    case 'remove':
      return client.removeImage(o.id, change.file.id, { signal });
    case 'replace': {
      const file = o.replacement;
      if (!file) throw new Error('--replace-image without its checked file');
      const key = await sendCarouselImage(
        file,
        { api: client, now: deps.now, sleep: deps.sleep, policy: deps.policy },
        signal,
      );
      return client.replaceImage(o.id, change.file.id, { key, ...wireFile(file) }, { signal });
    }
  }
}

/** A 404 that names no field (or a 405/501): the endpoint is not there, so neither is the extension. */
function lacksExtension(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 405 || err.status === 501) return true;
  return err.status === 404 && !err.details.some((d) => typeof (d as { path?: unknown } | null)?.path === 'string');
}

/** The service's refusals of a change, in the words of this command; anything else as it is. */
function explain(err: unknown, id: string, change: ImageChange, baseUrl: string): unknown {
  if (lacksExtension(err))
    return extensionMissing(
      baseUrl,
      "changes to a carousel's images (reorder, remove, replace)",
      `Nothing was changed. ${manifestWorkaround(id)}`,
    );
  if (!(err instanceof ApiError)) return err;
  const again = `Look at it again (contentlib show ${id}) and run the command again.`;
  if (err.is('files_changed'))
    return new CliError(
      `Carousel ${id} changed while this command ran (an image was added, removed or replaced); nothing was changed.`,
      { hint: again, cause: err },
    );
  if (err.is('carousel_minimum'))
    return new CliError(`Carousel ${id} is down to 2 images, the fewest a carousel keeps; nothing was removed.`, {
      hint: `Add an image first (contentlib upload --to ${id} FILE), or delete the whole carousel (contentlib rm ${id}).`,
      cause: err,
    });
  if (
    err.status === 404 &&
    change.kind !== 'order' &&
    err.details.some((d) => (d as { path?: unknown }).path === 'fileId')
  )
    return new CliError(
      `Image ${change.position} (${change.file.fileName ?? change.file.id}) is no longer in carousel ${id}: it was removed or replaced meanwhile; nothing was changed.`,
      { hint: again, cause: err },
    );
  return err;
}
