// The three ways an upload shows its progress, chosen once per run: bars on a terminal, one
// plain line per file otherwise (CI logs), NDJSON events with --json. Each is a listener of the
// engine's events (src/upload/events.ts); none of them knows how uploads work.
import type { Writable } from 'node:stream';
import { formatBytes } from '../../rules/rules.js';
import type { UploadEvent, UploadSummary } from '../../upload/events.js';
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import type { JsonSelection } from './json.js';

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

export interface ProgressOptions {
  clock?: () => number;
  /** Named in the NDJSON `planned` and `summary` events. */
  target?: TargetInfo;
  /** --json FIELDS / --jq for the NDJSON lines. */
  json?: JsonSelection;
  /** Plain mode: how often each running transfer says how far it is. */
  heartbeatMs?: number;
}

export async function createProgress(kind: ProgressKind, io: IO, o: ProgressOptions = {}): Promise<ProgressListener> {
  if (kind === 'json') {
    const { formatJson } = await import('./json.js');
    const sel = o.json ?? {};
    return (await import('./progress-json.js')).createJsonProgress(io, o.target, (v) => formatJson(v, sel, false));
  }
  if (kind === 'tty') return (await import('./progress-tty.js')).createTtyProgress(io, o.clock);
  return (await import('./progress-plain.js')).createPlainProgress(io, o.clock, o.heartbeatMs);
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
