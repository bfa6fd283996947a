// -q/--quiet: nothing on stderr but errors. The command's stderr becomes a sink; main prints
// errors on the real one, and a question (rm's confirmation) is still asked on it: answering a
// question nobody can see would hang.
import { Writable } from 'node:stream';
import type { IO } from '../io.js';

const loudOf = new WeakMap<Writable, Writable>();

/** Drops everything written to io.stderr from now on (stderrIsTTY stays: a person can still be asked). */
export function silenceStderr(io: IO): void {
  if (loudOf.has(io.stderr)) return;
  const loud = io.stderr;
  const sink = new Writable({ write: (_chunk, _enc, done) => done() });
  loudOf.set(sink, loud);
  io.stderr = sink;
}

/** The real stderr behind a silenced one (or the stream itself). */
export function loudStderr(stream: Writable): Writable {
  return loudOf.get(stream) ?? stream;
}
