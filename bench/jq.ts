// --jq at any size (issue 35): `contentlib ls --all --jq EXPR` against `contentlib ls --all --json
// | jq EXPR` (the machine's jq binary), measured in the same run at 100, 1,000 and 10,000 items
// (BENCH_JQ_SIZES), for a filter that keeps little (`length`) and one that prints a line per
// item (`.[].id`). The library grows between sizes: items are seeded through the real API.
// Targets: --jq within 1.5× of the pipeline plus 0.2 s at every size, and linear: the cost of
// each further item from 1,000 to 10,000 at most twice what it was from 100 to 1,000.
import { type Target } from './lib/api.js';
import { BIN, cliEnv, run } from './lib/proc.js';
import { fixed, median } from './lib/stats.js';
import { seed } from './listing.js';

export const JQ_FILTERS = ['length', '.[].id'] as const;

export interface JqPoint {
  items: number;
  filter: string;
  /** Median wall time of `ls --all --jq FILTER > /dev/null`. */
  clMs: number;
  /** Median wall time of `ls --all --json | jq -r FILTER > /dev/null`, the same run. */
  pipeMs: number;
}

export interface JqResult {
  runs: number;
  jqVersion: string;
  points: JqPoint[];
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function benchJq(
  t: Target,
  o: { home: string; sizes: number[]; runs: number; log: (s: string) => void },
): Promise<JqResult> {
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });
  const jqVersion = (await run('jq', ['--version'])).stdout.trim();
  const points: JqPoint[] = [];
  let seeded = 0;
  for (const size of [...o.sizes].sort((a, b) => a - b)) {
    await seed(t, size - seeded);
    seeded = size;
    // Both must see exactly the seeded items, and agree.
    const viaJq = (await run('node', [BIN, 'ls', '--all', '--jq', 'length'], { env })).stdout.trim();
    const viaPipe = (await run('bash', ['-c', `node "${BIN}" ls --all --json | jq length`], { env })).stdout.trim();
    if (viaJq !== String(size) || viaPipe !== String(size))
      throw new Error(`--jq length said ${viaJq}, the jq pipeline ${viaPipe}; ${size} were seeded`);
    for (const filter of JQ_FILTERS) {
      const cl: number[] = [];
      const pipe: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        cl.push(
          (await run('bash', ['-c', `exec node "${BIN}" ls --all --jq ${quote(filter)} > /dev/null`], { env })).wallMs,
        );
        pipe.push(
          (
            await run(
              'bash',
              ['-c', `set -o pipefail; node "${BIN}" ls --all --json | jq -r ${quote(filter)} > /dev/null`],
              {
                env,
              },
            )
          ).wallMs,
        );
      }
      const p = { items: size, filter, clMs: median(cl), pipeMs: median(pipe) };
      points.push(p);
      o.log(`  ${size} items, ${filter}: --jq ${fixed(p.clMs, 0)} ms, | jq ${fixed(p.pipeMs, 0)} ms`);
    }
  }
  return { runs: o.runs, jqVersion, points };
}

export interface JqTarget {
  what: string;
  goal: string;
  actual: string;
  met: boolean;
}

/** The targets: within 1.5× + 0.2 s of the pipeline, and linear (see the header). */
export function jqTargets(r: JqResult): JqTarget[] {
  const out: JqTarget[] = [];
  for (const p of r.points) {
    const bound = 1.5 * p.pipeMs + 200;
    out.push({
      what: `\`--jq ${p.filter}\` over ${p.items} items vs \`--json \\| jq\``,
      goal: `≤ 1.5× + 200 ms (${fixed(bound, 0)} ms)`,
      actual: `${fixed(p.clMs, 0)} ms (${fixed(p.clMs / p.pipeMs, 2)}×)`,
      met: p.clMs <= bound,
    });
  }
  for (const filter of JQ_FILTERS) {
    const [a, b, c] = [100, 1000, 10_000].map((n) => r.points.find((p) => p.items === n && p.filter === filter));
    if (!a || !b || !c) continue;
    // Milliseconds per 1,000 further items, on each stretch.
    const early = ((b.clMs - a.clMs) / (b.items - a.items)) * 1000;
    const late = ((c.clMs - b.clMs) / (c.items - b.items)) * 1000;
    out.push({
      what: `\`--jq ${filter}\` linear: ms per 1,000 items, 1,000→10,000 vs 100→1,000`,
      goal: '≤ 2×',
      actual: `${fixed(late, 0)} vs ${fixed(early, 0)} ms (${fixed(late / Math.max(early, 1), 2)}×)`,
      met: late <= 2 * Math.max(early, 1),
    });
  }
  return out;
}

export function renderJq(r: JqResult): string[] {
  return [
    `## --jq (${r.runs} runs; the reference is the machine's ${r.jqVersion}, measured in the same run)`,
    '',
    '| items | filter | `ls --all --jq` | `ls --all --json \\| jq -r` | ratio |',
    '|---|---|---|---|---|',
    ...r.points.map(
      (p) =>
        `| ${p.items} | \`${p.filter}\` | ${fixed(p.clMs, 0)} ms | ${fixed(p.pipeMs, 0)} ms | ${fixed(p.clMs / p.pipeMs, 2)}× |`,
    ),
    '',
    '| target | goal | measured | verdict |',
    '|---|---|---|---|',
    ...jqTargets(r).map((t) => `| ${t.what} | ${t.goal} | ${t.actual} | ${t.met ? 'met' : '**missed**'} |`),
    '',
  ];
}
