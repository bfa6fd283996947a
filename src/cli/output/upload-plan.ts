// `upload --dry-run`: the plan as a table on a terminal, tab-separated rows in a pipe, or one
// JSON object with --json. Nothing is sent.
import { formatBytes } from '../../rules/rules.js';
import type { UploadPlan } from '../../upload/plan.js';
import type { IO } from '../io.js';
import type { JsonSelection } from './json.js';
import { formatJson } from './json.js';
import type { OutputMode } from './mode.js';
import { write } from './mode.js';

function duration(seconds: number | undefined): string {
  return seconds === undefined ? '' : `${seconds.toFixed(1)} s`;
}

/** Whether the journal says a file was uploaded before (a real run would skip it). */
export type AlreadyDone = (file: { path: string; size: number; mtimeMs: number }) => boolean;
const nothingDone: AlreadyDone = () => false;

/** How many of an item's files a real run would send, and whether it would skip the item altogether. */
function itemState(item: UploadPlan['items'][number], done: AlreadyDone) {
  const uploaded = item.files.filter(done).length;
  return { uploaded, toSend: item.files.length - uploaded, wholly: uploaded === item.files.length };
}

/** One row per item: type, files, size, duration, title, source, and what a real run would do. */
export function planRows(plan: UploadPlan, done: AlreadyDone = nothingDone): string[][] {
  return plan.items.map((item) => {
    const state = itemState(item, done);
    return [
      item.contentItemId ? `${item.type} (append to ${item.contentItemId})` : item.type,
      String(item.files.length),
      formatBytes(item.files.reduce((n, f) => n + f.size, 0)),
      item.type === 'carousel' ? '' : duration(item.files[0]?.durationSeconds),
      item.metadata.title ?? '',
      item.source,
      state.wholly
        ? 'already uploaded'
        : state.uploaded > 0
          ? `${state.toSend} of ${item.files.length} to send`
          : 'to send',
    ];
  });
}

export function planJson(plan: UploadPlan, done: AlreadyDone = nothingDone) {
  return {
    type: 'dry-run' as const,
    items: plan.items.map((item) => ({
      type: item.type,
      source: item.source,
      ...(item.contentItemId ? { contentItemId: item.contentItemId } : {}),
      metadata: item.metadata,
      /** A real run would skip it: the journal has every file of it as uploaded. */
      alreadyUploaded: itemState(item, done).wholly,
      files: item.files.map((f) => ({
        path: f.path,
        name: f.name,
        size: f.size,
        contentType: f.contentType,
        ...(f.durationSeconds === undefined ? {} : { durationSeconds: f.durationSeconds }),
        alreadyUploaded: done(f),
      })),
      ...(item.thumbnail
        ? {
            thumbnail: {
              path: item.thumbnail.path,
              size: item.thumbnail.size,
              contentType: item.thumbnail.contentType,
            },
          }
        : {}),
    })),
    skipped: plan.skipped,
    leftOut: plan.leftOut.map((l) => ({ source: l.source, paths: l.paths, problems: l.problems })),
    warnings: plan.warnings,
  };
}

/**
 * "Dry run: 3 items, 5 files, 9.2 KB; 2 already uploaded (the journal), 1 to send; nothing was
 * sent." On stderr in every mode: a person reading a log, or a script's stderr, knows at once
 * that nothing happened.
 */
export function dryRunLine(plan: UploadPlan, done: AlreadyDone = nothingDone): string {
  const files = plan.items.reduce((n, i) => n + i.files.length, 0);
  const bytes = plan.items.reduce((n, i) => n + i.files.reduce((m, f) => m + f.size, 0), 0);
  const n = plan.items.length;
  const uploaded = plan.items.filter((i) => itemState(i, done).wholly).length;
  const partly = plan.items.filter((i) => !itemState(i, done).wholly && itemState(i, done).uploaded > 0).length;
  const journal =
    uploaded + partly > 0
      ? `; ${uploaded} already uploaded${partly ? `, ${partly} partly` : ''} (the journal), ${n - uploaded} to send`
      : '';
  const leftOut = plan.leftOut.reduce((k, l) => k + l.paths.length, 0);
  const left = leftOut ? `; ${leftOut} file${leftOut === 1 ? '' : 's'} left out` : '';
  return `Dry run: ${n} item${n === 1 ? '' : 's'}, ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}${journal}${left}; nothing was sent.`;
}

export async function printPlan(
  io: IO,
  mode: OutputMode,
  plan: UploadPlan,
  done: AlreadyDone = nothingDone,
  sel: JsonSelection = {},
): Promise<void> {
  if (mode === 'json') await write(io.stdout, await formatJson(planJson(plan, done), sel, false));
  else {
    const rows = planRows(plan, done);
    if (mode === 'plain') for (const r of rows) await write(io.stdout, `${r.join('\t')}\n`);
    else {
      const header = ['TYPE', 'FILES', 'SIZE', 'DURATION', 'TITLE', 'SOURCE', 'RUN'];
      const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
      const line = (cells: string[]) =>
        cells
          .map((cell, c) => (c < cells.length - 1 ? cell.padEnd(widths[c]!) : cell))
          .join('  ')
          .trimEnd();
      await write(io.stdout, `${line(header)}\n`);
      for (const r of rows) await write(io.stdout, `${line(r)}\n`);
    }
  }
  await write(io.stderr, `${dryRunLine(plan, done)}\n`);
}
