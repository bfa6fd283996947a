// The schema of posters and previews (issue 39, ./previews.ts), one text for SQLite and PostgreSQL.

/**
 * The migration of both databases (listed in ./migrations.ts; the same text is
 * valid on each): where each item's poster and each carousel image's preview is kept, how often
 * making it failed and why. Rows made before have none: the worker's pass makes theirs.
 */
export const PREVIEWS_MIGRATION = ['items', 'carousel_files']
  .map(
    (table) => `ALTER TABLE ${table} ADD COLUMN preview_key TEXT;
   ALTER TABLE ${table} ADD COLUMN preview_tries INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE ${table} ADD COLUMN preview_error TEXT;
   CREATE INDEX ${table}_without_preview ON ${table}(created_at) WHERE preview_key IS NULL;`,
  )
  .join('\n   ');
