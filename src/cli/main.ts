// The entry point, and the only place that exits: it runs the program, turns any thrown error
// into one message on stderr and an exit code, and closes what the command opened.
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { CommanderError } from 'commander';
import { resolvePaths } from '../config/paths.js';
import type { CliContext } from './context.js';
import { describeError } from './error-messages.js';
import { EXIT } from './errors.js';
import { ignoreBrokenPipe, systemIO } from './io.js';
import { buildProgram } from './program.js';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `help nope`: commander prints the whole help and never says that nope is not a command.
 * Parsing `nope` alone gets its "unknown command 'nope' (Did you mean …?)" instead.
 */
function helpOfUnknown(program: ReturnType<typeof buildProgram>, argv: readonly string[]): string[] | undefined {
  const [first, name] = argv;
  if (first !== 'help' || name === undefined || name.startsWith('-')) return undefined;
  const known = program.commands.some((c) => c.name() === name || c.aliases().includes(name));
  return known ? undefined : [name];
}

/** Runs one command line; returns the exit code. Never calls process.exit (tests call this). */
export async function run(
  argv: readonly string[],
  ctx: CliContext,
  closers: Array<() => Promise<void> | void>,
): Promise<number> {
  const program = buildProgram(ctx, packageVersion());
  try {
    await program.parseAsync(helpOfUnknown(program, argv) ?? [...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed the message (or the help / version).
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const verbose = Boolean(program.opts().verbose);
    const { message, exitCode } = describeError(err, { verbose, targetNames: ctx.targetNames });
    ctx.io.stderr.write(`${ctx.io.color ? '\u001b[31mError:\u001b[39m' : 'Error:'} ${message}\n`);
    return exitCode;
  } finally {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch {
        // Closing is best effort: the command's own outcome is what the user needs to see.
      }
    }
  }
}

/** Signals this close after the first are an echo (see onSignal), not a second Ctrl-C. */
const SIGNAL_ECHO_MS = 250;

export async function main(): Promise<void> {
  const controller = new AbortController();
  const closers: Array<() => Promise<void> | void> = [];
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === undefined) {
      firstSignalAt = now;
      controller.abort(new Error(signal));
      return;
    }
    // A second Ctrl-C means "now". But conf's dependency when-exit answers the first signal by
    // sending the same signal again at once; that echo arrives within milliseconds, a person's
    // second keypress does not.
    if (now - firstSignalAt > SIGNAL_ECHO_MS) process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const ctx: CliContext = {
    io: systemIO(),
    env: process.env,
    paths: resolvePaths(process.env),
    now: () => new Date(),
    sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
    signal: controller.signal,
    onClose: (fn) => closers.push(fn),
    targetNames: new Map(),
  };
  if (process.argv.includes('--no-color')) ctx.io.color = false;
  ignoreBrokenPipe(process.stdout);
  ignoreBrokenPipe(process.stderr);
  const code = await run(process.argv.slice(2), ctx, closers);
  process.exit(code);
}
