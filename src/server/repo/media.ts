// Media facts of rows stored before facts were kept (issue 39): which files have none, and
// recording what the sweeper measured (src/server/media-backfill.ts). The queries are written
// once for both databases (`mediaQueries`, over ./statements.ts).
import { type Param, type Sql, rows, run } from './statements.js';

/** A stored file without facts: an item's main file (`file`, never a carousel's) or a carousel image (`image`). */
export interface MissingMedia {
  role: 'file' | 'image';
  /** The item's id (file) or the file record's (image). */
  id: string;
  key: string;
}

/** Rows without facts, both kinds in one list (at most `limit`, a placeholder). */
function missingMediaQuery(limit: string): string {
  return `
  SELECT role, id, key FROM (
    SELECT 'file' AS role, id, file_key AS key FROM items WHERE media IS NULL AND type <> 'carousel'
    UNION ALL
    SELECT 'image', id, file_key FROM carousel_files WHERE media IS NULL
  ) AS missing LIMIT ${limit}`;
}

/** Records facts only where the row still names that object and has none yet (a replaced image keeps its own). */
function recordMediaStatement(m: MissingMedia, p: Param): string {
  const table = m.role === 'image' ? 'carousel_files' : 'items';
  return `UPDATE ${table} SET media = ${p(1)} WHERE id = ${p(2)} AND file_key = ${p(3)} AND media IS NULL`;
}

/** The media facts' queries in a dialect's parameters (./statements.ts runs them on either database). */
export function mediaQueries(p: Param) {
  return {
    missing: (limit: number): Sql<MissingMedia[]> => rows<MissingMedia>(missingMediaQuery(p(1)), [limit]),
    *record(m: MissingMedia, media: string): Sql<void> {
      yield* run(recordMediaStatement(m, p), [media, m.id, m.key]);
    },
  };
}
