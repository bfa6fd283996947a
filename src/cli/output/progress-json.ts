// --json: the engine's events as NDJSON on stdout, one object per line, then one summary object.
// Progress ticks are left out (they would drown the rest; the bars are for people). Stderr stays
// quiet: everything a program needs is on stdout.
import type { UploadEvent, UploadSummary } from '../../upload/events.js';
import type { IO } from '../io.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress-shared.js';
import { flushed } from './progress-shared.js';

export function summaryObject(summary: UploadSummary) {
  const n = (s: string) => summary.items.filter((o) => o.status === s).length;
  return {
    type: 'summary' as const,
    created: n('created'),
    skipped: n('skipped'),
    partial: n('partial'),
    failed: n('failed'),
    interrupted: summary.interrupted,
    bytesSent: summary.bytesSent,
    ms: summary.ms,
    items: summary.items,
  };
}

export function createJsonProgress(io: IO): ProgressListener {
  // Lines queue in order; the stream's own buffer holds them until the pipe takes them, and
  // finish() waits for all of it.
  return {
    onEvent(event: UploadEvent) {
      if (event.type === 'progress') return;
      if (!io.stdout.destroyed) io.stdout.write(`${JSON.stringify(event)}\n`);
    },
    async finish(summary) {
      await write(io.stdout, `${JSON.stringify(summaryObject(summary))}\n`);
      await flushed(io.stdout);
    },
    stop: () => flushed(io.stdout),
  };
}
