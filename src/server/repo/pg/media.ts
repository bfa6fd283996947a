// Media facts of older rows on PostgreSQL: the statements of ../media.ts with PostgreSQL's placeholders.
import { type MissingMedia, missingMediaQuery, recordMediaStatement } from '../media.js';
import type { Query } from './query.js';

export function pgMedia(q: Query) {
  return {
    missing: async (limit: number): Promise<MissingMedia[]> =>
      (await q<MissingMedia>(missingMediaQuery('$1'), [limit])).rows,
    record: async (m: MissingMedia, media: string): Promise<void> => {
      await q(
        recordMediaStatement(m, (n) => `$${n}`),
        [media, m.id, m.key],
      );
    },
  };
}
