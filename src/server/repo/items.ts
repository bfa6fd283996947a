// Content items and carousel file records. Every read takes the caller's brand: an item of
// another brand is simply not found (null), exactly like a missing one. Writes name the row by
// its id: the decisions that make them (./item-changes.ts, ./carousel.ts) found it by brand first.
import type { ContentType, Status } from '../../rules/rules.js';
import type { Db } from './sqlite/db.js';

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

export interface ListFilter {
  status?: Status;
  type?: ContentType;
  search?: string;
  /** Extension: ids starting with this (lower case, the start of a UUID; checked by the route). */
  idPrefix?: string;
  limit: number;
  offset: number;
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
const SELECT_ITEM = `
  SELECT i.id, i.brand_id AS brandId, i.type, i.title, i.description, i.hashtags, i.status,
         i.platform_settings AS platformSettings, i.file_key AS fileKey, i.file_name AS fileName,
         i.content_type AS contentType, i.duration_seconds AS durationSeconds,
         i.thumbnail_key AS thumbnailKey, i.sha256, i.thumbnail_sha256 AS thumbnailSha256, i.media,
         i.created_at AS createdAt, i.updated_at AS updatedAt,
         CASE WHEN i.type = 'carousel'
              THEN (SELECT COUNT(*) FROM carousel_files f WHERE f.item_id = i.id) ELSE 1 END AS fileCount,
         CASE WHEN i.type = 'carousel'
              THEN (SELECT COALESCE(SUM(f.file_size), 0) FROM carousel_files f WHERE f.item_id = i.id)
              ELSE i.file_size END AS fileSize,
         ${PREVIEW_OF_ITEM} AS previewKey
    FROM items i`;

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

/** `%`, `_` and the escape character itself are taken literally in a LIKE pattern. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Case folding done in JS (unicode-aware), because SQLite's lower() only folds ASCII. */
export function foldTitle(title: string): string {
  return title.toLowerCase();
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

  /** A page of the brand's items, newest first; one extra row is fetched to know `hasMore`. */
  function list(brandId: string, f: ListFilter): { items: ItemRow[]; hasMore: boolean } {
    const where = ['i.brand_id = ?'];
    const args: unknown[] = [brandId];
    if (f.status) {
      where.push('i.status = ?');
      args.push(f.status);
    }
    if (f.type) {
      where.push('i.type = ?');
      args.push(f.type);
    }
    if (f.search) {
      where.push(`i.title_fold LIKE ? ESCAPE '\\'`);
      args.push(`%${likeLiteral(foldTitle(f.search))}%`);
    }
    if (f.idPrefix) {
      where.push('substr(i.id, 1, ?) = ?');
      args.push(f.idPrefix.length, f.idPrefix);
    }
    const rows = db
      .prepare(`${SELECT_ITEM} WHERE ${where.join(' AND ')} ORDER BY i.created_at DESC, i.id DESC LIMIT ? OFFSET ?`)
      .all(...args, f.limit + 1, f.offset) as RawItem[];
    return { items: rows.slice(0, f.limit).map((r) => toItem(r)!), hasMore: rows.length > f.limit };
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
