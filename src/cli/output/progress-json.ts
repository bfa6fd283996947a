// --json: the engine's events as NDJSON on stdout, one object per line, then one summary object.
// Progress ticks are left out (they would drown the rest; the bars are for people). The `planned`
// and `summary` objects name the target, so a log says where things went.
import { createJsonLines } from './json-lines.js';
import type { ItemOutcome, UploadEvent, UploadSummary } from '../../upload/send/events.js';
import { readOutcomes } from '../../upload/send/outcomes.js';
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import type { ProgressListener } from './progress-shared.js';
import type { SummaryLine } from './upload-ndjson.js';
import { flushed } from './progress-shared.js';
import { write } from './mode.js';

/**
 * A summary item in the names `ls --json` uses: `id` (not itemId) and `type`; what this run did
 * to it is `outcome` (`appended` for images added to an existing carousel), since `status` is an
 * item's draft/scheduled/… everywhere else. Every field is there in every outcome (null when it
 * does not apply).
 */
export function summaryItem(o: ItemOutcome): SummaryLine['items'][number] {
  return {
    id: o.itemId ?? null,
    title: o.title ?? null,
    type: o.type,
    outcome: o.appended && o.status === 'created' ? 'appended' : o.status,
    source: o.source,
    index: o.index,
    filesCompleted: o.filesCompleted,
    filesSkipped: o.filesSkipped,
    filesInLibrary: o.filesInLibrary ?? 0,
    filesTotal: o.filesTotal,
    message: o.message ?? null,
    keyRejected: o.keyRejected === true,
    deletedItemId: o.deletedItemId ?? null,
    differs: o.differs ?? [],
    updated: o.updated ?? [],
  };
}

/** The last NDJSON line: every field, whatever the outcome (docs/cli.md; SummarySchema). */
export function summaryObject(summary: UploadSummary, target: TargetInfo | null = null, withItems = true): SummaryLine {
  // Counts only: no outcome is named here (the items follow in full).
  const f = readOutcomes(summary.items, 0);
  const n = f.tally;
  return {
    type: 'summary',
    target,
    exitCode: summary.exitCode ?? 0,
    refused: false,
    created: n.created,
    appended: n.appended,
    skipped: n.skipped,
    partial: n.partial,
    failed: n.failed,
    interrupted: summary.interrupted,
    problems: 0,
    skippedFiles: summary.skippedFiles ?? 0,
    inLibraryFiles: f.inLibraryFiles,
    differing: f.differing.count,
    updated: f.updated.count,
    leftOut: summary.leftOut ?? 0,
    missingScope: summary.missingScope ?? null,
    bytesSent: summary.bytesSent,
    bytesKept: summary.bytesKept ?? 0,
    ms: Math.round(summary.ms),
    items: withItems ? Array.from(summary.items, summaryItem) : [],
  };
}

/** Text written at once while the summary line is written item by item. */
const SUMMARY_BATCH_CHARS = 64 * 1024;

/**
 * The summary line as `JSON.stringify(summaryObject(summary, target))` writes it, item by item:
 * the line of a run of 10,000 items is ~3 MB, and as one object and one string it was the
 * largest thing a bulk upload held, at its very end (bench/notes.md, issue 41).
 */
async function writeSummaryLine(io: IO, summary: UploadSummary, target: TargetInfo | null): Promise<void> {
  const head = JSON.stringify(summaryObject(summary, target, false));
  // `items` is the object's last key: its empty list and the closing brace are written last.
  let text = head.slice(0, -2);
  let k = 0;
  for (const o of summary.items) {
    text += (k++ === 0 ? '' : ',') + JSON.stringify(summaryItem(o));
    if (text.length < SUMMARY_BATCH_CHARS) continue;
    if (!io.stdout.destroyed) await write(io.stdout, text);
    text = '';
  }
  if (!io.stdout.destroyed) await write(io.stdout, `${text}]}\n`);
}

/** The summary of a run that sent nothing: refused (its problems, a missing key…) or stopped before it began. */
export function emptySummary(o: {
  target: TargetInfo | null;
  exitCode: number;
  refused: boolean;
  problems?: number;
  skippedFiles?: number;
  ms?: number;
}): SummaryLine {
  return {
    ...summaryObject({ items: [], interrupted: o.exitCode === 130, bytesSent: 0, ms: o.ms ?? 0 }, o.target),
    exitCode: o.exitCode,
    refused: o.refused,
    problems: o.problems ?? 0,
    skippedFiles: o.skippedFiles ?? 0,
  };
}

/**
 * `line`: how each object becomes text (JSON, or filtered by --json fields / --jq); `plain`: it is
 * JSON.stringify's text and a newline, so the summary may be written item by item.
 */
export function createJsonProgress(
  io: IO,
  target?: TargetInfo,
  line: (value: object) => Promise<string> | string = (v) => `${JSON.stringify(v)}\n`,
  plain = false,
): ProgressListener {
  const { emit, drained } = createJsonLines(io, line);
  return {
    onEvent(event: UploadEvent) {
      if (event.type === 'progress') return;
      emit(event.type === 'planned' && target ? { ...event, target } : event);
    },
    async finish(summary) {
      if (plain) {
        await drained();
        await writeSummaryLine(io, summary, target ?? null);
      } else {
        emit(summaryObject(summary, target ?? null));
        await drained();
      }
      await flushed(io.stdout);
    },
    stop: async () => {
      await drained().catch(() => {});
      await flushed(io.stdout);
    },
  };
}

/** The NDJSON of an upload stopped by a usage error before it began: the error event and the summary. */
export function uploadUsageJson(message: string, exitCode: number): string {
  const summary = emptySummary({ target: null, exitCode, refused: true });
  return `${JSON.stringify({ type: 'error', exitCode, message })}\n${JSON.stringify(summary)}\n`;
}
