// Start-up: `contentlib --version`, `--help`, `upload --help`, and `ls` and `show` against the
// bench's `contentlib serve` and on the embedded library, with hyperfine, against `node -e 0`
// (the floor any Node CLI stands on) measured in the same run. Issue 15's targets are ratios to
// that floor, issue 29's the CPU milliseconds above it, on each Node tested (BENCH_NODES runs
// the same commands on other Node lines, each from a copy of the repository installed for it by
// scripts/test-on-node.sh). CPU time (user + system) is reported beside wall time because it is
// less swayed by other work on a shared machine.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Target } from './lib/api.js';
import { BIN, ROOT, cliEnv, run } from './lib/proc.js';

export const STARTUP_COMMANDS = ['node', 'version', 'help', 'uploadHelp', 'ls', 'show', 'lsEmbedded'] as const;
export type StartupCommand = (typeof STARTUP_COMMANDS)[number];

/** Which Node runs the commands, and the repository installed for it. */
export interface StartupNode {
  /** `node` (the machine's, on PATH) or the path of another Node binary. */
  bin: string;
  /** The repository whose bin/contentlib.js runs (its node_modules built for that Node). */
  repo: string;
}

export interface StartupResult {
  /** process.version of the Node measured. */
  node: string;
  runs: number;
  /** Median wall milliseconds per command. */
  medians: Record<StartupCommand, number>;
  /** Mean CPU milliseconds (user + system). */
  cpu: Record<StartupCommand, number>;
}

interface HyperfineJson {
  results: Array<{ command: string; median: number; user: number; system: number }>;
}

export async function benchStartup(
  t: Target,
  o: { dir: string; home: string; runs: number; log: (s: string) => void; node?: StartupNode },
): Promise<StartupResult> {
  const node = o.node?.bin ?? 'node';
  const bin = o.node ? join(o.node.repo, 'bin/contentlib.js') : BIN;
  // The remote is the target of every command; `--embedded` picks the embedded library.
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });
  // One upload to each first, so both libraries (and the embedded key) exist, as they do for
  // anyone who uses them; then one run of each command, so its code cache is written.
  const clip = join(ROOT, 'fixtures/video/clip-5s.mp4');
  await run(node, [bin, 'upload', clip, '--force', '--embedded'], { env });
  await run(node, [bin, 'upload', clip, '--force'], { env });
  const listed = await run(node, [bin, 'ls', '--json', '--limit', '1'], { env });
  const id = (JSON.parse(listed.stdout) as Array<{ id: string }>)[0]?.id;
  if (!id) throw new Error(`ls --json listed nothing after an upload: ${listed.stdout}`);
  const version = (await run(node, ['-p', 'process.version'])).stdout.trim();
  const commands: Record<StartupCommand, string> = {
    node: `${node} -e 0`,
    version: `${node} ${bin} --version`,
    help: `${node} ${bin} --help`,
    uploadHelp: `${node} ${bin} upload --help`,
    ls: `${node} ${bin} ls`,
    show: `${node} ${bin} show ${id}`,
    lsEmbedded: `${node} ${bin} ls --embedded`,
  };
  const out = join(o.dir, 'hyperfine.json');
  await run(
    'hyperfine',
    ['-N', '--warmup', '3', '--runs', String(o.runs), '--export-json', out, ...Object.values(commands)],
    { env },
  );
  const parsed = JSON.parse(await readFile(out, 'utf8')) as HyperfineJson;
  const pick = (f: (r: HyperfineJson['results'][number]) => number) => {
    const values = {} as Record<StartupCommand, number>;
    for (const name of STARTUP_COMMANDS) {
      const r = parsed.results.find((x) => x.command === commands[name]);
      if (!r) throw new Error(`hyperfine has no result for ${commands[name]}`);
      values[name] = f(r);
    }
    return values;
  };
  const medians = pick((r) => r.median * 1000);
  const cpu = pick((r) => (r.user + r.system) * 1000);
  o.log(`  startup CPU ms on ${version}: ${STARTUP_COMMANDS.map((c) => `${c} ${cpu[c].toFixed(0)}`).join(', ')}`);
  return { node: version, runs: o.runs, medians, cpu };
}
