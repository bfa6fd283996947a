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
import { flushed, ignoreBrokenPipe, systemIO } from './io.js';
import { buildProgram } from './program.js';
import { escapeText } from '../text/escape-name.js';
import { STILL_STOPPING_MS, fileCallPending, hintIfStillStopping, waitForFileCalls } from './still-stopping.js';

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

/** Every error the user reads, in one style: `Error: <message>` (red on a terminal), then what to do. */
function writeError(ctx: CliContext, stderr: CliContext['io']['stderr'], message: string): void {
  stderr.write(`${ctx.io.color ? '\u001b[31mError:\u001b[39m' : 'Error:'} ${message}\n`);
}

/**
 * Commander's parse error ("error: unknown option '--x'\n(Did you mean --y?)") as our message:
 * without its own prefix, a capital first letter, and where to read the usage of the command.
 */
function commanderMessage(raw: string, program: ReturnType<typeof buildProgram>, argv: readonly string[]): string {
  const text = raw.replace(/^error: /, '').trim();
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  const command = argv.find((a) => names.has(a));
  const sub = command ? program.commands.find((c) => c.name() === command) : undefined;
  const subName = sub ? argv.find((a) => sub.commands.some((c) => c.name() === a)) : undefined;
  const usage = ['contentlib', command, subName].filter(Boolean).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}\nRun ${usage} --help for usage.`;
}

/** `upload` asked for JSON (--json, --json=…, --jq) on this command line. */
function uploadWithJson(argv: readonly string[]): boolean {
  const json = argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq' || a.startsWith('--jq='));
  return json && argv.includes('upload');
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
      if (err.exitCode === 0) return EXIT.ok; // the help or the version, printed
      // A parse error (printed here, in the one error style) or a help page shown for a
      // command that needs a subcommand (commander printed it).
      if (err.code !== 'commander.help' && err.code !== 'commander.helpDisplayed') {
        const message = commanderMessage(err.message, program, argv);
        writeError(ctx, stderr, message);
        // `upload --json` says what happened on stdout in every run, a flag it refused included.
        if (uploadWithJson(argv)) {
          const { uploadUsageJson } = await import('./output/progress-json.js');
          ctx.io.stdout.write(uploadUsageJson(message, EXIT.usage));
        }
      }
      return EXIT.usage;
    }
    const verbose = Boolean(program.opts().verbose);
    const { message, exitCode } = describeError(err, { verbose, targetNames: ctx.targetNames });
    // An error with no message was reported where it happened (upload's interrupted summary).
    // A remote's message may carry anything: no control character of it reaches the terminal raw.
    if (message) writeError(ctx, stderr, escapeText(message, { lines: true }));
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

/**
 * A second Ctrl-C: the process ends at once, by the signal's own default action, as a shell
 * expects of an interrupted program (a shell reports status 130). Not process.exit:
 * Node joins its thread pool as it exits, and a call stuck in the kernel (a read from a network
 * share that stopped answering) would keep the process for good, Ctrl-C or not (bench/notes.md,
 * issue 41). What was not written yet is lost: a second Ctrl-C means now.
 */
function endBy(signal: NodeJS.Signals): void {
  releaseSignals();
  process.kill(process.pid, signal);
}

/**
 * With no listener left, Node gives SIGINT and SIGTERM back their default action, which ends the
 * process: done before every process.exit, so that an exit held by a stuck call (above) is
 * ended by the next Ctrl-C, which no listener could handle then.
 */
function releaseSignals(): void {
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
}

export async function main(): Promise<void> {
  const controller = new AbortController();
  const closers: Array<() => Promise<void> | void> = [];
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt === undefined) {
      firstSignalAt = now;
      controller.abort(new Error(signal));
      // A person's Ctrl-C; a supervisor's SIGTERM has its own timeout and reads no terminal.
      if (signal === 'SIGINT') hintIfStillStopping((text) => process.stderr.write(text));
      return;
    }
    // A second Ctrl-C means "now". But conf's dependency when-exit answers the first signal by
    // sending the same signal again at once; that echo arrives within milliseconds, a person's
    // second keypress does not.
    if (now - firstSignalAt <= SIGNAL_ECHO_MS) return;
    // Ctrl-C, a person's: at once, by the signal itself. SIGTERM, a supervisor's: exit 130 as
    // docs/deploy.md says (a supervisor sends SIGKILL when even that does not end it).
    if (signal === 'SIGINT') endBy(signal);
    releaseSignals();
    process.exit(EXIT.interrupted);
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
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  if (firstSignalAt !== undefined) {
    // The echo of a first signal (see onSignal) is let through before the signals are released:
    // taken by the default action, it would end a cleanly stopped run by the signal, not with 130.
    await delay(Math.max(0, firstSignalAt + SIGNAL_ECHO_MS - Date.now()));
    // A file call left pending by the stop: process.exit would wait for it silently. Waited for
    // until just after the hint is due (its timer is set as the first signal is handled), so a
    // stuck call's hold always follows the hint.
    await waitForFileCalls(firstSignalAt + STILL_STOPPING_MS + 100, {
      now: Date.now,
      sleep: (ms) => delay(ms),
      pending: fileCallPending,
    });
  }
  releaseSignals();
  process.exit(code);
}
