// Indexes for a library of a million items (issue 41), one text for SQLite and PostgreSQL. Each
// serves a query that read a whole table, or the brand's every item, however little it found;
// on SQLite (node:sqlite, synchronous on the main thread) every request in flight waited for it.
// Measured at 1,000,000 items (bench/notes.md):
//
// - the previews still wanted (./previews.ts), asked after every complete: the indexes before
//   held every carousel item (their previews live on their images) and every file that failed
//   for good; 215–237 ms a complete, 0.2 ms now;
// - the checksums and media facts still missing (./checksums.ts, ./media.ts), asked by the
//   sweeper at start and every 10 minutes: ~0.5 s each with nothing missing, 0.04 ms now;
// - the audit log of one key (./audit.ts): 430–460 ms for a key with no entries, 0.03 ms now;
// - the list of what one key made or changed last (createdBy, updatedBy; ./list-sql.ts finds the
//   key first): in the list's order, so a key with few items is no longer a walk over the brand;
// - the objects queued for deletion, oldest first (./sqlite/deletions.ts, ./pg/deletions.ts): a
//   drain after a store's outage reads a batch, not the whole queue, each time.
//
// The `preview_tries < 3` below is PREVIEW_TRIES as it shipped: a partial index serves only a
// query whose condition is written as the index's (test/server/scale-plan.test.ts reads the plans).

/** The migration (listed in ./migrations.ts; never edit it once shipped). */
export const SCALE_INDEXES_MIGRATION = `DROP INDEX items_without_preview;
   DROP INDEX carousel_files_without_preview;
   CREATE INDEX items_preview_wanted ON items(created_at)
     WHERE type <> 'carousel' AND preview_key IS NULL AND preview_tries < 3;
   CREATE INDEX carousel_files_preview_wanted ON carousel_files(created_at)
     WHERE preview_key IS NULL AND preview_tries < 3;
   CREATE INDEX items_sha256_missing ON items(id) WHERE sha256 IS NULL;
   CREATE INDEX items_thumbnail_sha256_missing ON items(id)
     WHERE thumbnail_key IS NOT NULL AND thumbnail_sha256 IS NULL;
   CREATE INDEX items_media_missing ON items(id) WHERE media IS NULL AND type <> 'carousel';
   CREATE INDEX carousel_files_media_missing ON carousel_files(id) WHERE media IS NULL;
   CREATE INDEX audit_brand_key ON audit_log(brand_id, key_id, id);
   DROP INDEX items_brand_created_by;
   DROP INDEX items_brand_updated_by;
   CREATE INDEX items_brand_created_by ON items(brand_id, created_by_key_id, created_at DESC, id DESC);
   CREATE INDEX items_brand_updated_by ON items(brand_id, updated_by_key_id, created_at DESC, id DESC);
   CREATE INDEX pending_deletions_created ON pending_deletions(created_at);`;
