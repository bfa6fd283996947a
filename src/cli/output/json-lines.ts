// NDJSON on stdout for the commands that stream events (upload, download, export): lines are
// written in order, and those that come in one burst (a re-run's 10,000 `skipped` events, an
// export's unchanged items) in one write: one write per line was a system call each.
import type { IO } from '../io.js';
import { write } from './mode.js';

export interface JsonLines {
  /** Queues one value; it is written with the rest of its burst. */
  emit(value: object): void;
  /** Resolves once every queued line is written. */
  drained(): Promise<void>;
}

export function createJsonLines(io: IO, line: (value: object) => Promise<string> | string): JsonLines {
  const pending: object[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async () => {
    await Promise.resolve(); // let the rest of the burst arrive
    while (pending.length > 0) {
      let text = '';
      for (const value of pending.splice(0)) text += await line(value);
      if (text && !io.stdout.destroyed) await write(io.stdout, text);
    }
    flushing = undefined;
  };
  return {
    emit(value) {
      pending.push(value);
      flushing ??= flush();
    },
    async drained() {
      while (flushing) await flushing;
    },
  };
}
