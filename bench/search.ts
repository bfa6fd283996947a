// Search at scale (issue 38): a library of BENCH_SEARCH_PG_ITEMS (1,000,000) items on PostgreSQL
// and BENCH_SEARCH_SQLITE_ITEMS (200,000) on SQLite, seeded through the repository layer (the
// rows `newItemRow` and the audit writers make, in batches of BATCH per transaction; never
// HTTP), then the p50/p95 of four list queries, each goal ≤ 50 ms: a hashtag filter, a
// two-word text search, a week's date range, and page 1,000 by cursor. Each is timed twice:
// the repository's list query alone (`listItems`, what the database costs) and the whole HTTP
// answer of a server on that database (in this process, over 127.0.0.1: the server's time plus
// one local round trip). References from the same run: `SELECT 1` through the repository, and
// the HTTP list of an empty brand. Then `ls --all --json id` of BENCH_SEARCH_LS_ITEMS (100,000)
// items against BENCH_SEARCH_LS_SMALL (10,000): peak RSS (flat: about the same for both).
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { SCOPES } from '../src/api/scopes.js';
import { startServer } from '../src/server/index.js';
import type { Repo } from '../src/server/repo/interface.js';
import { newItemRow } from '../src/server/repo/items.js';
import { type ListParameters, cursorOf, foldedHashtags, listFilterOf } from '../src/server/repo/list-filter.js';
import { createPool } from '../src/server/repo/pg/query.js';
import { createPostgresRepo } from '../src/server/repo/pg/repo.js';
import { openDatabase } from '../src/server/repo/sqlite/db.js';
import { createSqliteRepo } from '../src/server/repo/sqlite/repo.js';
import { startPostgres } from '../test/support/postgres.js';
import { BIN, cliEnv, run } from './lib/proc.js';
import { fixed, median } from './lib/stats.js';

const BATCH = 1000;
const SAMPLES = 60;
const WARM_UPS = 5;
const PAGE = 50;
const GOAL_MS = 50;
/** The V8 heap limit of the capped `ls --all` run. */
const CAPPED_HEAP_MIB = 48;

export interface QueryTiming {
  what: string;
  /** Items the query matches (before paging): what a ranked search has to score. */
  matches: number;
  repoP50: number;
  repoP95: number;
  httpP50: number;
  httpP95: number;
}

export interface SearchDbResult {
  database: 'PostgreSQL' | 'SQLite';
  items: number;
  seedMs: number;
  queries: QueryTiming[];
  /** References: SELECT 1 through the repository, the HTTP list of an empty brand. */
  select1P95: number;
  emptyListP95: number;
  /** Page 1,000 by offset, for contrast with the cursor. */
  offsetPageP95: number;
}

export interface SearchResult {
  dbs: SearchDbResult[];
  ls?: { big: number; small: number; bigMs: number; bigRssMiB: number; smallRssMiB: number; cappedRssMiB: number };
  load: string;
}

function p95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? NaN;
}

/** A small deterministic generator (mulberry32): the same library on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe', 'gu', 'hi', 'ja'];
/** 3,375 made-up words, and 200 made-up hashtags. */
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => a + b + c)));
const TAGS = WORDS.slice(0, 200).map((w) => `tag${w}`);
const START = Date.parse('2024-01-01T00:00:00.000Z');
const SPAN_MS = 2 * 365 * 24 * 3600_000;

interface Row {
  columns: string[];
  values: unknown[];
  tags: string[];
  created: string;
}

/**
 * Item `i` of `n`: created in order over two years, changed up to 30 days later by one of the
 * keys; 1 in 50 titles says "Northwind", 1 in 30 "sneaker" (both: 1 in 1,500), 1 in 500
 * descriptions both; 1 in 100 items carries #summersale; a tenth are carousels (no duration).
 */
