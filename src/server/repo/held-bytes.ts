// A brand's held bytes as a count (issue 41). The quota (./reservations.ts, docs/api.md "Quota
// and reservations") counts an upload that is stored, completed or multipart for as long as its
// row lasts; presign used to sum them over every upload row the brand ever made, inside its
// reserving transaction (15 ms at 55,000 rows, growing with the brand's history). Now the brand's
// row carries them (`held_bytes`, `held_thumbnail_bytes`), and triggers on `uploads` keep them
// in the transaction of every change of a row (per row on SQLite, which updates a row in place;
// per statement on PostgreSQL, each brand once), whichever path makes it (a presign of a multipart
// upload, a PUT stored or refused, complete, a thumbnail attached, abort, a replaced thumbnail or
// image removed, an item deleted, the sweeper): no path can forget the count, on either database.
// What is left for presign to read is bounded by time: reservations younger than the window and
// the key's reservations whose URL still works, each through an index of only the rows not yet
// stored (`uploads_reserved_brand`, `uploads_reserved_key`), which the sweeper empties.
//
// One definition of "held" spells the triggers, the migration's first count and the tests' full
// recount, on both databases.
import { type Dialect, SQLITE } from './schema.js';

/** Whether `row`'s upload (`NEW`, `OLD`, or a table alias) is held until its row goes. */
export function held(row: string): string {
  return `(${row}.completed_at IS NOT NULL OR ${row}.stored_at IS NOT NULL OR ${row}.part_size IS NOT NULL)`;
}

/** `row`'s thumbnail flag as a condition. */
function isThumbnail(d: Dialect, row: string): string {
  return d.postgres ? `${row}.thumbnail` : `${row}.thumbnail = 1`;
}

/** SQLite's: the brand's two counts moved by `row`'s bytes (`sign` + or -), where `row` is held. */
function moveCounts(row: string, sign: '+' | '-'): string {
  const size = (thumb: boolean) =>
    `CASE WHEN ${isThumbnail(SQLITE, row)} THEN ${thumb ? `${row}.file_size` : '0'} ELSE ${thumb ? '0' : `${row}.file_size`} END`;
  return `UPDATE brands SET held_bytes = held_bytes ${sign} ${size(false)},
       held_thumbnail_bytes = held_thumbnail_bytes ${sign} ${size(true)}
     WHERE id = ${row}.brand_id AND ${held(row)};`;
}

/** An update that may move the counts: what is held, or the bytes or brand of a held row, changed. */
const countsMove = `${held('OLD')} <> ${held('NEW')} OR OLD.file_size <> NEW.file_size
    OR OLD.thumbnail <> NEW.thumbnail OR OLD.brand_id <> NEW.brand_id`;

/**
 * PostgreSQL's counts moved by the rows a statement changed, once per brand: a row trigger would
 * update the brand's row once per upload row, and PostgreSQL keeps every version of a row updated
 * again in one transaction (100,000 rows inserted at once took 398 s instead of 4 s).
 */
function moveCountsOnce(moved: string): string {
  return `UPDATE brands SET held_bytes = held_bytes + d.bytes, held_thumbnail_bytes = held_thumbnail_bytes + d.thumbnails
       FROM (SELECT brand_id, SUM(CASE WHEN thumbnail THEN 0 ELSE file_size * sign END) AS bytes,
                    SUM(CASE WHEN thumbnail THEN file_size * sign ELSE 0 END) AS thumbnails
               FROM (${moved}) moved GROUP BY brand_id) d
      WHERE brands.id = d.brand_id AND (d.bytes <> 0 OR d.thumbnails <> 0);`;
}

/** The held ones among a statement's rows before (`old_rows`, -) or after (`new_rows`, +) it. */
const heldOf = (rows: 'old_rows' | 'new_rows') =>
  `SELECT r.brand_id, r.thumbnail, r.file_size, ${rows === 'new_rows' ? 1 : -1} AS sign FROM ${rows} r WHERE ${held('r')}`;

/** The triggers that keep the counts, as `d` spells them. */
function triggers(d: Dialect): string {
  if (!d.postgres)
    return `CREATE TRIGGER uploads_held_insert AFTER INSERT ON uploads WHEN ${held('NEW')} BEGIN
     ${moveCounts('NEW', '+')}
   END;
   CREATE TRIGGER uploads_held_delete AFTER DELETE ON uploads WHEN ${held('OLD')} BEGIN
     ${moveCounts('OLD', '-')}
   END;
   CREATE TRIGGER uploads_held_update AFTER UPDATE ON uploads WHEN ${countsMove} BEGIN
     ${moveCounts('OLD', '-')}
     ${moveCounts('NEW', '+')}
   END;`;
  // Each branch names only the transition tables its trigger has (PL/pgSQL plans a statement
  // when it first runs it).
  return `CREATE FUNCTION uploads_held_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       ${moveCountsOnce(heldOf('new_rows'))}
     ELSIF TG_OP = 'DELETE' THEN
       ${moveCountsOnce(heldOf('old_rows'))}
     ELSE
       ${moveCountsOnce(`${heldOf('old_rows')} UNION ALL ${heldOf('new_rows')}`)}
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER uploads_held_insert AFTER INSERT ON uploads REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION uploads_held_bytes();
   CREATE TRIGGER uploads_held_delete AFTER DELETE ON uploads REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION uploads_held_bytes();
   CREATE TRIGGER uploads_held_update AFTER UPDATE ON uploads REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION uploads_held_bytes();`;
}

/**
 * Each brand's held bytes counted from its rows: `thumbnail` picks the thumbnails' count. Parameters:
 * none; the column is the brand's row's (`brands.id`).
 */
export function recountSql(d: Dialect, thumbnail: boolean): string {
  const thumb = isThumbnail(d, 'u');
  return `COALESCE((SELECT SUM(u.file_size) FROM uploads u
      WHERE u.brand_id = brands.id AND ${thumbnail ? thumb : `NOT (${thumb})`} AND ${held('u')}), 0)`;
}

/**
 * The migration: the counts, their triggers, their first values from the rows there are, and the
 * indexes of the rows not yet stored. On PostgreSQL, uploads take no writes until it commits
 * (instances of an older version may still be serving): none can fall between the count and its triggers.
 */
export function heldBytesMigration(d: Dialect): string {
  return `${d.postgres ? 'LOCK TABLE uploads IN SHARE MODE;' : ''}
   ALTER TABLE brands ADD COLUMN held_bytes ${d.bigint} NOT NULL DEFAULT 0;
   ALTER TABLE brands ADD COLUMN held_thumbnail_bytes ${d.bigint} NOT NULL DEFAULT 0;
   ${triggers(d)}
   UPDATE brands SET held_bytes = ${recountSql(d, false)}, held_thumbnail_bytes = ${recountSql(d, true)};
   CREATE INDEX uploads_reserved_brand ON uploads(brand_id, created_at)
     WHERE completed_at IS NULL AND stored_at IS NULL AND part_size IS NULL;
   CREATE INDEX uploads_reserved_key ON uploads(key_id, expires_at)
     WHERE completed_at IS NULL AND stored_at IS NULL;`;
}
