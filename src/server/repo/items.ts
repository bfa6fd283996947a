// Content items and carousel file records. Every read takes the caller's brand: an item of
// another brand is simply not found (null), exactly like a missing one. Writes name the row by
// its id: the decisions that make them (./item-changes.ts, ./carousel.ts) found it by brand first.
import type { ContentType, Status } from '../../rules/rules.js';
import { type ListFilter, type ListPage, foldTitle } from './list-filter.js';
import { type ListedRow, positionOf } from './list-sql.js';

export type { ListFilter, ListPage };
export { foldTitle, likeLiteral } from './list-filter.js';

export interface ItemRow {
  id: string;
  brandId: string;
  type: ContentType;
  title: string;
  description: string;
  hashtags: string[];
  status: Status;
  platformSettings: Record<string, unknown>;
  /** The main file: the video, or a carousel's first image. */
  fileKey: string;
  fileName: string;
  contentType: string;
  /** Bytes of the video, or of all a carousel's images together. */
  fileSize: number;
  fileCount: number;
  durationSeconds: number | null;
  thumbnailKey: string | null;
  /** SHA-256 of the main file and of the thumbnail; null until the sweeper fills in an older row. */
  sha256: string | null;
  thumbnailSha256: string | null;
  /** The main file's media facts as JSON text (src/rules/media-facts.ts); null for a carousel and until measured. */
  media: string | null;
  /**
   * The small JPEG made after complete (src/server/previews/): a video's poster frame, or a
   * carousel's first image's preview; null until made.
   */
  previewKey?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FileRow {
  id: string;
  itemId: string;
  fileKey: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  sortOrder: number;
  /** Null until the sweeper fills in a row made before checksums were kept. */
  sha256: string | null;
  /** The image's media facts as JSON text; null until measured. */
  media: string | null;
  /** The image's small JPEG preview, null until made (src/server/previews/). */
  previewKey?: string | null;
  createdAt: string;
}

export interface NewItem {
  id: string;
  brandId: string;
  type: ContentType;
  title: string;
  fileKey: string;
  fileName: string;
  contentType: string;
  fileSize: number;
  durationSeconds: number | null;
  /** The main file's SHA-256, verified before its bytes were promoted. */
  sha256: string;
  /** What the main file's bytes say (JSON text of src/rules/media-facts.ts's MediaFacts), or null when unreadable. */
  media: string | null;
  createdAt: string;
}

export interface ItemChanges {
  title?: string;
  description?: string;
  hashtags?: string[];
  status?: Status;
  platformSettings?: Record<string, unknown>;
  thumbnailKey?: string;
  /** The new thumbnail's verified SHA-256 (set by the server with thumbnailKey, never sent). */
  thumbnailSha256?: string;
}

/** A video's poster, or a carousel's first image's preview (SQLite and PostgreSQL alike). */
export const PREVIEW_OF_ITEM = `CASE WHEN i.type = 'carousel'
    THEN (SELECT f.preview_key FROM carousel_files f WHERE f.item_id = i.id ORDER BY f.sort_order LIMIT 1)
    ELSE i.preview_key END`;

/** A listed row as an item, and the page's end (./list-sql.ts). */
export function listPage(f: ListFilter, rows: ReadonlyArray<RawItem & { listRank?: number }>): ListPage<ItemRow> {
  const kept = rows.slice(0, f.limit);
  const hasMore = rows.length > f.limit;
  const last = kept[kept.length - 1];
  return {
    items: kept.map(({ listRank: _rank, ...row }) => toItem(row)!),
    hasMore,
    next: hasMore && last ? positionOf(f, last as ListedRow) : null,
  };
}

/** An item as a row holds it: hashtags and platformSettings as JSON text (SQLite and PostgreSQL alike). */
export type RawItem = Omit<ItemRow, 'hashtags' | 'platformSettings'> & { hashtags: string; platformSettings: string };

export function toItem(row: RawItem | undefined): ItemRow | null {
  if (!row) return null;
  return {
    ...row,
    hashtags: JSON.parse(row.hashtags) as string[],
    platformSettings: JSON.parse(row.platformSettings) as Record<string, unknown>,
  };
}

/** A new item's columns and their values, in one order for SQLite and PostgreSQL: a draft, updated when created. */
export function newItemRow(n: NewItem): { columns: string; values: unknown[] } {
  const row: Array<[column: string, value: unknown]> = [
    ['id', n.id],
    ['brand_id', n.brandId],
    ['type', n.type],
    ['title', n.title],
    ['title_fold', foldTitle(n.title)],
    ['status', 'draft'],
    ['file_key', n.fileKey],
    ['file_name', n.fileName],
    ['content_type', n.contentType],
    ['file_size', n.fileSize],
    ['duration_seconds', n.durationSeconds],
    ['sha256', n.sha256],
    ['media', n.media],
    ['created_at', n.createdAt],
    ['updated_at', n.createdAt],
  ];
  return { columns: row.map(([c]) => c).join(', '), values: row.map(([, v]) => v) };
}

/** The columns a change sets and their stored values (JSON as text): one list for SQLite and PostgreSQL. */
export function changedColumns(c: ItemChanges): Array<[column: string, value: unknown]> {
  const out: Array<[string, unknown]> = [];
  if (c.title !== undefined) out.push(['title', c.title], ['title_fold', foldTitle(c.title)]);
  if (c.description !== undefined) out.push(['description', c.description]);
  if (c.hashtags !== undefined) out.push(['hashtags', JSON.stringify(c.hashtags)]);
  if (c.status !== undefined) out.push(['status', c.status]);
  if (c.platformSettings !== undefined) out.push(['platform_settings', JSON.stringify(c.platformSettings)]);
  // A video's poster is made from its thumbnail when it has one (src/server/previews/): again now.
  if (c.thumbnailKey !== undefined)
    out.push(['thumbnail_key', c.thumbnailKey], ['preview_key', null], ['preview_tries', 0], ['preview_error', null]);
  if (c.thumbnailSha256 !== undefined) out.push(['thumbnail_sha256', c.thumbnailSha256]);
  return out;
}
