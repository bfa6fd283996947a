// `npm run bench`: starts one `contentlib serve` on a work dir under bench/tmp, runs each
// scenario against it with its reference measured in the same run, prints the results and
// writes bench/results.md (full runs only). The work dir is removed at the end.
//
// Knobs: BENCH_RUNS (3), BENCH_SIZE (bytes of the large file, 1 GiB), BENCH_BULK (200 files),
// BENCH_ITEMS (10000 listed items), BENCH_STARTUP_RUNS (20), BENCH_SCALE_FILES (10000), BENCH_SCALE_SMALL
// (500), BENCH_SCALE_HUGE (0: off; 100000 for issue 41, 10–25 minutes), BENCH_SCALE_DRY (100000),
// BENCH_INSTANCES_FILES (200),
// BENCH_BROWSE_ITEMS (10000 items in the browse grid), BENCH_EXPORT_ITEMS (10000), BENCH_EXPORT_SMALL (500),
// BENCH_MULTIPART_SIZE (bytes of the multipart file, 1 GiB; e.g. 268435456 for a quick check),
// BENCH_CAP_MBPS (20, the per-connection cap of the multipart scenario), BENCH_PART_CONCURRENCY (6, the CLI's default),
// BENCH_JQ_SIZES (100,1000,10000: the library sizes --jq is measured at),
// BENCH_WATCH_FILES (10000 files watched idle), BENCH_WATCH_UPLOADS (2000), BENCH_WATCH_IDLE_S (60),
// BENCH_SEARCH_PG_ITEMS (1000000), BENCH_SEARCH_SQLITE_ITEMS (200000), BENCH_SEARCH_LS_ITEMS (100000),
// BENCH_SEARCH_LS_SMALL (10000),
// BENCH_ONLY=large,bulk,startup,listing,scale,instances,browse,download,export,multipart,jq,watch,search; BENCH_WRITE=1 writes bench/results.md
// after a partial run too (it then says which scenarios it left out); BENCH_NODES=24,26 measures
// start-up on those Node lines too, side by side with the machine's (each installed in
// bench/tmp by scripts/test-on-node.sh: about 20 s each).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { type BrowseResult, benchBrowse, renderBrowse } from './browse.js';
import { benchBulk } from './bulk.js';
import { type InstancesResult, benchInstances, renderInstances } from './instances.js';
import { type JqResult, benchJq, renderJq } from './jq.js';
import { renderIssue41 } from './issue41.js';
import { benchLarge } from './large.js';
import { benchListing } from './listing.js';
import { type MultipartResult, benchMultipart, renderMultipart } from './multipart.js';
import { benchScale, renderScale } from './scale.js';
import { ROOT, createKey, run, serve } from './lib/proc.js';
import { type Machine, type Results, renderResults } from './report.js';
import { type SearchResult, benchSearch, renderSearch, writeSearchSection } from './search.js';
import { benchStartup } from './startup.js';
import { type WatchBenchResult, benchWatch, renderWatch } from './watch.js';
import { type DownloadResult, type ExportResult, benchDownload, benchExport, renderTakeout } from './takeout.js';

