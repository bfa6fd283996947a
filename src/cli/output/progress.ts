// The three ways an upload shows its progress, chosen once per run: bars on a terminal, one
// plain line per file otherwise (CI logs), NDJSON events with --json. Each is a listener of the
// engine's events (src/upload/events.ts); none of them knows how uploads work.
import type { IO } from '../io.js';
import type { ProgressListener } from './progress-shared.js';

export type ProgressKind = 'tty' | 'plain' | 'json';

export function progressKind(io: IO, json: boolean | undefined): ProgressKind {
  if (json) return 'json';
  return io.stderrIsTTY ? 'tty' : 'plain';
}

export async function createProgress(kind: ProgressKind, io: IO, clock?: () => number): Promise<ProgressListener> {
  if (kind === 'json') return (await import('./progress-json.js')).createJsonProgress(io);
  if (kind === 'tty') return (await import('./progress-tty.js')).createTtyProgress(io, clock);
  return (await import('./progress-plain.js')).createPlainProgress(io, clock);
}
