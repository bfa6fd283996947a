// bench/results.md: the machine, every figure with its reference and ratio, and each issue-5
// target marked met or missed (by how much).
import type { BulkResult } from './bulk.js';
import type { LargeResult } from './large.js';
import type { ListingResult } from './listing.js';
import { STARTUP_COMMANDS, type StartupCommand, type StartupResult } from './startup.js';
import { MIB, fixed } from './lib/stats.js';

export interface Machine {
  date: string;
  cpus: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the run started and ended: other work on the machine skews every figure. */
  load: string;
}

export interface Results {
  machine: Machine;
  large?: LargeResult;
  bulk?: BulkResult;
  startup?: StartupResult;
  /** The same start-up figures on each Node measured (BENCH_NODES), the machine's first. */
  startupByNode?: StartupResult[];
  listing?: ListingResult;
}

interface Target {
  what: string;
  goal: string;
  actual: string;
  /** Positive: met; the verdict text says by how much when missed. */
  met: boolean;
  miss: string;
}

/** "at least" targets: actual ≥ goal. */
function atLeast(what: string, actual: number, goal: number, unit: string, digits = 2): Target {
  const met = actual >= goal;
  return {
    what,
    goal: `≥ ${goal}${unit}`,
    actual: `${fixed(actual, digits)}${unit}`,
    met,
    miss: met ? '' : `short by ${fixed(goal - actual, digits)}${unit} (${fixed((1 - actual / goal) * 100, 0)} %)`,
  };
}

/** "at most" targets: actual ≤ goal. */
function atMost(what: string, actual: number, goal: number, unit: string, digits = 0): Target {
  const met = actual <= goal;
  return {
    what,
    goal: `≤ ${goal}${unit}`,
    actual: `${fixed(actual, digits)}${unit}`,
    met,
    miss: met ? '' : `over by ${fixed(actual - goal, digits)}${unit} (${fixed((actual / goal - 1) * 100, 0)} %)`,
  };
}

export function targets(r: Results): Target[] {
  const t: Target[] = [];
  if (r.large) {
    t.push(atLeast('large file: transfer speed vs curl', r.large.clTransferMBps / r.large.curlMBps, 1.0, '×'));
    t.push(atMost('large file: client CPU (user + sys) vs curl', r.large.clCpuMs / r.large.curlCpuMs, 1.5, '×', 2));
    // Issue 22: the upload with its checksum, against curl -T (wall) and curl + openssl dgst (CPU).
    t.push(
      atMost('large file with its checksum: wall vs `curl -T`', r.large.clWallMs / r.large.curlWallMs, 1.0, '×', 2),
    );
    t.push(
      atMost(
        'large file with its checksum: CPU vs `curl -T` + `openssl dgst -sha256`',
        r.large.clCpuMs / (r.large.curlCpuMs + r.large.opensslCpuMs),
        1.3,
        '×',
        2,
      ),
    );
    t.push(
      atMost(
        `large file: contentlib peak RSS (${fixed(r.large.bytes / MIB / 1024, 2)} GiB)`,
        r.large.clPeakRssMiB,
        100,
        ' MiB',
      ),
    );
  }
  if (r.bulk) {
    const c4 = r.bulk.contentlib.find((c) => c.concurrency === 4);
    if (c4)
      t.push(
        atLeast(
          'bulk: items/s vs the curl loop (default --concurrency 4)',
          c4.itemsPerS / r.bulk.curlItemsPerS,
          5,
          '×',
          1,
        ),
      );
    t.push(
      atMost(
        `bulk: re-run of ${r.bulk.files} files from an empty journal vs \`openssl dgst -sha256\` of them`,
        r.bulk.rerunWallMs / r.bulk.opensslWallMs,
        1.5,
        '×',
        2,
      ),
    );
  }
  if (r.startup) {
    const s = r.startup;
    // Issue 15: each command's CPU time as a multiple of `node -e 0`'s, measured in the same run.
    const ratio = (what: string, c: StartupCommand, goal: number) => {
      const target = atMost(`startup: ${what} vs \`node -e 0\` (CPU)`, s.cpu[c] / s.cpu.node, goal, '×', 2);
      target.actual += ` (wall ${fixed(s.medians[c] / s.medians.node, 2)}×)`;
      return target;
    };
    t.push(ratio('`ls` against serve', 'ls', 1.6));
    t.push(ratio('`ls` on the embedded library', 'lsEmbedded', 2.0));
    t.push(ratio('`show` against serve', 'show', 1.6));
    t.push(ratio('`--version`', 'version', 1.1));
    t.push(ratio('`upload --help`', 'uploadHelp', 1.5));
  }
  // Issues 29 and 33: on every Node tested, CPU milliseconds above that Node's own `node -e 0`.
  for (const n of r.startupByNode ?? []) {
    t.push(
      atMost(`startup on ${n.node}: \`ls\` against serve, CPU above \`node -e 0\``, n.cpu.ls - n.cpu.node, 50, ' ms'),
    );
    t.push(
      atMost(`startup on ${n.node}: \`--version\`, CPU above \`node -e 0\``, n.cpu.version - n.cpu.node, 10, ' ms'),
    );
  }
  if (r.listing) {
    t.push(atMost(`listing: \`ls --all --json\` of ${r.listing.items} items`, r.listing.clMs / 1000, 3, ' s', 2));
    t.push(atMost('listing: peak RSS', r.listing.clPeakRssMiB, 150, ' MiB'));
  }
  return t;
}

