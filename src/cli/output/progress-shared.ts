// What the three progress listeners (progress-tty, progress-plain, progress-json) share: the
// listener interface, speed and time formats, and waiting for a stream to flush.
import type { Writable } from 'node:stream';
import { formatBytes } from '../../rules/rules.js';
import type { UploadEvent, UploadSummary } from '../../upload/send/events.js';

export interface ProgressListener {
  onEvent(event: UploadEvent): void;
  /** Stops drawing, writes the summary and waits until every byte of it is flushed. */
  finish(summary: UploadSummary): Promise<void>;
  /** Stops drawing without a summary (the upload broke; the error is reported elsewhere). */
  stop(): Promise<void>;
}

/** "4.2 MB/s", from bytes over milliseconds; blank until there is something to divide. */
export function formatSpeed(bytes: number, ms: number): string {
  if (ms <= 0 || bytes <= 0) return '';
  return `${formatBytes(Math.round((bytes * 1000) / ms))}/s`;
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Resolves once everything written to the stream so far has been handed to the OS. */
export function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableEnded || stream.destroyed || stream.errored) return resolve();
    stream.write('', () => resolve());
  });
}

/**
 * Whether a `retrying` event is worth a line: the first retry of a file for a reason is, the
 * next ones for the same reason are not (while a service restarts, a file retries every few
 * seconds for a minute; the API client says once that it waits, and why). Any other event of
 * the file starts afresh.
 */
export function retryLines(): (event: UploadEvent) => boolean {
  const said = new Map<string, string>();
  return (event) => {
    if (event.type === 'planned' || event.type === 'notice' || !event.file) return true;
    const key = `${event.file.role}:${event.file.path}`;
    if (event.type !== 'retrying') {
      if (event.type !== 'progress') said.delete(key);
      return true;
    }
    if (said.get(key) === event.reason) return false;
    said.set(key, event.reason);
    return true;
  };
}
