// How a command prints: a table for people on a terminal, tab-separated rows in a pipe, or the
// API's own JSON objects with --json. Decided once per command from the IO and the flags.
import { Chalk } from 'chalk';
import type { ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';
import { isClosed } from '../io.js';
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

/**
 * Writes and waits for the stream to drain when it asks to, so memory stays flat for long
 * outputs. A stream whose reader went away (EPIPE) or that closed resolves it too: callers check
 * isClosed() to stop early, and nothing hangs on a reader that is gone.
 */
export function write(stream: Writable, text: string): Promise<void> {
  if (isClosed(stream)) return Promise.resolve();
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}
