// How `download` and `export` show their progress, chosen once per run as upload's is
// (progress.ts): bars on a terminal, plain lines in a log (with a heartbeat for each transfer
// still running), NDJSON events with --json. Each is a listener of the events of
// src/download/events.ts; none of them knows how files are fetched.
import { createJsonLines } from './json-lines.js';
import { performance } from 'node:perf_hooks';
import type { SingleBar } from 'cli-progress';
import type { DownloadEvent, FileRef } from '../../download/events.js';
import { formatBytes } from '../../rules/rules.js';
import { escapeName } from '../../text/escape-name.js';
import type { IO } from '../io.js';
import { write } from './mode.js';
import type { ProgressKind } from './progress.js';
import { flushed, formatMs, formatSpeed } from './progress-shared.js';
import { truncate } from './table.js';
import { formatEta, keyOf, ttyBars } from './tty-bars.js';

export interface TransferListener {
  onEvent(event: DownloadEvent): void;
  /** Stops drawing; `lines` go to stderr for people, `summary` is the last NDJSON line. */
  finish(summary: object, lines: readonly string[]): Promise<void>;
  /** Stops drawing without a summary (the command broke; its error is reported elsewhere). */
  stop(): Promise<void>;
}

export interface TransferProgressOptions {
  clock?: () => number;
  /** NDJSON: how each object becomes a line (--jq applies). */
  line?: (value: object) => Promise<string> | string;
  heartbeatMs?: number;
}

export function createTransferProgress(kind: ProgressKind, io: IO, o: TransferProgressOptions = {}): TransferListener {
  if (kind === 'json') return jsonListener(io, o.line ?? ((v) => `${JSON.stringify(v)}\n`));
  if (kind === 'tty') return ttyListener(io, o.clock ?? (() => performance.now()));
  return plainListener(io, o.clock ?? (() => performance.now()), o.heartbeatMs ?? 10_000);
}

const NAME_WIDTH = 28;

/**
 * How often a log (no terminal) says how far each running transfer is: every 10 s, as upload's
 * does; CONTENTLIB_HEARTBEAT_MS shortens it for the end-to-end tests.
 */
export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const raw = env.CONTENTLIB_HEARTBEAT_MS;
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : 10_000;
}

function label(file: FileRef): string {
  const name = escapeName(file.shown);
  return file.role === 'thumbnail' ? `${name} (thumbnail)` : name;
}

/** The log line of an event, shared by the plain and terminal listeners; undefined for none. */
export function eventLine(event: DownloadEvent): string | undefined {
  switch (event.type) {
    case 'downloaded': {
      const speed = formatSpeed(event.bytes - event.resumedFrom, event.ms);
      const resumed = event.resumedFrom > 0 ? `, resumed at ${formatBytes(event.resumedFrom)}` : '';
      return `done     ${label(event.file)}, ${formatBytes(event.bytes)} in ${formatMs(event.ms)}${speed ? `, ${speed}` : ''}${resumed}`;
    }
    case 'skipped':
      return `skipped  ${label(event.file)}: ${event.reason}`;
    case 'retrying':
      return `retry    ${label(event.file)}: try ${event.attempt + 1} in ${formatMs(event.delayMs)}${event.from > 0 ? ` from ${formatBytes(event.from)}` : ''} (${event.reason})`;
    case 'failed':
      return `failed   ${event.file ? `${label(event.file)}: ` : `${event.itemId}: `}${event.message}`;
    case 'exported':
      if (event.change === 'unchanged') return undefined;
      return `${event.change === 'new' ? 'new     ' : 'changed '} ${escapeName(event.folder)} (${event.itemType}: ${escapeName(event.title)})`;
    case 'removed': {
      const left = event.left.length > 0 ? `; left ${event.left.map(escapeName).join(', ')}` : '';
      return `removed  ${escapeName(event.folder)} (${event.reason}; ${event.files} file${event.files === 1 ? '' : 's'})${left}`;
    }
    case 'started':
    case 'progress':
      return undefined;
  }
}

function barName(file: FileRef): string {
  const name = escapeName(file.shown.slice(file.shown.lastIndexOf('/') + 1));
  return file.role === 'thumbnail' ? `${name} (thumb)` : name;
}

