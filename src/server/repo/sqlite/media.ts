// Media facts of older rows on SQLite: the shared statements of ../media.ts with `?`.
import type { Db } from './db.js';
import { type MissingMedia, missingMediaQuery, recordMediaStatement } from '../media.js';

export function sqliteMedia(db: Db) {
  return {
    missing: (limit: number) => db.prepare(missingMediaQuery('?')).all(limit) as unknown as MissingMedia[],
    record: (m: MissingMedia, media: string) => {
      db.prepare(recordMediaStatement(m, () => '?')).run(media, m.id, m.key);
    },
  };
}
