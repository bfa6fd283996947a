// Bulk: BENCH_BULK (200) copies of a real 5 s shortform clip, distinct names, via
// `contentlib upload DIR --force` at several --concurrency values, against a sequential bash
// loop of curl + jq doing presign → PUT → complete per file (scripts/curl-upload-loop.sh).
// Then a re-run of the same folder from an empty CONTENTLIB_HOME (a fresh CI runner, no journal):
// it must create nothing, and is set against `openssl dgst -sha256` of the same files.
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Target } from './lib/api.js';
import { BIN, ROOT, cliEnv, run } from './lib/proc.js';
import { median } from './lib/stats.js';

export const CONCURRENCIES = [1, 4, 8] as const;

export interface BulkResult {
  files: number;
  runs: number;
  curlItemsPerS: number;
  contentlib: Array<{ concurrency: number; itemsPerS: number; wallMs: number }>;
  /** A re-run from an empty journal (created nothing) and `openssl dgst -sha256` of every file: median wall, ms. */
  rerunWallMs: number;
  opensslWallMs: number;
}

async function makeFolder(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const clip = join(ROOT, 'fixtures/video/clip-5s.mp4');
  for (let i = 0; i < count; i++) await copyFile(clip, join(dir, `clip-${String(i).padStart(4, '0')}.mp4`));
}

/** A fresh runner each time: a home of its own, so no journal. */
async function rerunFresh(t: Target, folder: string, home: string): Promise<number> {
  const r = await run('node', [BIN, 'upload', folder, '--json'], {
    env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key }),
  });
  const created = createdCount(r.stdout);
  if (created !== 0) throw new Error(`a re-run from an empty journal created ${created} items, expected none`);
  await rm(home, { recursive: true, force: true });
  return r.wallMs;
}

function createdCount(ndjson: string): number {
  const lines = ndjson.split('\n').filter(Boolean);
  const summary = JSON.parse(lines[lines.length - 1]!) as { type: string; created: number };
  if (summary.type !== 'summary')
    throw new Error(`contentlib upload ended without a summary line:\n${ndjson.slice(-500)}`);
  return summary.created;
}

export async function benchBulk(
  t: Target,
  o: { dir: string; home: string; files: number; runs: number; log: (s: string) => void },
): Promise<BulkResult> {
  const folder = join(o.dir, 'bulk');
  await makeFolder(folder, o.files);
  const curlMs: number[] = [];
  const clMs = new Map<number, number[]>(CONCURRENCIES.map((c) => [c, []]));
  for (let i = 0; i < o.runs; i++) {
    const loop = await run('bash', [join(ROOT, 'bench/scripts/curl-upload-loop.sh'), folder], {
      env: { BASE: t.url, KEY: t.key },
    });
    curlMs.push(loop.wallMs);
    for (const c of CONCURRENCIES) {
      const r = await run('node', [BIN, 'upload', folder, '--force', '--json', '--concurrency', String(c)], {
        env: cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key }),
      });
      const created = createdCount(r.stdout);
      if (created !== o.files) throw new Error(`contentlib upload created ${created} items, expected ${o.files}`);
      clMs.get(c)!.push(r.wallMs);
    }
    o.log(
      `  bulk run ${i + 1}/${o.runs}: curl loop ${loop.wallMs.toFixed(0)} ms; contentlib ${CONCURRENCIES.map((c) => `c${c} ${clMs.get(c)![i]!.toFixed(0)} ms`).join(', ')}`,
    );
  }
  const rerunMs: number[] = [];
  const sslMs: number[] = [];
  const files = (await readdir(folder)).map((name) => join(folder, name));
  for (let i = 0; i < o.runs; i++) {
    rerunMs.push(await rerunFresh(t, folder, join(o.dir, `fresh-home-${i}`)));
    sslMs.push((await run('openssl', ['dgst', '-sha256', ...files])).wallMs);
    o.log(
      `  bulk re-run ${i + 1}/${o.runs} from an empty journal: ${rerunMs[i]!.toFixed(0)} ms; openssl ${sslMs[i]!.toFixed(0)} ms`,
    );
  }
  const perS = (ms: number) => (o.files * 1000) / ms;
  return {
    files: o.files,
    runs: o.runs,
    curlItemsPerS: perS(median(curlMs)),
    contentlib: CONCURRENCIES.map((c) => ({
      concurrency: c,
      wallMs: median(clMs.get(c)!),
      itemsPerS: perS(median(clMs.get(c)!)),
    })),
    rerunWallMs: median(rerunMs),
    opensslWallMs: median(sslMs),
  };
}
