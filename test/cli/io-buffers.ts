// An IO over memory buffers, for in-process command and printer tests.
import { PassThrough } from 'node:stream';
import type { IO } from '../../src/cli/io.js';

export function bufferIO(over: Partial<IO> = {}): IO & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  return {
    stdin: new PassThrough(),
    stdout,
    stderr,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: false,
    columns: 100,
    ...over,
    out: () => Buffer.concat(out).toString('utf8'),
    err: () => Buffer.concat(err).toString('utf8'),
  };
}
