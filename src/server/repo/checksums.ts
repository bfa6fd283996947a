// Content identity: which of a brand's stored files hold given bytes (by SHA-256), for
// POST /api/v1/upload/check, and the rows made before checksums were kept, which the sweeper
// fills in (src/server/checksum-backfill.ts). The queries are written once for both databases
// (`checksumQueries`, over ./statements.ts).
import type { ContentType } from '../../rules/rules.js';
import { type Param, type Sql, params, rows, run } from './statements.js';

/** How a brand holds a file: an item's main file (a video), a carousel image, or a thumbnail. */
export type FileRole = 'file' | 'image' | 'thumbnail';

/** One stored file of the brand whose SHA-256 was asked for. */
export interface HeldFile {
  sha256: string;
  size: number;
  itemId: string;
  itemType: ContentType;
  role: FileRole;
  /** The carousel image's file record (role image). */
  fileId: string | null;
  sortOrder: number | null;
  fileName: string | null;
  /** How many files the item has (a carousel's images; 1 for a video): a client tells "this carousel" from "a carousel sharing an image". */
  itemFileCount: number;
  /** The item's, so that the oldest of several copies comes first. */
  createdAt: string;
}

/** A stored file whose SHA-256 is not known yet: `id` is the item's (file, thumbnail) or the file record's (image). */
export interface MissingChecksum {
  role: FileRole;
  id: string;
  key: string;
}

/**
 * The three ways a brand holds bytes, as one query over `count` hashes. Values: the brand, then
 * the hashes. A carousel's main file is its first image, so carousels are found by their images,
 * not twice.
 */
function heldFilesQuery(p: Param, count: number): string {
  const brand = () => p(1);
  const hashes = (column: string) => `${column} IN (${params(p, 2, count)})`;
  return `
    SELECT i.sha256 AS sha256, i.file_size AS size, i.id AS "itemId", i.type AS "itemType", 'file' AS role,
           NULL AS "fileId", NULL AS "sortOrder", i.file_name AS "fileName", 1 AS "itemFileCount",
           i.created_at AS "createdAt"
      FROM items i WHERE i.brand_id = ${brand()} AND i.type <> 'carousel' AND ${hashes('i.sha256')}
    UNION ALL
    -- CROSS JOIN: SQLite (no statistics) joins in the order written, so the images are found by
    -- their checksum and their item by its id; as a plain JOIN it walked every item of the brand.
    -- PostgreSQL plans a CROSS JOIN with a WHERE like any join.
    SELECT f.sha256, f.file_size, i.id, i.type, 'image', f.id, f.sort_order, f.file_name,
           (SELECT COUNT(*) FROM carousel_files n WHERE n.item_id = i.id), i.created_at
      FROM carousel_files f CROSS JOIN items i
     WHERE i.id = f.item_id AND i.brand_id = ${brand()} AND ${hashes('f.sha256')}
    UNION ALL
    SELECT i.thumbnail_sha256, u.file_size, i.id, i.type, 'thumbnail', NULL, NULL, u.file_name,
           CASE WHEN i.type = 'carousel' THEN (SELECT COUNT(*) FROM carousel_files n WHERE n.item_id = i.id) ELSE 1 END,
           i.created_at
      FROM items i JOIN uploads u ON u.key = i.thumbnail_key
     WHERE i.brand_id = ${brand()} AND ${hashes('i.thumbnail_sha256')}`;
}

/** Rows without a checksum, the three kinds in one list (at most `limit`). */
const MISSING_CHECKSUMS = `
  SELECT role, id, key FROM (
    SELECT 'file' AS role, id, file_key AS key FROM items WHERE sha256 IS NULL
    UNION ALL
    SELECT 'image', id, file_key FROM carousel_files WHERE sha256 IS NULL
    UNION ALL
    SELECT 'thumbnail', id, thumbnail_key FROM items WHERE thumbnail_key IS NOT NULL AND thumbnail_sha256 IS NULL
  ) AS missing`;

/**
 * The statement that records a checksum the sweeper computed, as (table, column, key column):
 * only where the row still names that object and has none yet (the thumbnail may have been
 * replaced meanwhile).
 */
function checksumTarget(role: FileRole): { table: string; column: string; keyColumn: string } {
  if (role === 'image') return { table: 'carousel_files', column: 'sha256', keyColumn: 'file_key' };
  if (role === 'thumbnail') return { table: 'items', column: 'thumbnail_sha256', keyColumn: 'thumbnail_key' };
  return { table: 'items', column: 'sha256', keyColumn: 'file_key' };
}

/** The oldest item first, then by role and position: the same order on both databases. */
function byAge(a: HeldFile, b: HeldFile): number {
  return (
    a.createdAt.localeCompare(b.createdAt) ||
    a.itemId.localeCompare(b.itemId) ||
    (a.sortOrder ?? -1) - (b.sortOrder ?? -1) ||
    a.role.localeCompare(b.role)
  );
}

/** The checksums' queries in a dialect's parameters (./statements.ts runs them on either database). */
export function checksumQueries(p: Param) {
  return {
    *held(brandId: string, sha256s: readonly string[]): Sql<HeldFile[]> {
      if (sha256s.length === 0) return [];
      const found = yield* rows<HeldFile>(heldFilesQuery(p, sha256s.length), [brandId, ...sha256s]);
      return found.sort(byAge);
    },
    missing: (limit: number): Sql<MissingChecksum[]> =>
      rows<MissingChecksum>(`${MISSING_CHECKSUMS} LIMIT ${p(1)}`, [limit]),
    *record(m: MissingChecksum, sha256: string): Sql<void> {
      const t = checksumTarget(m.role);
      yield* run(
        `UPDATE ${t.table} SET ${t.column} = ${p(1)} WHERE id = ${p(2)} AND ${t.keyColumn} = ${p(3)} AND ${t.column} IS NULL`,
        [sha256, m.id, m.key],
      );
    },
  };
}
