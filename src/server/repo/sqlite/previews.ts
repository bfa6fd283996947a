// Posters and previews on SQLite: the shared queries of ../previews.ts with `?`.
import type { Db } from './db.js';
import { type MissingPreview, missingPreviewsQuery, previewRow, previewRowValues, tableOf } from '../previews.js';

export function sqlitePreviews(db: Db) {
  function missing(limit: number, videos: boolean): MissingPreview[] {
    return db.prepare(`${missingPreviewsQuery(videos ? '1 = 1' : '1 = 0')} LIMIT ?`).all(limit) as MissingPreview[];
  }

  /** Records the preview if the row still names that file (not deleted nor replaced meanwhile). */
  function record(m: MissingPreview, previewKey: string): boolean {
    const { changes } = db
      .prepare(`UPDATE ${tableOf(m)} SET preview_key = ?, preview_error = NULL WHERE ${previewRow(m, () => '?', 1)}`)
      .run(previewKey, ...(previewRowValues(m) as string[]));
    return Number(changes) > 0;
  }

  function fail(m: MissingPreview, error: string): void {
    db.prepare(
      `UPDATE ${tableOf(m)} SET preview_tries = preview_tries + 1, preview_error = ? WHERE ${previewRow(m, () => '?', 1)}`,
    ).run(error.slice(0, 500), ...(previewRowValues(m) as string[]));
  }

  return { missing, record, fail };
}