function itemRow(i: number, n: number, brandId: string, keyIds: readonly string[], rnd: () => number): Row {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS));
  const title = [...words(2), ...(rnd() < 0.02 ? ['Northwind'] : []), ...(rnd() < 1 / 30 ? ['sneaker'] : [])].join(' ');
  const description = [...words(8), ...(rnd() < 0.002 ? ['northwind', 'sneaker'] : [])].join(' ');
  const tags = [pick(TAGS), ...(rnd() < 0.5 ? [pick(TAGS)] : []), ...(rnd() < 0.01 ? ['SummerSale'] : [])];
  const carousel = rnd() < 0.1;
  const createdMs = START + Math.floor((i / n) * SPAN_MS);
  const id = uuidOf(`${brandId}:${i}`);
  const base = newItemRow({
    id,
    brandId,
    type: carousel ? 'carousel' : 'shortform',
    title,
    fileKey: `bench/${id}/f`,
    fileName: 'f',
    contentType: carousel ? 'image/jpeg' : 'video/mp4',
    fileSize: 1000,
    durationSeconds: carousel ? null : 1 + Math.floor(rnd() * 600),
    sha256: createHash('sha256').update(id).digest('hex'),
    media: null,
    createdAt: new Date(createdMs).toISOString(),
  });
  const columns = base.columns.split(', ');
  const values = [...base.values];
  values[columns.indexOf('updated_at')] = new Date(createdMs + Math.floor(rnd() * 30 * 24 * 3600_000)).toISOString();
  return {
    columns: [...columns, 'description', 'hashtags', 'created_by_key_id', 'updated_by_key_id'],
    values: [...values, description, JSON.stringify(tags), pick(keyIds), pick(keyIds)],
    tags: foldedHashtags(tags),
    created: new Date(createdMs).toISOString(),
  };
}

function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Inserts a batch of rows and their hashtags: one statement each, `param` numbering the values. */
function batchSql(rows: readonly Row[], param: (n: number) => string) {
  let n = 0;
  const items = rows.map((r) => `(${r.values.map(() => param(++n)).join(', ')})`).join(', ');
  let m = 0;
  const tagRows = rows
    .flatMap((r) => r.tags.map(() => `(${param(++m)}, ${param(++m)}, ${param(++m)}, ${param(++m)})`))
    .join(', ');
  return {
    items: `INSERT INTO items (${rows[0]!.columns.join(', ')}) VALUES ${items}`,
    itemValues: rows.flatMap((r) => r.values),
    tags: `INSERT INTO item_hashtags (item_id, tag, brand_id, created_at) VALUES ${tagRows}`,
    tagValues: rows.flatMap((r) => r.tags.flatMap((t) => [r.values[0], t, r.values[1], r.created])),
  };
}

interface Library {
  repo: Repo;
  /** Inserts rows [from, to) of `n` for the brand, in one transaction. */
  insert(rows: readonly Row[]): Promise<void>;
  analyze(): Promise<void>;
  serverOptions: { dataDir: string; databaseUrl?: string };
  close(): Promise<void>;
}

