// Progress for logs (stderr is not a terminal): one line when a file starts, one when it ends,
// a line per retry, a heartbeat line every 10 s for each transfer still running (as rclone's
// --stats does, so a long upload in CI is not silent for minutes), and the summary. Never a
// redraw, never an escape code.
import { performance } from 'node:perf_hooks';
import { formatBytes } from '../../rules/rules.js';
import type { FileRef, UploadEvent, UploadSummary } from '../../upload/send/events.js';
import { escapeName, escapeText } from '../../text/escape-name.js';
import type { IO } from '../io.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress-shared.js';
import { flushed, formatMs, formatSpeed, retryLines } from './progress-shared.js';
import { itemRows, summaryLines } from './progress-summary.js';

function label(file: FileRef): string {
  const name = escapeName(file.name);
  return file.role === 'thumbnail' ? `${name} (thumbnail)` : name;
}

/** The log line for an event, or undefined for events that make none (progress). */
export function plainLine(
  event: UploadEvent,
  startedAt: Map<string, number>,
  now: number,
  resumed: Map<string, number> = new Map(),
): string | undefined {
  switch (event.type) {
    case 'planned':
      return uploadingLine(event);
    case 'started': {
      startedAt.set(`${event.file.role}:${event.file.path}`, now);
      const from = event.resumedFrom ?? 0;
      if (from > 0) resumed.set(`${event.file.role}:${event.file.path}`, from);
      const resuming = from > 0 ? `; resuming: ${formatBytes(from)} already stored by an earlier run` : '';
      return `start    ${escapeName(event.file.name)} (${event.file.role === 'thumbnail' ? 'thumbnail, ' : ''}${formatBytes(event.file.size)}${resuming})`;
    }
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
      // The speed of what this run sent: bytes an earlier run stored took no time now.
      const base = resumed.get(`file:${event.file.path}`) ?? 0;
      resumed.delete(`file:${event.file.path}`);
      const speed = formatSpeed(event.file.size - base, now - t0);
      const where = event.sortOrder === undefined ? '' : ` (image ${event.sortOrder + 1})`;
      return `done     ${label(event.file)} → ${event.itemId}${where}, ${formatBytes(event.file.size)} in ${formatMs(now - t0)}${speed ? `, ${speed}` : ''}`;
    }
    case 'failed':
      if (event.file) startedAt.delete(`${event.file.role}:${event.file.path}`);
      return `failed   ${event.file ? `${label(event.file)}: ` : ''}${escapeText(event.message)}`;
    case 'skipped':
      return `skipped  ${label(event.file)}: ${event.reason} (${event.itemId})`;
    case 'retrying':
      return `retry    ${label(event.file)}: try ${event.attempt + 1} in ${formatMs(event.delayMs)} (${escapeText(event.reason)})`;
    case 'notice':
      return `note     ${escapeText(event.message)}`;
    case 'progress':
      return undefined;
  }
}

/**
 * `Uploading 3 files (9.2 MB) as 2 items; 1 already uploaded, 5 already in the library`: said
 * when the first file starts, so that files the library turns out to hold (found as they are
 * hashed, before they would be sent) are not announced as being uploaded; a run that sends
 * nothing never says "Uploading" at all (the summary says "Nothing new to upload").
 */
export function uploadingLine(
  planned: Extract<UploadEvent, { type: 'planned' }>,
  inLibrary: { files: number; bytes: number } = { files: 0, bytes: 0 },
): string | undefined {
  const files = planned.files - inLibrary.files;
  if (files <= 0) return undefined;
  const done = [
    planned.alreadyDone ? `${planned.alreadyDone} already uploaded` : '',
    inLibrary.files ? `${inLibrary.files} already in the library` : '',
  ].filter(Boolean);
  return `Uploading ${files} file${files === 1 ? '' : 's'} (${formatBytes(planned.bytes - inLibrary.bytes)}) as ${planned.items} item${planned.items === 1 ? '' : 's'}${done.length ? `; ${done.join(', ')}` : ''}`;
}

/** A transfer in flight, as the heartbeat reports it. */
export interface Running {
  file: FileRef;
  t0: number;
  sent: number;
  /** Bytes stored by an earlier run when it started (a resumed upload): not part of the speed. */
  base?: number;
}

/** `sending  keynote.mp4 412 MB/1 GB 190 MB/s`: how far each running transfer is. */
export function heartbeatLines(running: Iterable<Running>, now: number): string[] {
  return [...running].map((r) => {
    const speed = formatSpeed(r.sent - (r.base ?? 0), now - r.t0);
    return `sending  ${label(r.file)} ${formatBytes(r.sent)}/${formatBytes(r.file.size)}${speed ? ` ${speed}` : ''}`;
  });
}

export function createPlainProgress(
  io: IO,
  clock: () => number = () => performance.now(),
  heartbeatMs = 10_000,
): ProgressListener {
  const startedAt = new Map<string, number>();
  const resumed = new Map<string, number>();
  const running = new Map<string, Running>();
  let nothingNew = false;
  // The plan's line waits for the first file that is really sent (uploadingLine).
  let planned: Extract<UploadEvent, { type: 'planned' }> | undefined;
  const inLibrary = { files: 0, bytes: 0 };
  const worthALine = retryLines();
  const say = (line: string) => {
    if (!io.stderr.destroyed) io.stderr.write(`${line}\n`);
  };
  // unref: the heartbeat never keeps the process alive on its own.
  const timer = setInterval(() => heartbeatLines(running.values(), clock()).forEach(say), heartbeatMs);
  timer.unref();
  const track = (event: UploadEvent) => {
    if (event.type === 'started') {
      const base = event.resumedFrom ?? 0;
      running.set(keyOf(event.file), { file: event.file, t0: clock(), sent: base, base });
    } else if (event.type === 'progress') {
      const r = running.get(keyOf(event.file));
      if (r) r.sent = event.sent;
    } else if (event.type === 'uploaded' || (event.type === 'failed' && event.file)) running.delete(keyOf(event.file!));
  };
  return {
    onEvent(event) {
      track(event);
      // When every file was already uploaded, a line per file would say it again and again.
      if (event.type === 'planned') {
        nothingNew = event.files === 0;
        planned = event;
        return;
      }
      if (event.type === 'skipped' && event.inLibrary) {
        inLibrary.files++;
        inLibrary.bytes += event.file.size;
      }
      if (event.type === 'started' && planned) {
        const line = uploadingLine(planned, inLibrary);
        planned = undefined;
        if (line) say(line);
      }
      if (event.type === 'skipped' && nothingNew) return;
      if (!worthALine(event)) return;
      const line = plainLine(event, startedAt, clock(), resumed);
      if (line !== undefined) say(line);
    },
    async finish(summary: UploadSummary) {
      clearInterval(timer);
      for (const row of itemRows(summary, false)) await write(io.stdout, `${row}\n`);
      for (const line of summaryLines(summary)) await write(io.stderr, `${line}\n`);
      await Promise.all([flushed(io.stdout), flushed(io.stderr)]);
    },
    stop: async () => {
      clearInterval(timer);
      await flushed(io.stderr);
    },
  };
}

function keyOf(file: FileRef): string {
  return `${file.role}:${file.path}`;
}
