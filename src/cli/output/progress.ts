// The three ways an upload shows its progress, chosen once per run: bars on a terminal, one
// plain line per file otherwise (CI logs), NDJSON events with --json. Each is a listener of the
// engine's events (src/upload/send/events.ts); none of them knows how uploads work.
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import type { JsonSelection } from './json.js';
import type { ProgressListener } from './progress-shared.js';

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
    const plain = sel.jq === undefined && sel.fields === undefined;
    return (await import('./progress-json.js')).createJsonProgress(
      io,
      o.target,
      (v) => formatJson(v, sel, false),
      plain,
    );
  }
  if (kind === 'tty') return (await import('./progress-tty.js')).createTtyProgress(io, o.clock);
  return (await import('./progress-plain.js')).createPlainProgress(io, o.clock, o.heartbeatMs);
}
