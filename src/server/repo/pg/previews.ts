// Posters and previews on PostgreSQL: the queries of ../previews.ts in PostgreSQL's words.
import { type MissingPreview, missingPreviewsQuery, previewRow, previewRowValues, tableOf } from '../previews.js';
import type { Query } from './query.js';

export function pgPreviews(q: Query) {
  async function missing(limit: number, videos: boolean): Promise<MissingPreview[]> {
    const { rows } = await q<MissingPreview>(`${missingPreviewsQuery(videos ? 'true' : 'false')} LIMIT $1`, [limit]);
    return rows.map((r) => ({ ...r, durationSeconds: r.durationSeconds === null ? null : Number(r.durationSeconds) }));
  }

  async function record(m: MissingPreview, previewKey: string): Promise<boolean> {
    const { rowCount } = await q(
      `UPDATE ${tableOf(m)} SET preview_key = $1, preview_error = NULL WHERE ${previewRow(m, (n) => `$${n}`, 2)}`,
      [previewKey, ...previewRowValues(m)],
    );
    return (rowCount ?? 0) > 0;
  }

  async function fail(m: MissingPreview, error: string): Promise<void> {
    await q(
      `UPDATE ${tableOf(m)} SET preview_tries = preview_tries + 1, preview_error = $1 WHERE ${previewRow(m, (n) => `$${n}`, 2)}`,
      [error.slice(0, 500), ...previewRowValues(m)],
    );
  }

  return { missing, record, fail };
}
