// Posters and previews (issue 39): which stored files still want their small JPEG, and recording
// one made or failed. The rows are the queue: an item is listed, usable and complete without
// one, and a server that restarts finds the missing ones again (src/server/previews/worker.ts).
// The queries are written once for both databases (`previewQueries`, over ./statements.ts).
import { type Param, type Sql, rows, run } from './statements.js';

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
  /** A video's thumbnail, which its poster is made from when there is one (no frame needed). */
  thumbnailKey: string | null;
}

/**
 * Newest first (what was just uploaded is what someone is looking at). `frames` is true when the
 * server can take video frames; without, only videos with a thumbnail are listed. Each side is
 * read newest first through its partial index (./scale-indexes.ts) and cut at `limit` before the
 * two are merged: asked after every complete, it must not sort a library's every wanted file.
 * The NULLs are cast so that PostgreSQL types the image side's columns as the video side's.
 */
function missingPreviewsQuery(frames: string, limit: string): string {
  return `
  SELECT role, id, key, "contentType", "durationSeconds", "thumbnailKey" FROM (
    SELECT * FROM (
      SELECT 'video' AS role, id, file_key AS key, content_type AS "contentType",
             duration_seconds AS "durationSeconds", thumbnail_key AS "thumbnailKey", created_at AS at
        FROM items WHERE type <> 'carousel' AND preview_key IS NULL AND preview_tries < ${PREVIEW_TRIES}
                     AND (${frames} OR thumbnail_key IS NOT NULL)
       ORDER BY created_at DESC, id LIMIT ${limit}) AS videos
    UNION ALL
    SELECT * FROM (
      SELECT 'image', id, file_key, content_type, CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS TEXT), created_at
        FROM carousel_files WHERE preview_key IS NULL AND preview_tries < ${PREVIEW_TRIES}
       ORDER BY created_at DESC, id LIMIT ${limit}) AS images
  ) AS missing ORDER BY at DESC, id LIMIT ${limit}`;
}

/**
 * Where a preview made of `m` is recorded: its row, if it still names that file (and, for a
 * video, the same thumbnail: one set meanwhile asks for a new poster). Parameters from `first`.
 */
function previewRow(m: MissingPreview, placeholder: Param, first: number): string {
  const where = `id = ${placeholder(first)} AND file_key = ${placeholder(first + 1)}`;
  return m.role === 'video' ? `${where} AND thumbnail_key IS NOT DISTINCT FROM ${placeholder(first + 2)}` : where;
}

/** The values of previewRow's placeholders. */
function previewRowValues(m: MissingPreview): unknown[] {
  return m.role === 'video' ? [m.id, m.key, m.thumbnailKey] : [m.id, m.key];
}

const tableOf = (m: MissingPreview) => (m.role === 'video' ? 'items' : 'carousel_files');

/** The previews' queries in a dialect's parameters (./statements.ts runs them on either database). */
export function previewQueries(p: Param) {
  return {
    /** `videos`: whether the server can take video frames (without, only videos with a thumbnail). */
    *missing(limit: number, videos: boolean): Sql<MissingPreview[]> {
      const found = yield* rows<MissingPreview>(missingPreviewsQuery(videos ? '1 = 1' : '1 = 0', p(1)), [limit]);
      // PostgreSQL hands a numeric column as text.
      return found.map((r) => ({
        ...r,
        durationSeconds: r.durationSeconds === null ? null : Number(r.durationSeconds),
      }));
    },
    /** Records the preview if the row still names that file (not deleted nor replaced meanwhile). */
    *record(m: MissingPreview, previewKey: string): Sql<boolean> {
      const changed = yield* run(
        `UPDATE ${tableOf(m)} SET preview_key = ${p(1)}, preview_error = NULL WHERE ${previewRow(m, p, 2)}`,
        [previewKey, ...previewRowValues(m)],
      );
      return changed > 0;
    },
    *fail(m: MissingPreview, error: string): Sql<void> {
      yield* run(
        `UPDATE ${tableOf(m)} SET preview_tries = preview_tries + 1, preview_error = ${p(1)} WHERE ${previewRow(m, p, 2)}`,
        [error.slice(0, 500), ...previewRowValues(m)],
      );
    },
  };
}
