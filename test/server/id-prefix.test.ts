// The list's idPrefix (an extension, docs/api.md; how every command resolves a short id) reads a
// range of the primary key (src/server/repo/list-sql.ts idRange) and still compares the prefix.
// The range must hold every id that starts with the prefix under each order the databases use:
// SQLite's bytes, PostgreSQL's default, and a linguistic collation that ignores the dashes at
// first (ICU's en-US with punctuation shifted, as glibc's en_US.UTF-8 does). Ids at the edges
// of a digit (…9 → …a, …f → …g) and prefixes ending in a dash are the cases that could slip.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/server/repo/interface.js';
import { listFilterOf } from '../../src/server/repo/list-filter.js';
import { repoBackends } from '../support/repo-backends.js';

const IDS = [
  '00000000-0000-4000-8000-000000000000',
  '19000000-0000-4000-8000-000000000000',
  '19ffffff-ffff-4fff-bfff-ffffffffffff',
  '19ffffff-0000-4000-8000-000000000000',
  '1a000000-0000-4000-8000-000000000000',
  '1232b4cd-5e7f-4000-8000-000000000001',
  '1232b4cd-5e7f-4000-8000-000000000002',
  '1232b4ce-0000-4000-8000-000000000000',
  '1232b4c9-ffff-4fff-bfff-ffffffffffff',
  '1232b4ca-0000-4000-8000-000000000000',
  '9fffffff-ffff-4fff-bfff-ffffffffffff',
  'a0000000-0000-4000-8000-000000000000',
  'efffffff-ffff-4fff-bfff-ffffffffffff',
  'f0000000-0000-4000-8000-000000000000',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
];

const PREFIXES = [
  '0',
  '1',
  '19',
  '19f',
  '19ffffff',
  '19ffffff-',
  '19ffffff-f',
  '19ffffff-ffff-',
  '1a',
  '1232b4c',
  '1232b4c9',
  '1232b4cd',
  '1232b4cd-',
  '1232b4cd-5e7f',
  '1232b4cd-5e7f-4000-8000-000000000002',
  '9',
  '9f',
  'a',
  'e',
  'f',
  'ff',
  '-',
  'F0',
  '1A',
];

const ROWS = `
  INSERT INTO brands (id, name, created_at) VALUES ('b', 'acme', '2026-01-01T00:00:00.000Z');
  INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type, file_size,
      created_at, updated_at) VALUES
  ${IDS.map((id, n) => `('${id}', 'b', 'shortform', 'v', 'v', 'draft', 'k/${n}.mp4', 'v.mp4', 'video/mp4', 1, '2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z', '2026-01-01T00:00:00.000Z')`).join(',\n  ')};`;

const both = repoBackends('id-prefix', { max: 2, seed: ROWS });

describe.each<[string, () => Promise<Repo>]>([
  ...both.backends,
  [
    'postgres, ICU en-US with the dashes ignored at first',
    both.postgresWith(`TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US-u-ka-shifted' LOCALE 'C.UTF-8'`),
  ],
])('idPrefix on %s', (_name, open) => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await open();
  }, 60_000);

  it.each(PREFIXES)('%s: exactly the ids that start with it', async (prefix) => {
    const asked = listFilterOf({ idPrefix: prefix, limit: 100, offset: 0 });
    if ('problem' in asked) throw new Error(asked.problem.message);
    const page = await repo.listItems('b', asked.filter);
    const want = IDS.filter((id) => id.startsWith(prefix.toLowerCase())).reverse();
    expect(page.items.map((i) => i.id)).toEqual(want);
  });
});
