// Posters and previews (issue 39): which stored files still want their small JPEG, and recording
// one made or failed. The rows are the queue: an item is listed, usable and complete without
// one, and a server that restarts finds the missing ones again (src/server/previews/worker.ts).
// The same queries on PostgreSQL: ./pg/previews.ts.
import type { Db } from './sqlite/db.js';

/** A failed file is tried this many times in all (across restarts), then left without one. */
export const PREVIEW_TRIES = 3;

/** What wants a preview: a video item's main file (its poster) or a carousel image (its record). */
export interface MissingPreview {
  role: 'video' | 'image';
  /** The item's id (video) or the file record's (image). */
  id: string;
  /** The stored file the preview is made from. */
  key: string;
  contentType: string;
  durationSeconds: number | null;
}

/** Newest first (what was just uploaded is what someone is looking at); `$VIDEOS` is true when videos are wanted. */
export function missingPreviewsQuery(videos: string): string {
  return `
  SELECT role, id, key, "contentType", "durationSeconds" FROM (
    SELECT 'video' AS role, id, file_key AS key, content_type AS "contentType",
           duration_seconds AS "durationSeconds", created_at AS at
      FROM items WHERE type <> 'carousel' AND preview_key IS NULL AND preview_tries < ${PREVIEW_TRIES} AND ${videos}
    UNION ALL
    SELECT 'image', id, file_key, content_type, NULL, created_at
      FROM carousel_files WHERE preview_key IS NULL AND preview_tries < ${PREVIEW_TRIES}
  ) AS missing ORDER BY at DESC, id`;
}

export const tableOf = (m: MissingPreview) => (m.role === 'video' ? 'items' : 'carousel_files');

export function previewsRepository(db: Db) {
  function missing(limit: number, videos: boolean): MissingPreview[] {
    return db.prepare(`${missingPreviewsQuery(videos ? '1 = 1' : '1 = 0')} LIMIT ?`).all(limit) as MissingPreview[];
  }

  /** Records the preview if the row still names that file (not deleted nor replaced meanwhile). */
  function record(m: MissingPreview, previewKey: string): boolean {
    const { changes } = db
      .prepare(`UPDATE ${tableOf(m)} SET preview_key = ?, preview_error = NULL WHERE id = ? AND file_key = ?`)
      .run(previewKey, m.id, m.key);
    return Number(changes) > 0;
  }

  function fail(m: MissingPreview, error: string): void {
    db.prepare(
      `UPDATE ${tableOf(m)} SET preview_tries = preview_tries + 1, preview_error = ? WHERE id = ? AND file_key = ?`,
    ).run(error.slice(0, 500), m.id, m.key);
  }

  return { missing, record, fail };
}
