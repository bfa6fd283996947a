// Items by type, for /metrics' contentlib_items gauge (issue 41). On SQLite the gauge counted the
// items table at every scrape, on the server's one thread: 488–525 ms per scrape at 1,000,000
// items (bench/notes.md), every request waiting behind it, every 15 s or so under Prometheus. Now
// a row per type (`item_type_counts`) is kept by triggers in the transaction of every insert and
// deletion of an item, whichever path makes it (complete, delete, a bulk change, the sweeper, a
// seed in SQL), and the gauge reads those few rows.
//
// PostgreSQL keeps counting: its count runs in the database's own process, while the server goes
// on answering, and one row per type there would make every complete of that type, on every
// instance, wait for the commit of the one before it (a row's lock lasts to the end of its
// transaction). Its migration is therefore an empty step, so both databases keep one numbering.
import type { Dialect } from './schema.js';

/** Each type's count from the items themselves: the migration's first values and the tests' recount. */
export const RECOUNT_SQL = 'SELECT type, COUNT(*) AS n FROM items GROUP BY type';

/** SQLite's: `type`'s count moved by one (`sign`), its row made the first time. */
function move(type: string, sign: '+' | '-'): string {
  return `INSERT OR IGNORE INTO item_type_counts (type, n) VALUES (${type}, 0);
     UPDATE item_type_counts SET n = n ${sign} 1 WHERE type = ${type};`;
}

/** The migration, as `d` spells it: the counts, their triggers and their first values (SQLite). */
export function itemCountsMigration(d: Dialect): string {
  if (d.postgres) return 'SELECT 1;';
  // An item's type never changes (no statement sets it), but a hand-made UPDATE would not be lost.
  return `CREATE TABLE item_type_counts (type TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TRIGGER items_count_insert AFTER INSERT ON items BEGIN
     ${move('NEW.type', '+')}
   END;
   CREATE TRIGGER items_count_delete AFTER DELETE ON items BEGIN
     ${move('OLD.type', '-')}
   END;
   CREATE TRIGGER items_count_update AFTER UPDATE OF type ON items WHEN OLD.type <> NEW.type BEGIN
     ${move('OLD.type', '-')}
     ${move('NEW.type', '+')}
   END;
   INSERT INTO item_type_counts (type, n) ${RECOUNT_SQL};`;
}

/** SQLite's gauge: the kept counts (a type whose items all went reads 0, as one never seen). */
export const SQLITE_COUNTS_SQL = 'SELECT type, n FROM item_type_counts';
