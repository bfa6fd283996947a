// Content items and carousel file records on SQLite: the shared rows and queries of ../items.ts
// and ../list-sql.ts in SQLite's words. Every read takes the caller's brand; writes name the row
// by its id (the decisions that make them, ../item-changes.ts and ../carousel.ts, found it by brand first).
import type { Db } from './db.js';
import {
  type FileRow,
  type ItemChanges,
  type ItemRow,
  type ListFilter,
  type ListPage,
  type NewItem,
  PREVIEW_OF_ITEM,
  type RawItem,
  changedColumns,
  listPage,
  newItemRow,
  toItem,
} from '../items.js';
import { foldedHashtags } from '../list-filter.js';
import { EMPTY_LIST_PAGE, type ListDialect, keyIdsSql, keysOf, listSql } from '../list-sql.js';
import { listProbes, readAfter } from '../list-read.js';

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
export const SQLITE_LIST: ListDialect = {
  param: (n) => `?${n}`,
  columns: ITEM_COLUMNS,
  textMatch: (words, arg) =>
    `i.rowid IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ${arg(words.map((w) => `"${w}"*`).join(' '))})`,
};

const KEY_IDS = keyIdsSql((n) => `?${n}`);

export function sqliteItems(db: Db) {
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
  async function list(brandId: string, f: ListFilter): Promise<ListPage<ItemRow>> {
    const keys = keysOf(f, (who) => (db.prepare(KEY_IDS).all(brandId, who) as Array<{ id: string }>).map((r) => r.id));
    if (!keys) return EMPTY_LIST_PAGE;
    const read = await readAfter(
      listProbes(brandId, f, SQLITE_LIST, keys),
      (p) => (db.prepare(p.sql).get(...p.values) as { n: number }).n,
    );
    const { sql, values } = listSql(brandId, f, SQLITE_LIST, keys, read);
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
