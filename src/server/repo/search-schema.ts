// The search extension's migration (docs/api.md "Search, sort and cursor paging"), one entry on
// each database, written once here like ./schema.ts: what the list's filters read, filled in
// from the rows an existing library has.
// - items.created_by_key_id / updated_by_key_id: who made the item and who changed it last, kept
//   by the audit writers (itemAuthorWrite in ./audit.ts) and filled in here from the audit log.
// - item_hashtags: one row per item and folded hashtag (./list-filter.ts foldHashtag), written by
//   the items repositories with the hashtags. Each row repeats its item's brand and createdAt
//   (neither ever changes), so a hashtag's newest items are read from one index in order
//   (./list-sql.ts) instead of probing the brand's items one by one.
// - The full-text index over title, description and hashtags: FTS5 on SQLite (kept by triggers),
//   a generated tsvector with a GIN index on PostgreSQL (kept by PostgreSQL itself).
// - Indexes for every sort and range.
import type { Dialect } from './schema.js';

/** The SQLite function the migration folds existing hashtags with (registered by ./sqlite/db.ts). */
export const SQLITE_FOLD_HASHTAG = 'contentlib_fold_hashtag';

export function searchMigration(d: Dialect): string {
  // Existing hashtags, folded as foldHashtag folds them (a repeated tag is one row).
  const fold = (v: string) =>
    d.postgres ? `lower(regexp_replace(btrim(${v}), '^#+', ''))` : `${SQLITE_FOLD_HASHTAG}(${v})`;
  const each = d.postgres ? 'json_array_elements_text(i.hashtags::json) AS j(value)' : 'json_each(i.hashtags) AS j';
  const backfill = `INSERT INTO item_hashtags (item_id, tag, brand_id, created_at)
     SELECT DISTINCT i.id, ${fold('j.value')}, i.brand_id, i.created_at FROM items i, ${each}
     WHERE ${fold('j.value')} <> ''`;
  const common = `
   UPDATE items SET
     created_by_key_id = (SELECT a.key_id FROM audit_log a
                           WHERE a.item_id = items.id AND a.action = 'item.created' ORDER BY a.id LIMIT 1),
     updated_by_key_id = (SELECT a.key_id FROM audit_log a WHERE a.item_id = items.id ORDER BY a.id DESC LIMIT 1);
   CREATE TABLE item_hashtags (
     item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
     tag TEXT NOT NULL,
     brand_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     PRIMARY KEY (item_id, tag)
   );
   CREATE INDEX item_hashtags_newest ON item_hashtags(tag, brand_id, created_at DESC, item_id DESC);
   ${backfill};
   CREATE INDEX items_brand_updated ON items(brand_id, updated_at DESC, id DESC);
   CREATE INDEX items_brand_title ON items(brand_id, title_fold, id);
   CREATE INDEX items_brand_created_by ON items(brand_id, created_by_key_id, created_at);
   CREATE INDEX items_brand_updated_by ON items(brand_id, updated_by_key_id, updated_at);
   CREATE INDEX items_brand_duration ON items(brand_id, duration_seconds);`;
  return d.postgres ? pgSearch(common) : sqliteSearch(common);
}

function sqliteSearch(common: string): string {
  // The FTS5 table reads its text from items (external content, by rowid); the triggers keep its
  // index in step with every insert, change and deletion, whoever writes the row. contentlib never
  // runs VACUUM, which may renumber the rowids of a table without an INTEGER PRIMARY KEY; after a
  // VACUUM by hand, `INSERT INTO items_fts (items_fts) VALUES ('rebuild')` makes the index anew.
  const row = (r: 'new' | 'old') => `${r}.rowid, ${r}.title, ${r}.description, ${r}.hashtags`;
  return `ALTER TABLE items ADD COLUMN created_by_key_id TEXT;
   ALTER TABLE items ADD COLUMN updated_by_key_id TEXT;${common}
   CREATE VIRTUAL TABLE items_fts USING fts5(title, description, hashtags, content='items', content_rowid='rowid',
     tokenize='unicode61 remove_diacritics 0');
   CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
     INSERT INTO items_fts (rowid, title, description, hashtags) VALUES (${row('new')});
   END;
   CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
     INSERT INTO items_fts (items_fts, rowid, title, description, hashtags) VALUES ('delete', ${row('old')});
   END;
   CREATE TRIGGER items_fts_update AFTER UPDATE OF title, description, hashtags ON items BEGIN
     INSERT INTO items_fts (items_fts, rowid, title, description, hashtags) VALUES ('delete', ${row('old')});
     INSERT INTO items_fts (rowid, title, description, hashtags) VALUES (${row('new')});
   END;
   INSERT INTO items_fts (items_fts) VALUES ('rebuild');`;
}

function pgSearch(common: string): string {
  return `ALTER TABLE items ADD COLUMN created_by_key_id TEXT, ADD COLUMN updated_by_key_id TEXT,
     ADD COLUMN search_vector tsvector GENERATED ALWAYS AS
       (to_tsvector('simple'::regconfig, title || ' ' || description || ' ' || hashtags)) STORED;${common}
   CREATE INDEX items_search ON items USING gin (search_vector);
   -- The spec's title search (a substring: LIKE '%…%') uses a trigram index when pg_trgm can be
   -- had: it ships with Debian's postgresql and is a trusted extension, but a role without CREATE
   -- on the database cannot add it. Then the search still works, unindexed (docs/deploy.md).
   DO $$
   BEGIN
     BEGIN
       CREATE EXTENSION IF NOT EXISTS pg_trgm;
       CREATE INDEX items_title_trgm ON items USING gin (title_fold gin_trgm_ops);
     EXCEPTION WHEN OTHERS THEN
       RAISE NOTICE 'contentlib: no trigram index for the title search (%); see docs/deploy.md', SQLERRM;
     END;
   END $$;`;
}
