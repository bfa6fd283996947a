// Questions on a terminal: a yes/no confirmation and a line of text, optionally hidden (API
// keys). Only called when canPrompt(io) says a person is there; scripts use flags instead.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { IO } from './io.js';

/** Reads one line from io.stdin, echoing to stderr unless hidden. Ctrl-C/Ctrl-D → undefined. */
export function askLine(io: IO, question: string, opts: { hidden?: boolean } = {}): Promise<string | undefined> {
  io.stderr.write(question);
  // With hidden input, readline writes to a sink that drops the echo of what is typed.
  const output = opts.hidden ? new Writable({ write: (_chunk, _enc, done) => done() }) : io.stderr;
  const rl = createInterface({ input: io.stdin, output, terminal: Boolean(io.stdinIsTTY) });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      if (opts.hidden) io.stderr.write('\n');
      rl.close();
      resolve(line);
    });
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => {
      if (!answered) {
        io.stderr.write('\n');
        resolve(undefined);
      }
    });
  });
}

/** "y" or "yes" (any case) is yes; anything else, including Enter, Ctrl-C and Ctrl-D, is no. */
export async function confirm(io: IO, question: string): Promise<boolean> {
  const answer = await askLine(io, `${question} [y/N] `);
  return /^\s*y(es)?\s*$/i.test(answer ?? '');
}
