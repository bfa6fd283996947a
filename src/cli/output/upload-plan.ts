// `upload --dry-run`: the plan as a table on a terminal, tab-separated rows in a pipe, or one
// JSON object with --json, and for each item whether the library has it already (and as which
// item) when the library could be asked. Nothing is sent.
import { formatBytes } from '../../rules/rules.js';
import type { LibraryView, Lookup } from '../../upload/send/library-lookup.js';
import type { UploadPlan } from '../../upload/plan/plan.js';
import type { IO } from '../io.js';
import type { JsonSelection } from './json.js';
import { formatJson } from './json.js';
import type { OutputMode } from './mode.js';
import { write } from './mode.js';

function duration(seconds: number | undefined): string {
  return seconds === undefined ? '' : `${seconds.toFixed(1)} s`;
}

/** What the library has of an item, in words: "already there: <id>", "append 1 to <id>", "new". */
export function libraryCell(view: LibraryView | undefined): string {
  if (!view) return '';
  switch (view.kind) {
    case 'new':
      return 'new';
    case 'there':
      return `already there: ${view.itemId}`;
    case 'uploaded':
      return `uploaded before: ${view.itemId}`;
    case 'append': {
      const n = view.present.filter((p) => !p).length;
      return `append ${n} to ${view.itemId}`;
    }
  }
}

/** One row per item: type, files, size, duration, title, source (and the library's answer, when asked). */
export function planRows(plan: UploadPlan, lookup?: Lookup): string[][] {
  return plan.items.map((item, i) => [
    item.contentItemId ? `${item.type} (append to ${item.contentItemId})` : item.type,
    String(item.files.length),
    formatBytes(item.files.reduce((n, f) => n + f.size, 0)),
    item.type === 'carousel' ? '' : duration(item.files[0]?.durationSeconds),
    item.metadata.title ?? '',
    ...(lookup ? [libraryCell(lookup.views[i])] : []),
    item.source,
  ]);
}

export function planJson(plan: UploadPlan, lookup?: Lookup) {
  return {
    type: 'dry-run' as const,
    items: plan.items.map((item, i) => itemJson(item, i, lookup)),
    ...planTail(plan),
  };
}

function itemJson(item: UploadPlan['items'][number], i: number, lookup?: Lookup) {
  return {
    type: item.type,
    source: item.source,
    ...(item.contentItemId ? { contentItemId: item.contentItemId } : {}),
    metadata: item.metadata,
    ...(lookup?.views[i] ? { library: lookup.views[i] } : {}),
    files: item.files.map((f, n) => ({
      path: f.path,
      name: f.name,
      size: f.size,
      contentType: f.contentType,
      ...(f.durationSeconds === undefined ? {} : { durationSeconds: f.durationSeconds }),
      ...(lookup?.sha256[i]?.[n] ? { sha256: lookup.sha256[i]![n] } : {}),
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
  };
}

/** What follows the items in the dry run's JSON. */
function planTail(plan: UploadPlan) {
  return {
    skipped: plan.skipped,
    leftOut: plan.leftOut.map((l) => ({ source: l.source, paths: l.paths, problems: l.problems })),
    warnings: plan.warnings,
  };
}

/** Text written at once while the JSON is streamed. */
const JSON_BATCH_CHARS = 64 * 1024;

/**
 * The text of `JSON.stringify(planJson(plan, lookup))` and a newline, written item by item: a plan
 * of 100,000 files never exists as one object nor as one 20 MB string (bench/notes.md, issue 41).
 */
async function writePlanJson(io: IO, plan: UploadPlan, lookup?: Lookup): Promise<void> {
  const head = JSON.stringify({ type: 'dry-run', items: [] });
  let text = head.slice(0, -2);
  for (const [i, item] of plan.items.entries()) {
    text += (i === 0 ? '' : ',') + JSON.stringify(itemJson(item, i, lookup));
    if (text.length < JSON_BATCH_CHARS) continue;
    await write(io.stdout, text);
    text = '';
  }
  await write(io.stdout, `${text}],${JSON.stringify(planTail(plan)).slice(1)}\n`);
}

/**
 * "Dry run: 3 items, 5 files, 9.2 KB; 2 already in the library; nothing was sent." On stderr in
 * every mode: a person reading a log, or a script's stderr, knows at once that nothing happened.
 */
export function dryRunLine(plan: UploadPlan, lookup?: Lookup): string {
  const files = plan.items.reduce((n, i) => n + i.files.length, 0);
  const bytes = plan.items.reduce((n, i) => n + i.files.reduce((m, f) => m + f.size, 0), 0);
  const there = (lookup?.views ?? []).filter((v) => v?.kind === 'there' || v?.kind === 'uploaded').length;
  const leftOut = plan.leftOut.reduce((k, l) => k + l.paths.length, 0);
  const n = plan.items.length;
  return `Dry run: ${n} item${n === 1 ? '' : 's'}, ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}${there ? `; ${there} already in the library, ${n - there} to send` : ''}${leftOut ? `; ${leftOut} file${leftOut === 1 ? '' : 's'} left out` : ''}; nothing was sent.`;
}

export async function printPlan(
  io: IO,
  mode: OutputMode,
  plan: UploadPlan,
  sel: JsonSelection = {},
  lookup?: Lookup,
): Promise<void> {
  if (mode === 'json' && sel.jq === undefined && sel.fields === undefined) await writePlanJson(io, plan, lookup);
  else if (mode === 'json') await write(io.stdout, await formatJson(planJson(plan, lookup), sel, false));
  else {
    if (lookup?.notice) await write(io.stderr, `Note: ${lookup.notice}\n`);
    const rows = planRows(plan, lookup);
    if (mode === 'plain') for (const r of rows) await write(io.stdout, `${r.join('\t')}\n`);
    else {
      const header = ['TYPE', 'FILES', 'SIZE', 'DURATION', 'TITLE', ...(lookup ? ['LIBRARY'] : []), 'SOURCE'];
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
  // In every mode, --json included (on stderr): a dry run never passes for a real one.
  await write(io.stderr, `${dryRunLine(plan, lookup)}\n`);
}
