// The whole program in-process: run(argv) of src/cli/main.ts with an in-memory IO, a temp home
// and the environment given, as the binary would run it but without a process. What it opened
// (the embedded server, HTTP dispatchers) is closed before it returns, as main does.
import type { PassThrough } from 'node:stream';
import type { CliContext } from '../../src/cli/context.js';
import type { IO } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { resolvePaths } from '../../src/config/paths.js';
import { bufferIO } from './io.js';

export interface InProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  /** CONTENTLIB_* and the rest; CONTENTLIB_HOME is set to `home`. */
  env?: Record<string, string | undefined>;
  /** IO flags (stdinIsTTY…); pipes by default, as in CI. */
  io?: Partial<IO>;
  /** Written to stdin, then it ends. */
  stdin?: string;
  signal?: AbortSignal;
}

export async function runInProcess(
  home: string,
  argv: readonly string[],
  o: InProcessOptions = {},
): Promise<InProcessResult> {
  const io = bufferIO(o.io ?? {});
  if (o.stdin !== undefined) (io.stdin as PassThrough).end(o.stdin);
  else (io.stdin as PassThrough).end();
  const env: NodeJS.ProcessEnv = { ...o.env, CONTENTLIB_HOME: home };
  const closers: Array<() => Promise<void> | void> = [];
  const ctx: CliContext = {
    io,
    env,
    paths: resolvePaths(env),
    now: () => new Date(),
    sleep: async () => {},
    signal: o.signal ?? new AbortController().signal,
    onClose: (fn) => closers.push(fn),
    targetNames: new Map(),
  };
  const exitCode = await run(argv, ctx, closers);
  return { exitCode, stdout: io.out(), stderr: io.err() };
}