function plainListener(io: IO, clock: () => number, heartbeatMs: number): TransferListener {
  const running = new Map<string, { file: FileRef; t0: number; have: number }>();
  const say = (line: string) => {
    if (!io.stderr.destroyed) io.stderr.write(`${line}\n`);
  };
  // unref: the heartbeat never keeps the process alive on its own.
  const timer = setInterval(() => {
    for (const r of running.values()) {
      const speed = formatSpeed(r.have, clock() - r.t0);
      say(
        `receiving ${label(r.file)} ${formatBytes(r.have)}${r.file.size !== undefined ? `/${formatBytes(r.file.size)}` : ''}${speed ? ` ${speed}` : ''}`,
      );
    }
  }, heartbeatMs);
  timer.unref();
  return {
    onEvent(event) {
      if (event.type === 'started') {
        running.set(keyOf(event.file), { file: event.file, t0: clock(), have: event.from });
        const size = event.file.size !== undefined ? ` (${formatBytes(event.file.size)})` : '';
        say(`start    ${label(event.file)}${size}${event.from > 0 ? `, resuming at ${formatBytes(event.from)}` : ''}`);
        return;
      }
      if (event.type === 'progress') {
        const r = running.get(keyOf(event.file));
        if (r) r.have = event.have;
        return;
      }
      if (event.type === 'downloaded' || (event.type === 'failed' && event.file)) running.delete(keyOf(event.file!));
      const line = eventLine(event);
      if (line !== undefined) say(line);
    },
    async finish(_summary, lines) {
      clearInterval(timer);
      for (const line of lines) await write(io.stderr, `${line}\n`);
      await flushed(io.stderr);
    },
    async stop() {
      clearInterval(timer);
      await flushed(io.stderr);
    },
  };
}

function ttyListener(io: IO, clock: () => number): TransferListener {
  const { multibar, live, log, end, stop: stopBars } = ttyBars<{ bar: SingleBar; t0: number; from: number }>(io);
  return {
    onEvent(event) {
      if (event.type === 'started') {
        end(event.file);
        const size = event.file.size ?? 0;
        live.set(keyOf(event.file), {
          t0: clock(),
          from: event.from,
          bar: multibar.create(size, event.from, {
            // The file's own name: an export's folders are item ids, which say nothing in a bar.
            name: truncate(barName(event.file), NAME_WIDTH).padEnd(NAME_WIDTH),
            done: formatBytes(event.from),
            size: event.file.size !== undefined ? formatBytes(size) : '?',
            speed: '',
            etaText: '--',
          }),
        });
        return;
      }
      if (event.type === 'progress') {
        const l = live.get(keyOf(event.file));
        if (!l) return;
        const ms = clock() - l.t0;
        const got = event.have - l.from;
        l.bar.update(event.have, {
          done: formatBytes(event.have),
          speed: formatSpeed(got, ms),
          etaText: event.file.size !== undefined ? formatEta(event.file.size - event.have, got, ms) : '--',
        });
        return;
      }
      if (event.type === 'downloaded' || (event.type === 'failed' && event.file)) end(event.file!);
      const line = eventLine(event);
      if (line === undefined) return;
      const mark =
        event.type === 'failed' ? '✗' : event.type === 'retrying' ? '↻' : event.type === 'removed' ? '−' : '✓';
      log(`${mark} ${line.replace(/^\S+\s+/, '')}`);
    },
    async finish(_summary, lines) {
      stopBars();
      for (const line of lines) await write(io.stderr, `${line}\n`);
      await flushed(io.stderr);
    },
    async stop() {
      stopBars();
      await flushed(io.stderr);
    },
  };
}

function jsonListener(io: IO, line: (value: object) => Promise<string> | string): TransferListener {
  const { emit, drained } = createJsonLines(io, line);
  return {
    onEvent(event) {
      if (event.type !== 'progress') emit(event);
    },
    async finish(summary) {
      emit({ type: 'summary', ...summary });
      await drained();
      await flushed(io.stdout);
    },
    async stop() {
      await drained().catch(() => {});
      await flushed(io.stdout);
    },
  };
}
