// Content items and carousel file records. Every read takes the caller's brand: an item of
// another brand is simply not found (null), exactly like a missing one. Writes name the row by
// its id: the decisions that make them (./item-changes.ts, ./carousel.ts) found it by brand first.
import type { ContentType, Status } from '../../rules/rules.js';
import type { Db } from './sqlite/db.js';
import { type ListFilter, type ListPage, foldTitle, foldedHashtags } from './list-filter.js';
import { type ListDialect, type ListedRow, listSql, positionOf } from './list-sql.js';

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
  /** The main file's verified SHA-256. */
  sha256: string;
  /** The main file's media facts as JSON text, or null. */
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

// Carousel counts and sizes come from their file records; a video is its one file.
const ITEM_COLUMNS = `
  i.id, i.brand_id AS brandId, i.type, i.title, i.description, i.hashtags, i.status,
         i.platform_settings AS platformSettings, i.file_key AS fileKey, i.file_name AS fileName,
         i.content_type AS contentType, i.duration_seconds AS durationSeconds,
         i.thumbnail_key AS thumbnailKey, i.sha256, i.thumbnail_sha256 AS thumbnailSha256, i.media,
         i.created_at AS createdAt, i.updated_at AS updatedAt,
         CASE WHEN i.type = 'carousel'
              THEN (SELECT COUNT(*) FROM carousel_files f WHERE f.item_id = i.id) ELSE 1 END AS fileCount,
         CASE WHEN i.type = 'carousel'
              THEN (SELECT COALESCE(SUM(f.file_size), 0) FROM carousel_files f WHERE f.item_id = i.id)
              ELSE i.file_size END AS fileSize,
         ${PREVIEW_OF_ITEM} AS previewKey`;
const SELECT_ITEM = `SELECT ${ITEM_COLUMNS} FROM items i`;

/** The list's SQL on SQLite: the words through the FTS5 index (items_fts, kept by triggers). */
const SQLITE_LIST: ListDialect = {
  param: (n) => `?${n}`,
  columns: ITEM_COLUMNS,
  textMatch: (words, arg) =>
    `i.rowid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ${arg(words.map((w) => `"${w}"*`).join(' '))})`,
};

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

export function itemsRepository(db: Db) {
  function get(brandId: string, id: string): ItemRow | null {
    return toItem(
      db.prepare(`${SELECT_ITEM} WHERE i.id = ? AND i.brand_id = ?`).get(id, brandId) as RawItem | undefined,
    );
  }

  function create(n: NewItem): void {
    const { columns, values } = newItemRow(n);
    db.prepare(`INSERT INTO items (${columns}) VALUES (${values.map(() => '?').join(', ')})`).run(...values);
  }

  /** A page of the brand's items in the filter's order (./list-sql.ts). */
  function list(brandId: string, f: ListFilter): ListPage<ItemRow> {
    const { sql, values } = listSql(brandId, f, SQLITE_LIST);
    return listPage(f, db.prepare(sql).all(...values) as RawItem[]);
  }

  /** Sets the changed columns and updatedAt of the item with this id (the decision checked its brand). */
  function update(id: string, c: ItemChanges, at: string): void {
    const sets: string[] = ['updated_at = ?'];
    const args: unknown[] = [at];
    for (const [column, value] of changedColumns(c)) {
      sets.push(`${column} = ?`);
      args.push(value);
    }
    db.prepare(`UPDATE items SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
    if (c.hashtags !== undefined) {
      // The hashtag filter's rows (item_hashtags), written with the hashtags themselves.
      db.prepare('DELETE FROM item_hashtags WHERE item_id = ?').run(id);
      const add = db.prepare(
        'INSERT INTO item_hashtags (item_id, tag, brand_id, created_at) SELECT id, ?, brand_id, created_at FROM items WHERE id = ?',
      );
      for (const tag of foldedHashtags(c.hashtags)) add.run(tag, id);
    }
  }

  function remove(id: string): void {
    db.prepare('DELETE FROM items WHERE id = ?').run(id);
  }

  function files(itemId: string): FileRow[] {
    return db
      .prepare(
        `SELECT id, item_id AS itemId, file_key AS fileKey, file_name AS fileName, content_type AS contentType,
                file_size AS fileSize, sort_order AS sortOrder, sha256, media, preview_key AS previewKey,
                created_at AS createdAt
           FROM carousel_files WHERE item_id = ? ORDER BY sort_order`,
      )
      .all(itemId) as FileRow[];
  }

  function file(id: string): FileRow | null {
    return (
      (db
        .prepare(
          `SELECT id, item_id AS itemId, file_key AS fileKey, file_name AS fileName, content_type AS contentType,
                  file_size AS fileSize, sort_order AS sortOrder, sha256, media, preview_key AS previewKey,
                  created_at AS createdAt
             FROM carousel_files WHERE id = ?`,
        )
        .get(id) as FileRow | undefined) ?? null
    );
  }

  /** Appends an image at the next 0-based position and touches the item (call inside a transaction). */
  function addFile(f: Omit<FileRow, 'sortOrder'>): FileRow {
    const { next } = db
      .prepare('SELECT COALESCE(MAX(sort_order) + 1, 0) AS next FROM carousel_files WHERE item_id = ?')
      .get(f.itemId) as {
      next: number;
    };
    db.prepare(
      `INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, sha256, media, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(f.id, f.itemId, f.fileKey, f.fileName, f.contentType, f.fileSize, next, f.sha256, f.media, f.createdAt);
    db.prepare('UPDATE items SET updated_at = ? WHERE id = ?').run(f.createdAt, f.itemId);
    return { ...f, sortOrder: next };
  }

  function dropFile(id: string): void {
    db.prepare('DELETE FROM carousel_files WHERE id = ?').run(id);
  }

  function insertFile(f: FileRow): void {
    db.prepare(
      `INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, sha256, media, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      f.id,
      f.itemId,
      f.fileKey,
      f.fileName,
      f.contentType,
      f.fileSize,
      f.sortOrder,
      f.sha256,
      f.media,
      f.createdAt,
    );
  }

  /** Numbers the images 0..n-1 in this order; the first becomes the item's main file (call inside a transaction). */
  function arrange(itemId: string, ordered: readonly FileRow[], at: string): void {
    // (item_id, sort_order) is unique and checked row by row: out of the way first, then in place.
    db.prepare('UPDATE carousel_files SET sort_order = -1 - sort_order WHERE item_id = ?').run(itemId);
    const place = db.prepare('UPDATE carousel_files SET sort_order = ? WHERE id = ? AND item_id = ?');
    ordered.forEach((f, i) => place.run(i, f.id, itemId));
    const first = ordered[0];
    // The first image is the item's main file: its checksum too.
    const main = first ? [first.fileKey, first.fileName, first.contentType, first.fileSize, first.sha256] : null;
    if (main)
      db.prepare(
        'UPDATE items SET file_key = ?, file_name = ?, content_type = ?, file_size = ?, sha256 = ?, updated_at = ? WHERE id = ?',
      ).run(...main, at, itemId);
    else db.prepare('UPDATE items SET updated_at = ? WHERE id = ?').run(at, itemId);
  }

  return { get, create, list, update, remove, files, file, addFile, dropFile, insertFile, arrange };
}
export type ItemsRepository = ReturnType<typeof itemsRepository>;
