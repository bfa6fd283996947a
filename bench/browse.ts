// Browse (issue 26): against `contentlib serve` with BENCH_BROWSE_ITEMS (10,000) items, each
// with a picture (one-image carousels of a real JPEG, seeded through the API as uploads make
// them):
// - `contentlib browse --no-open` against the remote: from the process start to the URL on
//   stdout (target ≤ 0.5 s);
// - in headless Chromium (Debian's, through playwright-core), from navigation to the last
//   thumbnail in view loaded: the grid's first page (target ≤ 1 s) and page 50 (no costlier
//   than the first).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { type Target, complete, presign, put } from './lib/api.js';
import { BIN, ROOT, cliEnv } from './lib/proc.js';
import { median } from './lib/stats.js';

const SEED_CONCURRENCY = 16;

export interface BrowseResult {
  items: number;
  runs: number;
  seedMs: number;
  readyMs: number;
  firstPageMs: number;
  page50Ms: number;
}

async function seed(t: Target, count: number): Promise<void> {
  const bytes = await readFile(join(ROOT, 'fixtures/image/photo.jpg'));
  let next = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const i = next++;
      const fileName = `shot-${i}.jpg`;
      const p = await presign(t, { fileName, contentType: 'image/jpeg', fileSize: bytes.length, type: 'carousel' });
      await put(p.presignedUrl, bytes, 'image/jpeg');
      await complete(t, { key: p.key, fileName, contentType: 'image/jpeg', fileSize: bytes.length, type: 'carousel' });
    }
  }
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

/** Starts browse; resolves with the URL and the time to it. */
async function startBrowse(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  const child = spawn('node', [BIN, 'browse', '--no-open'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`contentlib browse exited (${code}) before printing its URL`)));
  });
  return { child, url, ms: performance.now() - started };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

interface PageWindow {
  innerHeight: number;
  innerWidth: number;
  document: {
    images: ArrayLike<{
      complete: boolean;
      naturalWidth: number;
      getBoundingClientRect(): { top: number; bottom: number; left: number; right: number };
    }>;
  };
}

/**
 * Every image at least partly in the viewport has loaded (the page's last visible thumbnail).
 * A function, not a string: Playwright would evaluate a string with eval, which the page's CSP
 * (rightly) forbids.
 */
function visibleLoaded(): boolean {
  const w = globalThis as unknown as PageWindow;
  const inView = Array.from(w.document.images).filter((img) => {
    const r = img.getBoundingClientRect();
    return r.bottom > 0 && r.top < w.innerHeight && r.right > 0 && r.left < w.innerWidth;
  });
  return inView.length > 0 && inView.every((img) => img.complete && img.naturalWidth > 0);
}

export async function benchBrowse(
  t: Target,
  o: { home: string; items: number; runs: number; log: (s: string) => void },
): Promise<BrowseResult> {
  const seedStart = performance.now();
  await seed(t, o.items);
  const seedMs = performance.now() - seedStart;
  o.log(`  seeded ${o.items} one-image carousels through the API in ${(seedMs / 1000).toFixed(1)} s`);
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });

  // One start first, not counted: the first run of a command writes its V8 code cache
  // (src/launch/compile-cache.ts), which every later start reads. Starts are cheap: a few more.
  const ready: number[] = [];
  for (let i = -1; i < o.runs * 3; i++) {
    const b = await startBrowse(env);
    if (i >= 0) ready.push(b.ms);
    await stop(b.child);
  }

  const b = await startBrowse(env);
  const browser = await chromium.launch({
    executablePath: process.env.CONTENTLIB_CHROMIUM ?? '/usr/bin/chromium',
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  const first: number[] = [];
  const fiftieth: number[] = [];
  try {
    const origin = new URL(b.url).origin;
    for (let i = 0; i < o.runs; i++) {
      // A fresh context each time: no image is in the browser's cache from an earlier run.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(b.url);
      for (const [path, into] of [
        ['/', first],
        ['/?page=50', fiftieth],
      ] as const) {
        const started = performance.now();
        await page.goto(`${origin}${path}`);
        await page.waitForFunction(visibleLoaded, undefined, { polling: 'raf', timeout: 30_000 });
        into.push(performance.now() - started);
      }
      await context.close();
      o.log(
        `  browse run ${i + 1}/${o.runs}: first page ${first[i]!.toFixed(0)} ms, page 50 ${fiftieth[i]!.toFixed(0)} ms`,
      );
    }
  } finally {
    await browser.close();
    await stop(b.child);
  }
  return {
    items: o.items,
    runs: o.runs,
    seedMs,
    readyMs: median(ready),
    firstPageMs: median(first),
    page50Ms: median(fiftieth),
  };
}

const verdict = (met: boolean) => (met ? 'met' : '**missed**');

export function renderBrowse(r: BrowseResult): string[] {
  return [
    `## Browse (${r.items} items with a picture, ${r.runs} runs, headless Chromium)`,
    '',
    `Seeded through the real API (one-image carousels, 16 at a time) in ${(r.seedMs / 1000).toFixed(1)} s.`,
    '',
    '| figure | goal | measured | verdict |',
    '|---|---|---|---|',
    `| \`contentlib browse\` against serve: start to URL | ≤ 0.5 s | ${(r.readyMs / 1000).toFixed(2)} s | ${verdict(r.readyMs <= 500)} |`,
    `| grid, first page: navigation to the last visible thumbnail | ≤ 1 s | ${(r.firstPageMs / 1000).toFixed(2)} s | ${verdict(r.firstPageMs <= 1000)} |`,
    `| grid, page 50, the same | ≤ the first page | ${(r.page50Ms / 1000).toFixed(2)} s (${(r.page50Ms / r.firstPageMs).toFixed(2)}×) | ${verdict(r.page50Ms <= r.firstPageMs * 1.1)} (10 % for noise) |`,
    '',
  ];
}
