// An IO over memory buffers, for in-process command, printer and progress tests.
import { PassThrough } from 'node:stream';
import type { IO } from '../../src/cli/io.js';

/** What a cursor-moving renderer needs of a terminal stream, as no-ops. */
const TERMINAL = {
  isTTY: true,
  columns: 100,
  cursorTo: () => true,
  moveCursor: () => true,
  clearLine: () => true,
  clearScreenDown: () => true,
};

/**
 * stdout and stderr collected in memory (read them with out() and err()); `over` sets flags.
 * With `terminalStderr`, stderr also acts as a terminal stream (and stderrIsTTY is true).
 */
export function bufferIO(
  over: Partial<IO> = {},
  o: { terminalStderr?: boolean } = {},
): IO & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), o.terminalStderr ? TERMINAL : {});
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    stdoutIsTTY: false,
    stderrIsTTY: o.terminalStderr ?? false,
    stdinIsTTY: false,
    color: false,
    columns: 100,
    ...over,
    out: () => Buffer.concat(out).toString('utf8'),
    err: () => Buffer.concat(err).toString('utf8'),
  };
}