export async function seedBrand(
  lib: Library,
  brand: string,
  n: number,
  log: (s: string) => void,
): Promise<{ brandId: string; key: string; keyIds: string[] }> {
  const made = await Promise.all(
    ['ci', 'alice', 'bob', 'carol', 'dan'].map((name) =>
      lib.repo.createKey(brand, new Date(START), { name, scopes: SCOPES }),
    ),
  );
  const brandId = made[0]!.brandId;
  const keyIds = made.map((k) => k.id);
  const rnd = random(n);
  const started = performance.now();
  for (let from = 0; from < n; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, n - from) }, (_, j) =>
      itemRow(from + j, n, brandId, keyIds, rnd),
    );
    await lib.insert(rows);
    if ((from / BATCH) % 100 === 99)
      log(`    ${from + rows.length} of ${n} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return { brandId, key: made[0]!.key, keyIds };
}

export async function sqliteLibrary(dir: string): Promise<Library> {
  await mkdir(dir, { recursive: true });
  const db = openDatabase(dir);
  const repo = createSqliteRepo(db, { dataDir: dir });
  return {
    repo,
    insert: async (rows) => {
      const sql = batchSql(rows, () => '?');
      db.transaction(() => {
        db.prepare(sql.items).run(...sql.itemValues);
        db.prepare(sql.tags).run(...sql.tagValues);
      }).immediate();
    },
    // What `PRAGMA optimize` would gather over time; the server never runs ANALYZE itself.
    analyze: async () => db.exec('ANALYZE'),
    serverOptions: { dataDir: dir },
    close: () => repo.close(),
  };
}

export async function postgresLibrary(dir: string): Promise<Library & { stop(): Promise<void> }> {
  await mkdir(dir, { recursive: true });
  const server = await startPostgres();
  const url = await server.createDatabase('bench_search');
  const repo = await createPostgresRepo({ connectionString: url, max: 4 });
  const pool: pg.Pool = createPool({ connectionString: url, max: 2 });
  return {
    repo,
    insert: async (rows) => {
      const sql = batchSql(rows, (n) => `$${n}`);
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(sql.items, sql.itemValues);
        await c.query(sql.tags, sql.tagValues);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      } finally {
        c.release();
      }
    },
    // Autovacuum would analyze the new rows within a minute; the bench does not wait for it.
    analyze: async () => void (await pool.query('VACUUM ANALYZE')),
    serverOptions: { dataDir: dir, databaseUrl: url },
    close: async () => {
      await repo.close();
      await pool.end();
    },
    stop: () => server.stop(),
  };
}

/** p50/p95 of `fn` over SAMPLES calls, after WARM_UPS calls. */
async function timed(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < WARM_UPS; i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await fn(i);
    ms.push(performance.now() - t);
  }
  return { p50: median(ms), p95: p95(ms) };
}

function queryString(p: Partial<ListParameters>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) {
    if (Array.isArray(v)) for (const one of v) q.append(k, String(one));
    else if (v !== undefined) q.set(k, String(v));
  }
  return q.toString();
}

async function measure(
  database: SearchDbResult['database'],
  lib: Library,
  n: number,
  emptyKey: string,
  log: (s: string) => void,
  seeded: { brandId: string; key: string },
  seedMs: number,
): Promise<SearchDbResult> {
  const server = await startServer({ ...lib.serverOptions, port: 0 });
  try {
    const get = async (key: string, query: string) => {
      const r = await fetch(`${server.url}/api/v1/content?${query}`, { headers: { authorization: `Bearer ${key}` } });
      if (r.status !== 200) throw new Error(`GET ?${query}: ${r.status} ${await r.text()}`);
      return (await r.json()) as { items: unknown[] };
    };
    const listed = async (p: Partial<ListParameters>) => {
      const asked = listFilterOf({ limit: PAGE, offset: 0, ...p });
      if ('problem' in asked) throw new Error(asked.problem.message);
      return lib.repo.listItems(seeded.brandId, asked.filter);
    };
    // Page 1,000's cursor: the position of the last row of page 999.
    const first = listFilterOf({ limit: PAGE, offset: 0 });
    if ('problem' in first) throw new Error(first.problem.message);
    const before = await lib.repo.listItems(seeded.brandId, { ...first.filter, limit: 1, offset: 999 * PAGE - 1 });
    const last = before.items[0]!;
    const cursor = cursorOf(first.filter, { key: last.createdAt, id: last.id })!;
    const week = (i: number) => {
      const from = START + ((i * 7) % 700) * 24 * 3600_000;
      return {
        createdAfter: new Date(from).toISOString(),
        createdBefore: new Date(from + 7 * 24 * 3600_000).toISOString(),
      };
    };
    const cases: Array<[string, (i: number) => Partial<ListParameters>]> = [
      ['hashtag=summersale', () => ({ hashtag: ['summersale'] })],
      ['q=northwind sneaker', () => ({ q: 'northwind sneaker' })],
      ["a week's createdAfter/createdBefore", week],
      ['page 1,000 by cursor', () => ({ cursor })],
    ];
    // The server's connections and code warmed up on every query first, so the first query
    // measured does not pay for them (opening the pool's connections, compiling the routes).
    for (let round = 0; round < 10; round++)
      for (const [, params] of cases) await get(seeded.key, queryString({ limit: PAGE, ...params(round) }));
    const queries: QueryTiming[] = [];
    for (const [what, params] of cases) {
      const page = await listed(params(0));
      if (page.items.length === 0) throw new Error(`${database}: ${what} matched nothing`);
      // Page 1,000 walks the whole brand; the others are counted by listing all they match.
      const counted = listFilterOf({ limit: 100_000_000, offset: 0, ...params(0), cursor: undefined });
      if ('problem' in counted) throw new Error(counted.problem.message);
      const matches = what.startsWith('page')
        ? n
        : (await lib.repo.listItems(seeded.brandId, counted.filter)).items.length;
      const repoT = await timed((i) => listed(params(i)));
      const httpT = await timed((i) => get(seeded.key, queryString({ limit: PAGE, ...params(i) })));
      queries.push({ what, matches, repoP50: repoT.p50, repoP95: repoT.p95, httpP50: httpT.p50, httpP95: httpT.p95 });
      log(`  ${database} ${what}: list query p95 ${fixed(repoT.p95)} ms, HTTP p95 ${fixed(httpT.p95)} ms`);
    }
    const select1 = await timed(() => lib.repo.ping());
    const empty = await timed(() => get(emptyKey, `limit=${PAGE}`));
    const offsetPage = await timed(() => listed({ offset: 999 * PAGE }));
    return {
      database,
      items: n,
      seedMs,
      queries,
      select1P95: select1.p95,
      emptyListP95: empty.p95,
      offsetPageP95: offsetPage.p95,
    };
  } finally {
    await server.close();
  }
}

export async function benchSearch(o: {
  dir: string;
  home: string;
  pgItems: number;
  sqliteItems: number;
  lsItems: number;
  lsSmall: number;
  log: (s: string) => void;
  skipPostgres?: boolean;
}): Promise<SearchResult> {
  const dbs: SearchDbResult[] = [];
  let ls: SearchResult['ls'];
  {
    const lib = await sqliteLibrary(join(o.dir, 'sqlite'));
    try {
      o.log(`  seeding ${o.sqliteItems} items on SQLite…`);
      const t = performance.now();
      const seeded = await seedBrand(lib, 'bench-search', o.sqliteItems, o.log);
      const seedMs = performance.now() - t;
      o.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s; ${o.lsItems} + ${o.lsSmall} more for ls --all`);
      const big = await seedBrand(lib, 'bench-ls-big', o.lsItems, o.log);
      const small = await seedBrand(lib, 'bench-ls-small', o.lsSmall, o.log);
      const empty = (await lib.repo.createKey('bench-empty', new Date(START), { scopes: SCOPES })).key;
      await lib.analyze();
      dbs.push(await measure('SQLite', lib, o.sqliteItems, empty, o.log, seeded, seedMs));
      ls = await lsAll(lib, o, big.key, small.key);
    } finally {
      await lib.close();
    }
  }
  if (!o.skipPostgres) {
    const lib = await postgresLibrary(join(o.dir, 'postgres'));
    try {
      o.log(`  seeding ${o.pgItems} items on PostgreSQL…`);
      const t = performance.now();
      const seeded = await seedBrand(lib, 'bench-search', o.pgItems, o.log);
      const seedMs = performance.now() - t;
      o.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);
      const empty = (await lib.repo.createKey('bench-empty', new Date(START), { scopes: SCOPES })).key;
      await lib.analyze();
      dbs.push(await measure('PostgreSQL', lib, o.pgItems, empty, o.log, seeded, seedMs));
    } finally {
      await lib.close();
      await lib.stop();
    }
  }
  return { dbs, ls, load: '' };
}

