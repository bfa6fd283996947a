// The whole CLI in-process in a temp CONTENTLIB_HOME of its own, with the clock a test chooses:
// `cli()` of cli-in-process.ts bound to one home, for tests that run many commands as one user.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './cli-in-process.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessCli {
  home: string;
  /** Runs one command line; `env` adds to the home's environment. */
  run(argv: string[], o?: { env?: NodeJS.ProcessEnv; stdin?: string }): Promise<CliResult>;
  dispose(): Promise<void>;
}

export async function inProcessCli(o: { now?: () => Date } = {}): Promise<InProcessCli> {
  const home = await mkdtemp(join(tmpdir(), 'contentlib-cli-'));
  return {
    home,
    async run(argv, opts = {}) {
      const r = await cli(home, argv, {
        env: { CONTENTLIB_RETRY_BASE_MS: '0', ...opts.env },
        input: opts.stdin ?? '',
        ...(o.now ? { now: o.now } : {}),
      });
      return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    },
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}
