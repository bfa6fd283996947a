// Content identity on SQLite: the shared queries of ../checksums.ts with `?` and IN lists.
import type { Db } from './db.js';
import {
  type HeldFile,
  MISSING_CHECKSUMS,
  type MissingChecksum,
  byAge,
  checksumTarget,
  heldFilesQuery,
} from '../checksums.js';

export function sqliteChecksums(db: Db) {
  function held(brandId: string, sha256s: readonly string[]): HeldFile[] {
    if (sha256s.length === 0) return [];
    const list = sha256s.map(() => '?').join(', ');
    const sql = heldFilesQuery(
      () => '?',
      (column) => `${column} IN (${list})`,
    );
    const args = [brandId, ...sha256s, brandId, ...sha256s, brandId, ...sha256s];
    return (db.prepare(sql).all(...args) as HeldFile[]).sort(byAge);
  }

  function missing(limit: number): MissingChecksum[] {
    return db.prepare(`${MISSING_CHECKSUMS} LIMIT ?`).all(limit) as MissingChecksum[];
  }

  function record(m: MissingChecksum, sha256: string): void {
    const t = checksumTarget(m.role);
    db.prepare(`UPDATE ${t.table} SET ${t.column} = ? WHERE id = ? AND ${t.keyColumn} = ? AND ${t.column} IS NULL`).run(
      sha256,
      m.id,
      m.key,
    );
  }

  return { held, missing, record };
}
