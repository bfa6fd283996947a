// Content identity on PostgreSQL: the queries of ../checksums.ts in PostgreSQL's words.
import {
  type HeldFile,
  MISSING_CHECKSUMS,
  type MissingChecksum,
  byAge,
  checksumTarget,
  heldFilesQuery,
} from '../checksums.js';
import type { Query } from './query.js';

export function pgChecksums(q: Query) {
  async function held(brandId: string, sha256s: readonly string[]): Promise<HeldFile[]> {
    if (sha256s.length === 0) return [];
    const sql = heldFilesQuery(
      () => '$1',
      (column) => `${column} = ANY($2::text[])`,
    );
    const { rows } = await q<HeldFile>(sql, [brandId, [...sha256s]]);
    return rows.sort(byAge);
  }

  async function missing(limit: number): Promise<MissingChecksum[]> {
    const { rows } = await q<MissingChecksum>(`${MISSING_CHECKSUMS} LIMIT $1`, [limit]);
    return rows;
  }

  async function record(m: MissingChecksum, sha256: string): Promise<void> {
    const t = checksumTarget(m.role);
    await q(`UPDATE ${t.table} SET ${t.column} = $1 WHERE id = $2 AND ${t.keyColumn} = $3 AND ${t.column} IS NULL`, [
      sha256,
      m.id,
      m.key,
    ]);
  }

  return { held, missing, record };
}
