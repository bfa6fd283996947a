// The entry point, and the only place that exits: it runs the program, turns any thrown error
// into one message on stderr and an exit code, and closes what the command opened.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { CommanderError } from 'commander';
import { resolvePaths } from '../config/paths.js';
import type { CliContext } from './context.js';
import { splitJsonFields } from './argv.js';
import { describeError } from './error-messages.js';
import { EXIT } from './errors.js';
import { ALL_FIELDS } from './output/json.js';
import { ignoreBrokenPipe, systemIO } from './io.js';
import { buildProgram } from './program.js';
import { escapeText } from '../text/escape-name.js';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `help <command> [subcommand]`, as `<command> [subcommand] --help` (commander's own help
 * command stops at the first name: `help keys create` would show keys). `help nope`: commander
 * prints the whole help and never says that nope is not a command; parsing `nope` alone gets its
 * "unknown command 'nope' (Did you mean …?)" instead.
 */
function helpOfUnknown(program: ReturnType<typeof buildProgram>, argv: readonly string[]): string[] | undefined {
  const [first, name, ...rest] = argv;
  if (first !== 'help' || name === undefined || name.startsWith('-')) return undefined;
  const known = program.commands.some((c) => c.name() === name || c.aliases().includes(name));
  if (!known) return [name];
  return [name, ...rest.filter((a) => !a.startsWith('-')).slice(0, 1), '--help'];
}

/** Runs one command line; returns the exit code. Never calls process.exit (tests call this). */
export async function run(
  argv: readonly string[],
  ctx: CliContext,
  closers: Array<() => Promise<void> | void>,
): Promise<number> {
  const program = buildProgram(ctx, packageVersion());
  // --quiet swaps ctx.io.stderr for a sink; errors still go to the real one.
  const stderr = ctx.io.stderr;
  try {
    const commands = program.commands.flatMap((c) => [c.name(), ...c.aliases(), ...c.commands.map((s) => s.name())]);
    const args = splitJsonFields(argv, (p) => existsSync(p), [...commands, 'help'], ALL_FIELDS);
    await program.parseAsync(helpOfUnknown(program, args) ?? args, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed the message (or the help / version).
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const verbose = Boolean(program.opts().verbose);
    const { message, exitCode } = describeError(err, { verbose, targetNames: ctx.targetNames });
    // An error with no message was reported where it happened (upload's interrupted summary).
    // A remote's message may carry anything: no control character of it reaches the terminal raw.
    if (message)
      stderr.write(
        `${ctx.io.color ? '\u001b[31mError:\u001b[39m' : 'Error:'} ${escapeText(message, { lines: true })}\n`,
      );
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
    cwd: process.cwd(),
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
