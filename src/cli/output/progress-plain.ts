// Progress for logs (stderr is not a terminal): one line when a file starts, one when it ends,
// a line per retry, and the summary. Never a redraw, never an escape code.
import { performance } from 'node:perf_hooks';
import { formatBytes } from '../../rules/rules.js';
import type { FileRef, UploadEvent, UploadSummary } from '../../upload/events.js';
import { escapeName } from '../../text/escape-name.js';
import type { IO } from '../io.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress.js';
import { flushed, formatMs, formatSpeed } from './progress.js';
import { itemRows, summaryLines } from './progress-summary.js';

function label(file: FileRef): string {
  const name = escapeName(file.name);
  return file.role === 'thumbnail' ? `${name} (thumbnail)` : name;
}

/** The log line for an event, or undefined for events that make none (progress). */
export function plainLine(event: UploadEvent, startedAt: Map<string, number>, now: number): string | undefined {
  switch (event.type) {
    case 'planned':
      // Nothing to send: the summary says so, once.
      if (event.files === 0) return undefined;
      return `Uploading ${event.files} file${event.files === 1 ? '' : 's'} (${formatBytes(event.bytes)}) as ${event.items} item${event.items === 1 ? '' : 's'}${event.alreadyDone ? `; ${event.alreadyDone} already uploaded` : ''}`;
    case 'started':
      startedAt.set(`${event.file.role}:${event.file.path}`, now);
      return `start    ${escapeName(event.file.name)} (${event.file.role === 'thumbnail' ? 'thumbnail, ' : ''}${formatBytes(event.file.size)})`;
    case 'uploaded': {
      // A thumbnail ends here; a media file ends at complete, when its item exists.
      if (event.file.role !== 'thumbnail') return undefined;
      startedAt.delete(`thumbnail:${event.file.path}`);
      return `done     ${label(event.file)} in ${formatMs(event.ms)}`;
    }
    case 'completed': {
      // Only files in flight are kept: a 10,000-file run must not hold 10,000 start times.
      const t0 = startedAt.get(`file:${event.file.path}`) ?? now;
      startedAt.delete(`file:${event.file.path}`);
      const speed = formatSpeed(event.file.size, now - t0);
      const where = event.sortOrder === undefined ? '' : ` (image ${event.sortOrder + 1})`;
      return `done     ${label(event.file)} → ${event.itemId}${where}, ${formatBytes(event.file.size)} in ${formatMs(now - t0)}${speed ? `, ${speed}` : ''}`;
    }
    case 'failed':
      if (event.file) startedAt.delete(`${event.file.role}:${event.file.path}`);
      return `failed   ${event.file ? `${label(event.file)}: ` : ''}${event.message}`;
    case 'skipped':
      return `skipped  ${label(event.file)}: ${event.reason} (${event.itemId})`;
    case 'retrying':
      return `retry    ${label(event.file)}: try ${event.attempt + 1} in ${formatMs(event.delayMs)} (${event.reason})`;
    case 'progress':
      return undefined;
  }
}

export function createPlainProgress(io: IO, clock: () => number = () => performance.now()): ProgressListener {
  const startedAt = new Map<string, number>();
  let nothingNew = false;
  return {
    onEvent(event) {
      // When every file was already uploaded, a line per file would say it again and again.
      if (event.type === 'planned') nothingNew = event.files === 0;
      if (event.type === 'skipped' && nothingNew) return;
      const line = plainLine(event, startedAt, clock());
      if (line !== undefined && !io.stderr.destroyed) io.stderr.write(`${line}\n`);
    },
    async finish(summary: UploadSummary) {
      for (const row of itemRows(summary, false)) await write(io.stdout, `${row}\n`);
      for (const line of summaryLines(summary)) await write(io.stderr, `${line}\n`);
      await Promise.all([flushed(io.stdout), flushed(io.stderr)]);
    },
    stop: async () => {
      await flushed(io.stderr);
    },
  };
}