/** `ls --all --json id` of the big and the small brand, against a server on the SQLite library. */
async function lsAll(
  lib: Library,
  o: { dir: string; home: string; lsItems: number; lsSmall: number; log: (s: string) => void },
  bigKey: string,
  smallKey: string,
) {
  const server = await startServer({ ...lib.serverOptions, port: 0 });
  try {
    const once = async (key: string, expected: number, nodeOptions = '') => {
      const env = cliEnv({
        CONTENTLIB_HOME: o.home,
        CONTENTLIB_BASE_URL: server.url,
        CONTENTLIB_API_KEY: key,
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      });
      const out = join(o.dir, 'ls.json');
      const r = await run('bash', ['-c', `exec node "${BIN}" ls --all --json id > "${out}"`], {
        env,
        rssFile: join(o.dir, 'rss.txt'),
      });
      const listed = (JSON.parse(await readFile(out, 'utf8')) as unknown[]).length;
      if (listed !== expected) throw new Error(`ls --all --json id listed ${listed} items, ${expected} were seeded`);
      return r;
    };
    const small = await once(smallKey, o.lsSmall);
    const big = await once(bigKey, o.lsItems);
    // The same with V8's heap capped: it still completes, so what the default run's peak adds is
    // garbage V8 had not collected yet, not items held.
    const capped = await once(bigKey, o.lsItems, `--max-old-space-size=${CAPPED_HEAP_MIB}`);
    o.log(
      `  ls --all --json id: ${o.lsItems} items in ${fixed(big.wallMs / 1000)} s, peak ${fixed((big.maxRssKiB ?? NaN) / 1024)} MiB; ${o.lsSmall}: ${fixed((small.maxRssKiB ?? NaN) / 1024)} MiB`,
    );
    return {
      big: o.lsItems,
      small: o.lsSmall,
      bigMs: big.wallMs,
      bigRssMiB: (big.maxRssKiB ?? NaN) / 1024,
      smallRssMiB: (small.maxRssKiB ?? NaN) / 1024,
      cappedRssMiB: (capped.maxRssKiB ?? NaN) / 1024,
    };
  } finally {
    await server.close();
  }
}

