// Bulk: BENCH_BULK (200) copies of a real 5 s shortform clip, distinct names, via
// `contentlib upload DIR --force` at several --concurrency values, against a sequential bash
// loop of curl + jq doing presign → PUT → complete per file (scripts/curl-upload-loop.sh).
import { copyFile, mkdir } from 'node:fs/promises';
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
}

async function makeFolder(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const clip = join(ROOT, 'fixtures/video/clip-5s.mp4');
  for (let i = 0; i < count; i++) await copyFile(clip, join(dir, `clip-${String(i).padStart(4, '0')}.mp4`));
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
  };
}
