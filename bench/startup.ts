// Start-up: `contentlib --version`, `--help` and `ls` on the embedded default library, with
// hyperfine, against `node -e 0` (the floor any Node CLI stands on) measured in the same run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BIN, ROOT, cliEnv, run } from './lib/proc.js';

export interface StartupResult {
  runs: number;
  /** Median milliseconds per command, keyed by label. */
  medians: Record<'node' | 'version' | 'help' | 'ls', number>;
  /** Mean CPU milliseconds (user + system): less swayed than wall time by other work on the machine. */
  cpu: Record<'node' | 'version' | 'help' | 'ls', number>;
}

interface HyperfineJson {
  results: Array<{ command: string; median: number; user: number; system: number }>;
}

export async function benchStartup(o: {
  dir: string;
  home: string;
  runs: number;
  log: (s: string) => void;
}): Promise<StartupResult> {
  const env = cliEnv({ CONTENTLIB_HOME: o.home });
  // One upload first, so the embedded library and its key exist, as they do for anyone who uses it.
  await run('node', [BIN, 'upload', join(ROOT, 'fixtures/video/clip-5s.mp4'), '--force'], { env });
  const out = join(o.dir, 'hyperfine.json');
  const commands = {
    node: 'node -e 0',
    version: `node ${BIN} --version`,
    help: `node ${BIN} --help`,
    ls: `node ${BIN} ls`,
  };
  await run(
    'hyperfine',
    ['-N', '--warmup', '3', '--runs', String(o.runs), '--export-json', out, ...Object.values(commands)],
    { env },
  );
  const parsed = JSON.parse(await readFile(out, 'utf8')) as HyperfineJson;
  const resultOf = (cmd: string) => {
    const r = parsed.results.find((x) => x.command === cmd);
    if (!r) throw new Error(`hyperfine has no result for ${cmd}`);
    return r;
  };
  const pick = (f: (r: HyperfineJson['results'][number]) => number) => ({
    node: f(resultOf(commands.node)),
    version: f(resultOf(commands.version)),
    help: f(resultOf(commands.help)),
    ls: f(resultOf(commands.ls)),
  });
  const medians = pick((r) => r.median * 1000);
  const cpu = pick((r) => (r.user + r.system) * 1000);
  o.log(
    `  startup medians: node ${medians.node.toFixed(0)} ms, --version ${medians.version.toFixed(0)} ms, --help ${medians.help.toFixed(0)} ms, ls ${medians.ls.toFixed(0)} ms`,
  );
  return { runs: o.runs, medians, cpu };
}
