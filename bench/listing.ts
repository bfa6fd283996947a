// Listing: `contentlib ls --all --json > /dev/null` over BENCH_ITEMS (10,000) items, time and
// peak RSS, against a bash loop of curl fetching every page (scripts/curl-list-loop.sh).
// Items are seeded through the real API (presign → PUT → complete of a real 5 s clip), many
// at once, so the library is exactly what uploads make.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Target, complete, presign, put } from './lib/api.js';
import { BIN, ROOT, cliEnv, run } from './lib/proc.js';
import { median } from './lib/stats.js';

const SEED_CONCURRENCY = 16;

export interface ListingResult {
  items: number;
  runs: number;
  seedMs: number;
  clMs: number;
  clPeakRssMiB: number;
  curlMs: number;
}

/** `count` items through the real API, SEED_CONCURRENCY at a time (the takeout bench seeds with it too). */
export async function seed(t: Target, count: number): Promise<void> {
  const bytes = await readFile(join(ROOT, 'fixtures/video/clip-5s.mp4'));
  let next = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const i = next++;
      const fileName = `seed-${i}.mp4`;
      const p = await presign(t, { fileName, contentType: 'video/mp4', fileSize: bytes.length, type: 'shortform' });
      await put(p.presignedUrl, bytes, 'video/mp4');
      await complete(t, {
        key: p.key,
        fileName,
        contentType: 'video/mp4',
        fileSize: bytes.length,
        type: 'shortform',
        durationSeconds: 5,
      });
    }
  }
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

function countJson(stdout: string): number {
  const parsed = JSON.parse(stdout) as unknown;
  if (Array.isArray(parsed)) return parsed.length;
  const items = (parsed as { items?: unknown[] }).items;
  if (Array.isArray(items)) return items.length;
  throw new Error('ls --all --json printed neither an array nor { items }');
}

export async function benchListing(
  t: Target,
  o: { dir: string; home: string; items: number; runs: number; log: (s: string) => void },
): Promise<ListingResult> {
  const seedStart = performance.now();
  await seed(t, o.items);
  const seedMs = performance.now() - seedStart;
  o.log(`  seeded ${o.items} items through the API in ${(seedMs / 1000).toFixed(1)} s`);
  // One counted run first: the benchmark must list exactly what was seeded.
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });
  const check = await run('node', [BIN, 'ls', '--all', '--json'], { env });
  const listed = countJson(check.stdout);
  if (listed !== o.items) throw new Error(`ls --all --json listed ${listed} items, ${o.items} were seeded`);
  const cl: Array<{ ms: number; rss: number }> = [];
  const curl: number[] = [];
  for (let i = 0; i < o.runs; i++) {
    // Output to /dev/null as the figure asks: the shell does it, the CLI still writes every byte.
    const r = await run('bash', ['-c', `exec node "${BIN}" ls --all --json > /dev/null`], {
      env,
      rssFile: join(o.dir, 'rss.txt'),
    });
    cl.push({ ms: r.wallMs, rss: (r.maxRssKiB ?? NaN) / 1024 });
    const loop = await run('bash', ['-c', `"${join(ROOT, 'bench/scripts/curl-list-loop.sh')}" > /dev/null`], {
      env: { BASE: t.url, KEY: t.key },
    });
    curl.push(loop.wallMs);
    o.log(
      `  listing run ${i + 1}/${o.runs}: contentlib ${r.wallMs.toFixed(0)} ms (${cl[i]!.rss.toFixed(0)} MiB), curl loop ${loop.wallMs.toFixed(0)} ms`,
    );
  }
  return {
    items: o.items,
    runs: o.runs,
    seedMs,
    clMs: median(cl.map((c) => c.ms)),
    clPeakRssMiB: median(cl.map((c) => c.rss)),
    curlMs: median(curl),
  };
}
