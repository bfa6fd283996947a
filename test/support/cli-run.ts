// The whole CLI in-process: argv through the real program (src/cli/main.ts `run`) with an
// in-memory IO, a temp CONTENTLIB_HOME and the clock a test chooses. For command tests that
// need the flags, the target resolution and the error messages together, without a process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { resolvePaths } from '../../src/config/paths.js';
import type { CliContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { bufferIO } from './io.js';

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
      const env: NodeJS.ProcessEnv = { CONTENTLIB_HOME: home, CONTENTLIB_RETRY_BASE_MS: '0', ...opts.env };
      const io = bufferIO();
      // Standard input as a pipe that holds `stdin` (or nothing) and ends.
      (io.stdin as unknown as PassThrough).end(opts.stdin ?? '');
      const closers: Array<() => Promise<void> | void> = [];
      const ctx: CliContext = {
        io,
        env,
        paths: resolvePaths(env),
        now: o.now ?? (() => new Date()),
        sleep: async () => undefined,
        signal: new AbortController().signal,
        onClose: (fn) => void closers.push(fn),
        targetNames: new Map(),
        cwd: process.cwd(),
      };
      const code = await run(argv, ctx, closers);
      return { code, stdout: io.out(), stderr: io.err() };
    },
    dispose: () => rm(home, { recursive: true, force: true }),
  };
}
