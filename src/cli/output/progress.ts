// The three ways an upload shows its progress, chosen once per run: bars on a terminal, one
// plain line per file otherwise (CI logs), NDJSON events with --json. Each is a listener of the
// engine's events (src/upload/events.ts); none of them knows how uploads work.
import type { Writable } from 'node:stream';
import { formatBytes } from '../../rules/rules.js';
import type { UploadEvent, UploadSummary } from '../../upload/events.js';
import type { IO } from '../io.js';

export interface ProgressListener {
  onEvent(event: UploadEvent): void;
  /** Stops drawing, writes the summary and waits until every byte of it is flushed. */
  finish(summary: UploadSummary): Promise<void>;
  /** Stops drawing without a summary (the upload broke; the error is reported elsewhere). */
  stop(): Promise<void>;
}

export type ProgressKind = 'tty' | 'plain' | 'json';

export function progressKind(io: IO, json: boolean | undefined): ProgressKind {
  if (json) return 'json';
  return io.stderrIsTTY ? 'tty' : 'plain';
}

/**
 * A reader that goes away (`| head`) makes writes fail with EPIPE. The upload itself must go on
 * and finish cleanly (journal written, items complete), so those errors are swallowed here
 * rather than crashing the process with an unhandled 'error' event.
 */
export function ignoreBrokenPipe(stream: Writable): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

export async function createProgress(kind: ProgressKind, io: IO, clock?: () => number): Promise<ProgressListener> {
  ignoreBrokenPipe(io.stdout);
  ignoreBrokenPipe(io.stderr);
  if (kind === 'json') return (await import('./progress-json.js')).createJsonProgress(io);
  if (kind === 'tty') return (await import('./progress-tty.js')).createTtyProgress(io, clock);
  return (await import('./progress-plain.js')).createPlainProgress(io, clock);
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

/**
 * Writes and waits for 'drain' when the stream asks to. Unlike output/mode.ts's write, a stream
 * that broke (EPIPE) or closed resolves it too: the upload's outcome must not hang on a reader
 * that went away.
 */
export function writeOut(stream: Writable, text: string): Promise<void> {
  if (stream.destroyed || stream.errored) return Promise.resolve();
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

/** Resolves once everything written to the stream so far has been handed to the OS. */
export function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableEnded || stream.destroyed || stream.errored) return resolve();
    stream.write('', () => resolve());
  });
}
