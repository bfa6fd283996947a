// --json: the engine's events as NDJSON on stdout, one object per line, then one summary object.
// Progress ticks are left out (they would drown the rest; the bars are for people). The `planned`
// and `summary` objects name the target, so a log says where things went.
import type { ItemOutcome, UploadEvent, UploadSummary } from '../../upload/events.js';
import type { IO } from '../io.js';
import type { TargetInfo } from '../target.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress.js';
import { flushed } from './progress.js';

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
    skipped: n('skipped'),
    partial: n('partial'),
    failed: n('failed'),
    interrupted: summary.interrupted,
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
  // Lines are written in order: each waits for the one before (a --jq filter is asynchronous).
  let queue: Promise<void> = Promise.resolve();
  const emit = (value: object) => {
    queue = queue.then(async () => {
      const text = await line(value);
      if (text && !io.stdout.destroyed) await write(io.stdout, text);
    });
  };
  return {
    onEvent(event: UploadEvent) {
      if (event.type === 'progress') return;
      emit(event.type === 'planned' && target ? { ...event, target } : event);
    },
    async finish(summary) {
      emit(summaryObject(summary, target));
      await queue;
      await flushed(io.stdout);
    },
    stop: async () => {
      await queue.catch(() => {});
      await flushed(io.stdout);
    },
  };
}