const SCENARIOS = [
  'large',
  'bulk',
  'startup',
  'listing',
  'scale',
  'instances',
  'browse',
  'download',
  'export',
  'multipart',
  'jq',
  'watch',
  'search',
] as const;
type Scenario = (typeof SCENARIOS)[number];

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not "${raw}"`);
  return n;
}

/** A comma-separated list of positive whole numbers, e.g. BENCH_JQ_SIZES=100,1000. */
function envList(name: string, fallback: number[]): number[] {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`${name} must be positive whole numbers separated by commas, not "${raw}"`);
  return values;
}

function selected(): Set<Scenario> {
  const raw = process.env.BENCH_ONLY;
  if (!raw) return new Set(SCENARIOS);
  const names = raw.split(',').map((s) => s.trim());
  const bad = names.filter((n) => !(SCENARIOS as readonly string[]).includes(n));
  if (bad.length > 0)
    throw new Error(`BENCH_ONLY: unknown scenario ${bad.join(', ')}; choose from ${SCENARIOS.join(', ')}`);
  return new Set(names as Scenario[]);
}

/** BENCH_NODES: the other Node lines whose start-up is measured (major versions). */
function otherNodes(): string[] {
  const raw = process.env.BENCH_NODES?.trim();
  if (!raw) return [];
  const majors = raw.split(',').map((s) => s.trim());
  const bad = majors.filter((m) => !/^\d+$/.test(m));
  if (bad.length > 0) throw new Error(`BENCH_NODES: ${bad.join(', ')} is not a major version (e.g. 24,26)`);
  return majors;
}

function machine(): Machine {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    cpus: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: totalmem() / 1024 ** 3,
    node: process.version,
    os: `${osType()} ${release()}`,
    load: loadavg()[0]!.toFixed(2),
  };
}

async function main(): Promise<void> {
  const only = selected();
  const runs = envNumber('BENCH_RUNS', 3);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const work = join(ROOT, 'bench/tmp');
  await rm(work, { recursive: true, force: true });
  const dirs = {
    data: join(work, 'data'),
    serveHome: join(work, 'serve-home'),
    cliHome: join(work, 'cli-home'),
    embeddedHome: join(work, 'embedded-home'),
    files: join(work, 'files'),
  };
  for (const d of Object.values(dirs)) await mkdir(d, { recursive: true });

  const results: Results = { machine: machine() };
  let scale: Awaited<ReturnType<typeof benchScale>> | undefined;
  let instances: InstancesResult | undefined;
  let browse: BrowseResult | undefined;
  let download: DownloadResult | undefined;
  let exported: ExportResult | undefined;
  let multipart: MultipartResult | undefined;
  let jq: JqResult | undefined;
  let watched: WatchBenchResult | undefined;
  let searched: SearchResult | undefined;
  const server = await serve(dirs.data, dirs.serveHome);
  log(`contentlib serve at ${server.url} (data in bench/tmp); ${runs} runs per figure`);
  try {
    const target = async (brand: string) => ({
      url: server.url,
      key: await createKey(dirs.data, dirs.serveHome, brand),
    });
    if (only.has('large')) {
      log('large file…');
      results.large = await benchLarge(await target('bench-large'), {
        dir: dirs.files,
        home: dirs.cliHome,
        bytes: envNumber('BENCH_SIZE', 1024 ** 3),
        runs,
        log,
      });
    }
    if (only.has('bulk')) {
      log('bulk…');
      results.bulk = await benchBulk(await target('bench-bulk'), {
        dir: dirs.files,
        home: dirs.cliHome,
        files: envNumber('BENCH_BULK', 200),
        runs,
        log,
      });
    }
    if (only.has('startup')) {
      log('startup…');
      const startupTarget = await target('bench-startup');
      const startupRuns = envNumber('BENCH_STARTUP_RUNS', 20);
      results.startup = await benchStartup(startupTarget, {
        dir: dirs.files,
        home: dirs.embeddedHome,
        runs: startupRuns,
        log,
      });
      results.startupByNode = [results.startup];
      for (const major of otherNodes()) {
        const repo = join(work, `node-${major}`);
        log(`installing a copy for Node ${major} (scripts/test-on-node.sh)…`);
        await run(join(ROOT, 'scripts/test-on-node.sh'), ['prepare', major, repo]);
        const bin = join((await readFile(join(repo, '.node-dir'), 'utf8')).trim(), 'bin/node');
        results.startupByNode.push(
          await benchStartup(startupTarget, {
            dir: dirs.files,
            home: `${dirs.embeddedHome}-node-${major}`,
            runs: startupRuns,
            log,
            node: { bin, repo },
          }),
        );
      }
    }
    if (only.has('listing')) {
      log('listing…');
      results.listing = await benchListing(await target('bench-list'), {
        dir: dirs.files,
        home: dirs.cliHome,
        items: envNumber('BENCH_ITEMS', 10_000),
        runs,
        log,
      });
    }
    if (only.has('scale')) {
      log('bulk at scale…');
      scale = await benchScale(await target('bench-scale'), {
        dir: dirs.files,
        home: dirs.cliHome,
        files: envNumber('BENCH_SCALE_FILES', 10_000),
        small: envNumber('BENCH_SCALE_SMALL', 500),
        huge: envNumber('BENCH_SCALE_HUGE', 0),
        dry: envNumber('BENCH_SCALE_DRY', 100_000),
        log,
      });
    }
    if (only.has('instances')) {
      log('one instance vs three on PostgreSQL + S3 (RGW)…');
      instances = await benchInstances({
        dir: dirs.files,
        home: dirs.cliHome,
        files: envNumber('BENCH_INSTANCES_FILES', 200),
        runs,
        log,
      });
    }
    if (only.has('browse')) {
      log('browse…');
      browse = await benchBrowse(await target('bench-browse'), {
        home: dirs.cliHome,
        items: envNumber('BENCH_BROWSE_ITEMS', 10_000),
        runs,
        log,
      });
    }
    if (only.has('download')) {
      log('download of one large file…');
      download = await benchDownload(await target('bench-download'), {
        dir: dirs.files,
        home: dirs.cliHome,
        bytes: envNumber('BENCH_SIZE', 1024 ** 3),
        runs,
        log,
      });
    }
    if (only.has('export')) {
      log('export at scale…');
      exported = await benchExport(target, {
        dir: dirs.files,
        home: dirs.cliHome,
        items: envNumber('BENCH_EXPORT_ITEMS', 10_000),
        small: envNumber('BENCH_EXPORT_SMALL', 500),
        log,
      });
    }
    if (only.has('multipart')) {
      log('multipart (its own two servers and a capping proxy)…');
      multipart = await benchMultipart({
        dir: join(work, 'multipart'),
        bytes: envNumber('BENCH_MULTIPART_SIZE', 1024 ** 3),
        runs,
        capMBps: envNumber('BENCH_CAP_MBPS', 20),
        partConcurrency: envNumber('BENCH_PART_CONCURRENCY', 6),
        log,
      });
    }
    if (only.has('jq')) {
      log('--jq against the jq binary…');
      jq = await benchJq(await target('bench-jq'), {
        home: dirs.cliHome,
        sizes: envList('BENCH_JQ_SIZES', [100, 1000, 10_000]),
        runs,
        log,
      });
    }
    if (only.has('watch')) {
      log('upload --watch…');
      watched = await benchWatch(await target('bench-watch'), {
        dir: dirs.files,
        home: dirs.cliHome,
        files: envNumber('BENCH_WATCH_FILES', 10_000),
        uploads: envNumber('BENCH_WATCH_UPLOADS', 2000),
        idleS: envNumber('BENCH_WATCH_IDLE_S', 60),
        log,
      });
    }
    if (only.has('search')) {
      log('search at scale (its own libraries and servers)…');
      searched = await benchSearch({
        dir: join(work, 'search'),
        home: dirs.cliHome,
        pgItems: envNumber('BENCH_SEARCH_PG_ITEMS', 1_000_000),
        sqliteItems: envNumber('BENCH_SEARCH_SQLITE_ITEMS', 200_000),
        lsItems: envNumber('BENCH_SEARCH_LS_ITEMS', 100_000),
        lsSmall: envNumber('BENCH_SEARCH_LS_SMALL', 10_000),
        log,
      });
      searched.load = `${results.machine.load} at the start, ${loadavg()[0]!.toFixed(2)} at the end (${results.machine.cores} cores)`;
    }
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }

  results.machine.load += ` / ${loadavg()[0]!.toFixed(2)} (${results.machine.cores} cores)`;
  // Hand-written analysis (profiles, causes of misses) travels with the figures.
  const notesFile = join(ROOT, 'bench/notes.md');
  const notes = existsSync(notesFile)
    ? (await readFile(notesFile, 'utf8'))
        .split('\n')
        .filter((l) => l.startsWith('- '))
        .map((l) => l.slice(2))
    : [];
  const skipped = SCENARIOS.filter((sc) => !only.has(sc));
  const text =
    renderResults(results, notes, skipped) +
    (scale ? `\n${renderScale(scale).join('\n')}` : '') +
    (instances ? `\n${renderInstances(instances).join('\n')}` : '') +
    (browse ? `\n${renderBrowse(browse).join('\n')}` : '') +
    (download || exported ? `\n${renderTakeout(download, exported).join('\n')}` : '') +
    (multipart ? `\n${renderMultipart(multipart).join('\n')}` : '') +
    (jq ? `\n${renderJq(jq).join('\n')}` : '') +
    (watched ? `\n${renderWatch(watched).join('\n')}` : '') +
    (searched ? `\n${renderSearch(searched).join('\n')}` : '') +
    issue41Section(results, scale, download, multipart);
  process.stdout.write(text);
  if (only.size === SCENARIOS.length || process.env.BENCH_WRITE === '1') {
    await writeFile(join(ROOT, 'bench/results.md'), text);
    log('written to bench/results.md');
  } else if (searched) {
    // Its libraries take long to seed: its section of bench/results.md is replaced on its own.
    await writeSearchSection(join(ROOT, 'bench/results.md'), renderSearch(searched));
    log('search: its section of bench/results.md replaced (the rest left as it was)');
  } else {
    log('partial run (BENCH_ONLY): bench/results.md left as it was (BENCH_WRITE=1 writes it)');
  }
}

/** Issue 41's before/after table, when this run measured any of its scenarios. */
function issue41Section(
  results: Results,
  scale: Awaited<ReturnType<typeof benchScale>> | undefined,
  download: DownloadResult | undefined,
  multipart: MultipartResult | undefined,
): string {
  const lines = renderIssue41({
    ...(results.large ? { large: results.large } : {}),
    ...(scale ? { scale } : {}),
    ...(download ? { download } : {}),
    ...(multipart ? { multipart } : {}),
  });
  return lines.length > 0 ? `\n${lines.join('\n')}` : '';
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
