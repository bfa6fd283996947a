// The CLI in-process: `run()` of src/cli/main.ts (what bin/contentlib.js runs, minus the process)
// with the environment, home and output of test/support/cli.ts's binary runs, so a command test
// asserts the same stdout, stderr and exit code without starting Node for each command. The
// remote is a real server in this process on 127.0.0.1. Tests of what only a process shows
// (signals, a terminal, a crash, start-up) keep running the binary (test/e2e/).
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { createApiKey } from '../../src/server/admin.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { resolvePaths } from '../../src/config/paths.js';
import type { CliContext } from '../../src/cli/context.js';
import { type IO, colorFromEnv } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { type CliResult, cleanEnv } from './cli.js';

export { apiClient, fileMode, readConfig, seedCarousel, seedShortform, tempHome, upload } from './cli.js';
export type { CliResult } from './cli.js';

/** What execa gives for a child's output: its text without the final newline. */
function stripFinalNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * One command line, as `cli()` of test/support/cli.ts runs the binary: a clean environment with
 * CONTENTLIB_HOME=home (plus `env`), stdin holding `input`, no terminal anywhere; `cwd` is the
 * working directory the command is given (the binary's would be the child's).
 */
export async function cli(
  home: string,
  args: string[],
  opts: {
    env?: Record<string, string | undefined>;
    input?: string;
    cwd?: string;
    signal?: AbortSignal;
    now?: () => Date;
  } = {},
): Promise<CliResult> {
  const env = cleanEnv(home, opts.env);
  const stdin = new PassThrough();
  stdin.end(opts.input ?? '');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  // As systemIO over pipes: no terminal, 80 columns, colour only if the environment forces it.
  const io: IO = {
    stdin,
    stdout,
    stderr,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: colorFromEnv(env, false),
    columns: 80,
  };
  if (args.includes('--no-color')) io.color = false;
  const closers: Array<() => Promise<void> | void> = [];
  const ctx: CliContext = {
    io,
    env,
    paths: resolvePaths(env),
    cwd: opts.cwd ?? process.cwd(),
    now: opts.now ?? (() => new Date()),
    sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
    signal: opts.signal ?? new AbortController().signal,
    onClose: (fn) => closers.push(fn),
    targetNames: new Map(),
  };
  const exitCode = await run(args, ctx, closers);
  // Whatever was written is in the buffers once the streams have passed it on.
  await new Promise<void>((resolve) => setImmediate(resolve));
  return {
    exitCode,
    stdout: stripFinalNewline(Buffer.concat(out).toString('utf8')),
    stderr: stripFinalNewline(Buffer.concat(err).toString('utf8')),
  };
}

export interface InProcessRemote {
  url: string;
  server: RunningServer;
  stop(): Promise<void>;
}

/**
 * A server in this process on the home's default data dir (where `keys create` puts keys), as
 * `contentlib serve` would be; `publicUrl` as its --public-url.
 */
export async function startRemote(home: string, o: { publicUrl?: string } = {}): Promise<InProcessRemote> {
  // Posters and previews only when a test asks (o.previews): outputs are compared field by field.
  const server = await startServer({
    dataDir: join(home, 'data'),
    host: '127.0.0.1',
    port: 0,
    previews: { enabled: false },
    ...o,
  });
  return { url: server.url, server, stop: () => server.close() };
}

/** A new brand key on the remote's home, as `contentlib keys create --brand NAME` makes it. */
export async function createKey(home: string, brand: string): Promise<string> {
  return (await createApiKey(join(home, 'data'), brand)).key;
}
