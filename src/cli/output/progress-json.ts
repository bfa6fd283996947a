// --json: the engine's events as NDJSON on stdout, one object per line, then one summary object.
// Progress ticks are left out (they would drown the rest; the bars are for people). The `planned`
// and `summary` objects name the target, so a log says where things went.
import type { ItemOutcome, UploadEvent, UploadSummary } from '../../upload/events.js';
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress-shared.js';
import { flushed } from './progress-shared.js';

/**
 * A summary item in the names `ls --json` uses: `id` (not itemId) and `type`; what this run did
 * to it is `outcome`, since `status` is an item's draft/scheduled/… everywhere else.
 */
export function summaryItem(o: ItemOutcome) {
  const { itemId, status, ...rest } = o;
  return { id: itemId ?? null, outcome: status, ...rest };
}

export function summaryObject(summary: UploadSummary, target?: TargetInfo) {
  const n = (s: string) => summary.items.filter((o) => o.status === s && !(s === 'created' && o.appended)).length;
  return {
    type: 'summary' as const,
    ...(target ? { target } : {}),
    created: n('created'),
    appended: summary.items.filter((o) => o.status === 'created' && o.appended).length,
    skippedFiles: summary.skippedFiles ?? 0,
    inLibraryFiles: summary.items.reduce((n, o) => n + (o.filesInLibrary ?? 0), 0),
    skipped: n('skipped'),
    partial: n('partial'),
    failed: n('failed'),
    interrupted: summary.interrupted,
    ...(summary.missingScope !== undefined ? { missingScope: summary.missingScope } : {}),
    bytesSent: summary.bytesSent,
    ms: summary.ms,
    items: summary.items.map(summaryItem),
  };
}

/** `line`: how each object becomes text (JSON, or filtered by --json fields / --jq). */
export function createJsonProgress(
  io: IO,
  target?: TargetInfo,
  line: (value: object) => Promise<string> | string = (v) => `${JSON.stringify(v)}\n`,
): ProgressListener {
  // Lines are written in order, and those that come in one burst (a re-run's 10,000 `skipped`
  // events) in one write: one write per line was a system call each.
  const pending: object[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async () => {
    await Promise.resolve(); // let the rest of the burst arrive
    while (pending.length > 0) {
      let text = '';
      for (const value of pending.splice(0)) text += await line(value);
      if (text && !io.stdout.destroyed) await write(io.stdout, text);
    }
    flushing = undefined;
  };
  const emit = (value: object) => {
    pending.push(value);
    flushing ??= flush();
  };
  const drained = async () => {
    while (flushing) await flushing;
  };
  return {
    onEvent(event: UploadEvent) {
      if (event.type === 'progress') return;
      emit(event.type === 'planned' && target ? { ...event, target } : event);
    },
    async finish(summary) {
      emit(summaryObject(summary, target));
      await drained();
      await flushed(io.stdout);
    },
    stop: async () => {
      await drained().catch(() => {});
      await flushed(io.stdout);
    },
  };
}
