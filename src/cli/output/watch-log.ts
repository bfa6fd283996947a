// What `upload --watch` prints: a running log on stderr, one line per file as it lands
// ("12:04:31 ✓ clip-07.mp4 → shortform 3f2a1b2c"), or with --json one NDJSON object per file
// (the engine's events, as `upload --json` prints them) plus a heartbeat, and a summary when it
// stops. Nothing is kept per file: a day of uploads costs the counters below.
import type { UploadEvent } from '../../upload/send/events.js';
import { escapeName, escapeText } from '../../text/escape-name.js';
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import { createJsonLines } from './json-lines.js';
import { flushed, formatMs, retryLines } from './progress-shared.js';
import { skippedEvent } from './upload-skips.js';
import { type SkippedFile, skippedLines } from '../../upload/plan/skips.js';

/** What a watch did so far. */
export interface WatchTotals {
  /** Files that became part of an item. */
  files: number;
  /** Items made, and carousels that files were appended to. */
  created: number;
  appended: number;
  /** Files found in the library already (sent by someone else, or before the journal knew). */
  inLibrary: number;
  /** Files that failed (they are tried again later), and files left out as invalid. */
  failed: number;
  leftOut: number;
  /** Files in the folders that are not uploaded at all (not photos or videos, formats the service does not take). */
  skipped: number;
  bytesSent: number;
}

export function emptyTotals(): WatchTotals {
  return { files: 0, created: 0, appended: 0, inLibrary: 0, failed: 0, leftOut: 0, skipped: 0, bytesSent: 0 };
}

/** A file (or item) left out of a batch because it breaks a rule, or a batch refused whole. */
export interface WatchProblem {
  file: string;
  message: string;
}

export interface WatchLog {
  started(o: { roots: string[]; settleMs: number; poll: boolean; target: TargetInfo | null }): void;
  onEvent(event: UploadEvent): void;
  problem(p: WatchProblem): void;
  /** A file in a watched folder that is not uploaded (said once per version of the file). */
  skipped(s: SkippedFile): void;
  /** Every heartbeat interval, with --json: that it is alive, and what waits. */
  heartbeat(o: { waiting: number; queued: number }): void;
  /** The summary when the watch stops (Ctrl-C, or a refused key). */
  finish(o: {
    totals: WatchTotals;
    ms: number;
    waiting: number;
    exitCode: number;
    target: TargetInfo | null;
  }): Promise<void>;
}

/** "12:04:31", local time, as a log read beside the clock on the wall. */
export function clockTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function createWatchLog(io: IO, o: { json: boolean; now: () => Date }): WatchLog {
  const log = o.json ? jsonLog(io, o.now) : textLog(io, o.now);
  // The engine says a notice once per run, and a watch is a run per batch: once per watch here.
  const said = new Set<string>();
  return {
    ...log,
    onEvent(event) {
      if (event.type === 'notice') {
        if (said.has(event.message)) return;
        if (said.size < 100) said.add(event.message);
      }
      log.onEvent(event);
    },
  };
}

function textLog(io: IO, now: () => Date): WatchLog {
  const worth = retryLines();
  const say = (text: string) => io.stderr.write(`${clockTime(now())} ${text}\n`);
  return {
    started({ roots, settleMs, poll }) {
      const named = roots.join(', ');
      io.stderr.write(
        `Watching ${named} (${poll ? 'polling' : 'file system events'}; a file is sent once unchanged for ${formatMs(settleMs)}). Ctrl-C to stop.\n`,
      );
    },
    onEvent(event) {
      if (!worth(event)) return;
      switch (event.type) {
        case 'completed':
          if (event.file.role === 'file')
            say(
              `✓ ${escapeName(event.file.name)} → ${event.itemType} ${event.itemId.slice(0, 8)}${event.sortOrder !== undefined ? ` #${event.sortOrder + 1}` : ''}`,
            );
          return;
        case 'skipped':
          if (event.inLibrary)
            say(`= ${escapeName(event.file.name)} is in the library already (${event.itemId.slice(0, 8)})`);
          return;
        case 'failed':
          say(
            `✗ ${event.file ? `${escapeName(event.file.name)}: ` : ''}${escapeText(event.message)} (tried again later)`,
          );
          return;
        case 'retrying':
          say(
            `↻ ${escapeName(event.file.name)}: ${escapeText(event.reason)}; trying again in ${formatMs(event.delayMs)}`,
          );
          return;
        case 'notice':
          say(`note: ${escapeText(event.message)}`);
          return;
        default:
          return;
      }
    },
    problem(p) {
      say(`! ${p.file}: ${escapeText(p.message)} (left out until it changes)`);
    },
    skipped(s) {
      say(`- ${skippedLines([s])[0] ?? s.path} (not uploaded)`);
    },
    heartbeat() {},
    async finish({ totals, ms, waiting }) {
      const t = totals;
      const parts = [
        `${t.files} file${t.files === 1 ? '' : 's'} uploaded`,
        `${t.created} item${t.created === 1 ? '' : 's'} created`,
        ...(t.appended ? [`${t.appended} carousel${t.appended === 1 ? '' : 's'} appended to`] : []),
        ...(t.inLibrary ? [`${t.inLibrary} in the library already`] : []),
        ...(t.failed ? [`${t.failed} failed`] : []),
        ...(t.leftOut ? [`${t.leftOut} left out`] : []),
        ...(t.skipped ? [`${t.skipped} skipped (not uploaded)`] : []),
      ];
      io.stderr.write(`Stopped watching after ${formatMs(ms)}: ${parts.join(', ')}.\n`);
      if (waiting > 0)
        io.stderr.write(
          `${waiting} file${waiting === 1 ? ' was' : 's were'} still being written or waiting: the next upload --watch of the same folders sends ${waiting === 1 ? 'it' : 'them'}.\n`,
        );
      await flushed(io.stderr);
    },
  };
}

function jsonLog(io: IO, now: () => Date): WatchLog {
  const { emit, drained } = createJsonLines(io, (v) => `${JSON.stringify(v)}\n`);
  const at = () => now().toISOString();
  return {
    started({ roots, settleMs, poll, target }) {
      emit({ type: 'watching', roots, settleMs, poll, target, at: at() });
    },
    onEvent(event) {
      // One line per file: what became of it. Starts, progress and PUTs are the bars' business.
      if (event.type === 'completed' || event.type === 'failed' || event.type === 'retrying' || event.type === 'notice')
        emit(event);
      else if (event.type === 'skipped' && event.inLibrary) emit(event);
    },
    problem(p) {
      emit({ type: 'left-out', file: p.file, message: p.message });
    },
    skipped(s) {
      emit({ ...skippedEvent(s), at: at() });
    },
    heartbeat({ waiting, queued }) {
      emit({ type: 'heartbeat', at: at(), waiting, queued });
    },
    async finish({ totals, ms, waiting, exitCode, target }) {
      emit({ type: 'summary', watch: true, target, exitCode, ms: Math.round(ms), waiting, ...totals });
      await drained();
      await flushed(io.stdout);
    },
  };
}
