// How a command prints: a table for people on a terminal, tab-separated rows in a pipe, or the
// API's own JSON objects with --json. Decided once per command from the IO and the flags.
import { Chalk } from 'chalk';
import type { ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';
import type { IO } from '../io.js';

export type OutputMode = 'table' | 'plain' | 'json';

export function outputMode(io: IO, json: boolean | undefined): OutputMode {
  if (json) return 'json';
  return io.stdoutIsTTY ? 'table' : 'plain';
}

/** A chalk whose colors follow io.color (NO_COLOR, FORCE_COLOR, --no-color already applied). */
export function paint(io: IO): ChalkInstance {
  return new Chalk({ level: io.color ? 1 : 0 });
}

/** Writes and waits for the stream to drain when it asks to: memory stays flat for long outputs. */
export function write(stream: Writable, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    stream.once('drain', onDrain);
    stream.once('error', done);
  });
}