export function renderResults(r: Results, notes: readonly string[], skipped: readonly string[] = []): string {
  const m = r.machine;
  const lines: string[] = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/run.ts); see docs/reliability.md for what each figure means.',
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.cores} cores (${m.cpus}), ${fixed(m.memoryGiB, 1)} GiB memory, ${m.os}`,
    `- Node: ${m.node}`,
    `- Load average (1 min) at start / end: ${m.load}`,
    '',
    'Each figure is the median of several runs; every reference (curl, a shell loop, `node -e 0`) is measured in the same run, against the same `contentlib serve` process, on loopback.',
    '',
  ];
  if (skipped.length > 0)
    lines.push(
      `Partial run (BENCH_ONLY): ${skipped.join(', ')} not measured this time; their last figures are in this file's history.`,
      '',
    );
  if (r.large) {
    const l = r.large;
    lines.push(
      `## Large file (${fixed(l.bytes / MIB, 0)} MiB sparse longform MP4, ${l.runs} runs)`,
      '',
      '| | transfer MB/s | whole command | peak RSS |',
      '|---|---|---|---|',
      `| curl -T to a presigned URL | ${fixed(l.curlMBps)} | ${fixed(l.curlWallMs, 0)} ms (curl alone) | |`,
      `| contentlib upload | ${fixed(l.clTransferMBps)} | ${fixed(l.clWallMs, 0)} ms (${fixed(l.clWallMBps)} MB/s, with start-up, presign and complete) | ${fixed(l.clPeakRssMiB, 0)} MiB |`,
      `| ratio contentlib / curl | ${fixed(l.clTransferMBps / l.curlMBps, 2)} | | |`,
      '',
      `CPU (user + sys, median): curl ${fixed(l.curlCpuMs, 0)} ms, contentlib ${fixed(l.clCpuMs, 0)} ms (the whole command: start-up, hashing, presign, PUT, complete), ratio ${fixed(l.clCpuMs / l.curlCpuMs, 2)}; \`openssl dgst -sha256\` of the same file ${fixed(l.opensslCpuMs, 0)} ms CPU, ${fixed(l.opensslWallMs, 0)} ms wall.`,
      '',
      "Transfer: curl's own `time_total`; contentlib's `uploaded` event `ms` (presign + PUT, from its `--json` NDJSON). MB = 2^20 bytes.",
      '',
    );
  }
  if (r.bulk) {
    const b = r.bulk;
    lines.push(
      `## Bulk (${b.files} copies of fixtures/video/clip-5s.mp4, ${b.runs} runs)`,
      '',
      '| | items/s | wall time | ratio vs curl loop |',
      '|---|---|---|---|',
      `| bash loop: curl + jq, presign → PUT → complete | ${fixed(b.curlItemsPerS)} | ${fixed((b.files * 1000) / b.curlItemsPerS, 0)} ms | 1.0 |`,
      ...b.contentlib.map(
        (c) =>
          `| contentlib upload DIR --force --concurrency ${c.concurrency} | ${fixed(c.itemsPerS)} | ${fixed(c.wallMs, 0)} ms | ${fixed(c.itemsPerS / b.curlItemsPerS, 1)} |`,
      ),
      '',
      `A re-run from an empty journal (a fresh runner; creates nothing): ${fixed(b.rerunWallMs, 0)} ms; \`openssl dgst -sha256\` of the same ${b.files} files: ${fixed(b.opensslWallMs, 0)} ms (ratio ${fixed(b.rerunWallMs / b.opensslWallMs, 2)}).`,
      '',
    );
  }
  if (r.startup) {
    const s = r.startup.medians;
    const c = r.startup.cpu;
    const label: Record<StartupCommand, string> = {
      node: 'node -e 0 (reference)',
      version: 'contentlib --version',
      help: 'contentlib --help',
      uploadHelp: 'contentlib upload --help',
      ls: 'contentlib ls (against serve, 1 item)',
      show: 'contentlib show ID (against serve)',
      lsEmbedded: 'contentlib ls --embedded (1 item)',
    };
    lines.push(
      `## Start-up (hyperfine, ${r.startup.runs} runs after 3 warm-ups)`,
      '',
      '| command | median | ratio to `node -e 0` | CPU (user + sys, mean) | CPU ratio |',
      '|---|---|---|---|---|',
      ...STARTUP_COMMANDS.map(
        (k) =>
          `| ${label[k]} | ${fixed(s[k], 0)} ms | ${fixed(s[k] / s.node, 2)}× | ${fixed(c[k], 0)} ms | ${fixed(c[k] / c.node, 2)}× |`,
      ),
      '',
    );
  }
  if (r.startupByNode && r.startupByNode.length > 1) {
    const nodes = r.startupByNode;
    lines.push(
      `## Start-up on each Node (CPU, user + sys, mean of ${nodes[0]!.runs} runs; in brackets: above that Node's \`node -e 0\`)`,
      '',
      `| command | ${nodes.map((n) => n.node).join(' | ')} |`,
      `|---|${nodes.map(() => '---|').join('')}`,
      ...STARTUP_COMMANDS.map(
        (k) =>
          `| ${k === 'node' ? 'node -e 0' : k} | ${nodes
            .map((n) =>
              k === 'node'
                ? `${fixed(n.cpu.node, 0)} ms`
                : `${fixed(n.cpu[k], 0)} ms (+${fixed(n.cpu[k] - n.cpu.node, 0)})`,
            )
            .join(' | ')} |`,
      ),
      '',
    );
  }
  if (r.listing) {
    const l = r.listing;
    lines.push(
      `## Listing (${l.items} items, ${l.runs} runs)`,
      '',
      `Seeded through the real API (presign → PUT → complete, 16 at a time) in ${fixed(l.seedMs / 1000)} s.`,
      '',
      '| | time | peak RSS |',
      '|---|---|---|',
      `| bash loop of curl, one request per 100-item page | ${fixed(l.curlMs, 0)} ms | |`,
      `| contentlib ls --all --json > /dev/null | ${fixed(l.clMs, 0)} ms | ${fixed(l.clPeakRssMiB, 0)} MiB |`,
      `| ratio contentlib / curl loop (time) | ${fixed(l.clMs / l.curlMs, 2)} | |`,
      '',
    );
  }
  lines.push('## Targets (issues 5, 15 and 29)', '', '| target | goal | measured | verdict |', '|---|---|---|---|');
  for (const t of targets(r))
    lines.push(`| ${t.what} | ${t.goal} | ${t.actual} | ${t.met ? 'met' : `**missed**: ${t.miss}`} |`);
  if (notes.length > 0) lines.push('', '## Notes', '', ...notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}