/** What the figures rest on, under the table. */
const NOTES: readonly string[] = [
  '- The libraries: made-up words, 1 in 50 titles with "Northwind" and 1 in 30 with "sneaker", 1 in 500 descriptions with both, 1 in 100 items tagged #summersale, createdAt spread over two years (so a week is about 1/104 of the items), five keys as authors. The seeded items have no audit entries: each answer\'s createdBy/updatedBy lookup finds none, which is cheaper than on a library with a long log.',
  "- PostgreSQL as the tests start it (test/support/postgres.ts: Debian's server, default `shared_buffers` of 128 MB, `fsync` off), on the same 2 cores as everything else.",
  '- A ranked text search scores every item it matches (title, hashtags and description of each; docs/api.md says how): its time grows with the matches, not with the library (here about 9 µs a match on PostgreSQL, 23 ms for 2,646). The other three read their page from an index in order and stop: their time stays flat as the library grows, where an offset grows with the page (the contrast rows).',
];

export function renderSearch(r: SearchResult): string[] {
  const ms = (n: number) => `${fixed(n)} ms`;
  const verdict = (n: number) => (n <= GOAL_MS ? 'met' : `missed (${fixed(n / GOAL_MS, 1)}×)`);
  const out = [
    '## Search at scale (issue 38)',
    '',
    'Libraries seeded through the repository layer (batched inserts of the rows `newItemRow` makes, 1,000 per',
    `transaction, then ANALYZE), one brand each. Each query: p50 / p95 of ${SAMPLES} calls after ${WARM_UPS} warm-ups, page size 50. "List query" is the`,
    'repository\'s `listItems` alone; "HTTP" the whole answer of a server on that database, in the bench\'s process, over',
    `127.0.0.1 (its items carry signed URLs and authors). Goal: p95 ≤ ${GOAL_MS} ms. Load during the run: ${r.load}.`,
    '',
    '| database | items | query | matches | list query p50 / p95 | HTTP p50 / p95 | goal (HTTP p95) |',
    '| --- | ---: | --- | ---: | ---: | ---: | --- |',
  ];
  for (const db of r.dbs) {
    for (const q of db.queries)
      out.push(
        `| ${db.database} | ${db.items.toLocaleString('en-US')} | ${q.what} | ${q.matches.toLocaleString('en-US')} | ${ms(q.repoP50)} / ${ms(q.repoP95)} | ${ms(q.httpP50)} / ${ms(q.httpP95)} | ${verdict(q.httpP95)} |`,
      );
    out.push(
      `| ${db.database} | | reference: \`SELECT 1\` through the repository (p95) | | ${ms(db.select1P95)} | | |`,
      `| ${db.database} | | reference: HTTP list of an empty brand (p95) | | | ${ms(db.emptyListP95)} | |`,
      `| ${db.database} | | contrast: page 1,000 by offset (p95) | | ${ms(db.offsetPageP95)} | | |`,
    );
  }
  out.push('', ...NOTES);
  for (const db of r.dbs)
    out.push(`- ${db.database}: ${db.items.toLocaleString('en-US')} items seeded in ${fixed(db.seedMs / 1000)} s.`);
  if (r.ls)
    out.push(
      `- \`ls --all --json id\` (SQLite server): ${r.ls.big.toLocaleString('en-US')} items in ${fixed(r.ls.bigMs / 1000)} s, peak RSS ${fixed(r.ls.bigRssMiB)} MiB; ${r.ls.small.toLocaleString('en-US')} items: ${fixed(r.ls.smallRssMiB)} MiB; ${r.ls.big.toLocaleString('en-US')} items with V8's heap capped at ${CAPPED_HEAP_MIB} MiB (\`NODE_OPTIONS=--max-old-space-size=${CAPPED_HEAP_MIB}\`): completes, peak ${fixed(r.ls.cappedRssMiB)} MiB. The pages are not kept: the default run's higher peak is garbage V8 collects lazily while it has room.`,
    );
  out.push('');
  return out;
}

/** Replaces the "Search at scale" section of results.md (to the next `## ` heading), or appends it. */
export async function writeSearchSection(file: string, lines: readonly string[]): Promise<void> {
  const text = await readFile(file, 'utf8');
  const heading = lines[0]!;
  const start = text.indexOf(heading);
  const section = `${lines.join('\n')}\n`;
  if (start < 0) return writeFile(file, `${text.trimEnd()}\n\n${section}`);
  const next = text.indexOf('\n## ', start + heading.length);
  await writeFile(file, text.slice(0, start) + section + (next < 0 ? '' : text.slice(next + 1)));
}
