// I/O as a value (after GitHub CLI's iostreams): commands write data to `stdout`, human messages
// to `stderr`, and ask `io` whether they may draw tables, colors, bars or prompts. Tests build
// an IO over plain buffers; a pseudo-terminal test exercises the TTY side for real.
import type { Readable, Writable } from 'node:stream';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** stdout is a terminal: tables and relative times instead of tab-separated rows. */
  stdoutIsTTY: boolean;
  /** stderr is a terminal: progress bars and notices may be drawn there. */
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** ANSI colors on stdout/stderr (NO_COLOR, FORCE_COLOR and --no-color already applied). */
  color: boolean;
  /** Terminal width in columns, for tables; 80 when unknown. */
  columns: number;
}

/** Prompting needs a person at both ends: stdin to answer, stdout/stderr to see the question. */
export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stderrIsTTY;
}

/** Decides color from the environment the way most CLIs do: NO_COLOR wins, FORCE_COLOR forces. */
export function colorFromEnv(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/**
 * A reader that goes away (`contentlib ls | head`) makes writes fail with EPIPE. That is not an
 * error of ours: the stream is marked closed, commands that only print stop early (isClosed), and
 * an upload goes on to finish its work and its journal.
 */
export function ignoreBrokenPipe(stream: Writable): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/**
 * Resolves once everything written to `stream` so far has been handed to the system. A pipe's
 * writes can still be queued in the process when the last one returned: process.exit() drops
 * them, and `ls --all --json | jq` then read a cut-off array now and then (bench/jq.ts found
 * it). A write's callback runs after those before it; a reader that went away ends it too.
 */
export function flushed(stream: Writable): Promise<void> {
  if (isClosed(stream)) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** The stream's reader is gone (or it was closed): nothing more written to it will be read. */
export function isClosed(stream: Writable): boolean {
  return stream.destroyed || Boolean(stream.errored) || stream.writableEnded;
}

export function systemIO(env: NodeJS.ProcessEnv = process.env): IO {
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    color: colorFromEnv(env, stdoutIsTTY || stderrIsTTY),
    columns: process.stdout.columns || process.stderr.columns || 80,
  };
}
