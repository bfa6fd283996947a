// Content items and carousel file records on PostgreSQL: the queries of ../sqlite/items.ts in
// PostgreSQL's words, over a Query that is the pool or one transaction's connection.
import type { FileRow, ItemChanges, ItemRow, ListFilter, ListPage, NewItem } from '../items.js';
import { PREVIEW_OF_ITEM, type RawItem, changedColumns, listPage, newItemRow, toItem } from '../items.js';
import { foldedHashtags } from '../list-filter.js';
import { RECOUNT_SQL } from '../item-counts.js';
import { EMPTY_LIST_PAGE, type ListDialect, keyIdsSql, keysOf, listSql } from '../list-sql.js';
import { listProbes, readAfter } from '../list-read.js';
import type { Query } from './query.js';

// Carousel counts and sizes come from their file records; a video is its one file.
const ITEM_COLUMNS = `
  i.id, i.brand_id AS "brandId", i.type, i.title, i.description, i.hashtags, i.status,
  i.platform_settings AS "platformSettings", i.file_key AS "fileKey", i.file_name AS "fileName",
  i.content_type AS "contentType", i.duration_seconds AS "durationSeconds",
  i.thumbnail_key AS "thumbnailKey", i.sha256, i.thumbnail_sha256 AS "thumbnailSha256", i.media,
  i.created_at AS "createdAt", i.updated_at AS "updatedAt",
  CASE WHEN i.type = 'carousel'
       THEN (SELECT COUNT(*) FROM carousel_files f WHERE f.item_id = i.id) ELSE 1 END AS "fileCount",
  CASE WHEN i.type = 'carousel'
       THEN (SELECT COALESCE(SUM(f.file_size), 0)::bigint FROM carousel_files f WHERE f.item_id = i.id)
       ELSE i.file_size END AS "fileSize",
  ${PREVIEW_OF_ITEM} AS "previewKey"`;

/** The brand's keys with a given id or name (createdBy, updatedBy), found before the list's query. */
const KEY_IDS = keyIdsSql((n) => `$${n}`);

/** The list's SQL on PostgreSQL: the words through the tsvector column (GIN-indexed), each a prefix. */
export const PG_LIST: ListDialect = {
  param: (n) => `$${n}`,
  columns: ITEM_COLUMNS,
  textMatch: (words, arg) => `i.search_vector @@ to_tsquery('simple', ${arg(words.map((w) => `${w}:*`).join(' & '))})`,
};

const FILE_COLUMNS = `id, item_id AS "itemId", file_key AS "fileKey", file_name AS "fileName",
  content_type AS "contentType", file_size AS "fileSize", sort_order AS "sortOrder", sha256, media,
  preview_key AS "previewKey", created_at AS "createdAt"`;

export function pgItems(q: Query) {
  async function get(brandId: string, id: string): Promise<ItemRow | null> {
    const { rows } = await q<RawItem>(`SELECT ${ITEM_COLUMNS} FROM items i WHERE i.id = $1 AND i.brand_id = $2`, [
      id,
      brandId,
    ]);
    return toItem(rows[0]);
  }

  /** The caller's item, its row locked until the transaction ends (call inside one). */
  async function lock(brandId: string, id: string): Promise<ItemRow | null> {
    await q('SELECT id FROM items WHERE id = $1 AND brand_id = $2 FOR UPDATE', [id, brandId]);
    return get(brandId, id);
  }

  async function create(n: NewItem): Promise<void> {
    const { columns, values } = newItemRow(n);
    await q(`INSERT INTO items (${columns}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
  }

  /** A page of the brand's items in the filter's order (../list-sql.ts). */
  async function list(brandId: string, f: ListFilter): Promise<ListPage<ItemRow>> {
    const found = new Map<string, string[]>();
    for (const who of [f.createdBy, f.updatedBy])
      if (who !== undefined && !found.has(who))
        found.set(
          who,
          (await q<{ id: string }>(KEY_IDS, [brandId, who])).rows.map((r) => r.id),
        );
    const keys = keysOf(f, (who) => found.get(who)!);
    if (!keys) return EMPTY_LIST_PAGE;
    const read = await readAfter(
      listProbes(brandId, f, PG_LIST, keys),
      async (p) => (await q<{ n: string }>(p.sql, p.values)).rows[0]?.n,
    );
    const { sql, values } = listSql(brandId, f, PG_LIST, keys, read);
    const { rows } = await q<RawItem>(sql, values);
    return listPage(f, rows);
  }

  async function update(id: string, c: ItemChanges, at: string): Promise<void> {
    const sets = ['updated_at = $1'];
    const args: unknown[] = [at];
    for (const [column, value] of changedColumns(c)) {
      args.push(value);
      sets.push(`${column} = $${args.length}`);
    }
    args.push(id);
    await q(`UPDATE items SET ${sets.join(', ')} WHERE id = $${args.length}`, args);
    if (c.hashtags !== undefined) {
      // The hashtag filter's rows (item_hashtags), written with the hashtags themselves.
      await q('DELETE FROM item_hashtags WHERE item_id = $1', [id]);
      await q(
        `INSERT INTO item_hashtags (item_id, tag, brand_id, created_at)
         SELECT i.id, t.tag, i.brand_id, i.created_at FROM items i, unnest($2::text[]) AS t(tag) WHERE i.id = $1`,
        [id, foldedHashtags(c.hashtags)],
      );
    }
  }

  async function remove(id: string): Promise<void> {
    await q('DELETE FROM items WHERE id = $1', [id]);
  }

  async function files(itemId: string): Promise<FileRow[]> {
    const { rows } = await q<FileRow>(
      `SELECT ${FILE_COLUMNS} FROM carousel_files WHERE item_id = $1 ORDER BY sort_order`,
      [itemId],
    );
    return rows;
  }

  async function file(id: string): Promise<FileRow | null> {
    const { rows } = await q<FileRow>(`SELECT ${FILE_COLUMNS} FROM carousel_files WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Appends an image at the next 0-based position and touches the item (call inside a transaction). */
  async function addFile(f: Omit<FileRow, 'sortOrder'>): Promise<FileRow> {
    const { rows } = await q<{ next: number }>(
      'SELECT COALESCE(MAX(sort_order) + 1, 0) AS next FROM carousel_files WHERE item_id = $1',
      [f.itemId],
    );
    const next = rows[0]?.next ?? 0;
    await q(
      `INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, sha256, media, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [f.id, f.itemId, f.fileKey, f.fileName, f.contentType, f.fileSize, next, f.sha256, f.media, f.createdAt],
    );
    await q('UPDATE items SET updated_at = $1 WHERE id = $2', [f.createdAt, f.itemId]);
    return { ...f, sortOrder: next };
  }

  async function dropFile(id: string): Promise<void> {
    await q('DELETE FROM carousel_files WHERE id = $1', [id]);
  }

  async function insertFile(f: FileRow): Promise<void> {
    await q(
      `INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, sha256, media, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [f.id, f.itemId, f.fileKey, f.fileName, f.contentType, f.fileSize, f.sortOrder, f.sha256, f.media, f.createdAt],
    );
  }

  /** Numbers the images 0..n-1 in this order; the first becomes the item's main file (call inside a transaction). */
  async function arrange(itemId: string, ordered: readonly FileRow[], at: string): Promise<void> {
    // (item_id, sort_order) is unique and checked row by row: out of the way first, then in place.
    await q('UPDATE carousel_files SET sort_order = -1 - sort_order WHERE item_id = $1', [itemId]);
    await q(
      `UPDATE carousel_files f SET sort_order = o.n - 1
         FROM unnest($1::text[]) WITH ORDINALITY AS o(id, n)
        WHERE f.id = o.id AND f.item_id = $2`,
      [ordered.map((f) => f.id), itemId],
    );
    const first = ordered[0];
    // The first image is the item's main file: its checksum too.
    if (first)
      await q(
        'UPDATE items SET file_key = $1, file_name = $2, content_type = $3, file_size = $4, sha256 = $5, updated_at = $6 WHERE id = $7',
        [first.fileKey, first.fileName, first.contentType, first.fileSize, first.sha256, at, itemId],
      );
    else await q('UPDATE items SET updated_at = $1 WHERE id = $2', [at, itemId]);
  }

  /** Items by type, for the contentlib_items gauge: counted in PostgreSQL's own process (../item-counts.ts). */
  async function countByType(): Promise<Record<string, number>> {
    // COUNT is a bigint, which pg gives as a string.
    const { rows } = await q<{ type: string; n: string | number }>(RECOUNT_SQL);
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  }

  return { get, lock, create, list, update, remove, files, file, addFile, dropFile, insertFile, arrange, countByType };
}
