// `upload --dry-run`: the plan as a table on a terminal, tab-separated rows in a pipe, or one
// JSON object with --json, and for each item whether the library has it already (and as which
// item) when the library could be asked. Nothing is sent.
import { formatBytes } from '../../rules/rules.js';
import type { LibraryView, Lookup } from '../../upload/library-lookup.js';
import type { UploadPlan } from '../../upload/plan.js';
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
    items: plan.items.map((item, i) => ({
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
    })),
    skipped: plan.skipped,
    warnings: plan.warnings,
  };
}

export async function printPlan(
  io: IO,
  mode: OutputMode,
  plan: UploadPlan,
  sel: JsonSelection = {},
  lookup?: Lookup,
): Promise<void> {
  if (mode === 'json') return write(io.stdout, await formatJson(planJson(plan, lookup), sel, false));
  if (lookup?.notice) await write(io.stderr, `Note: ${lookup.notice}\n`);
  const rows = planRows(plan, lookup);
  if (mode === 'plain') {
    for (const r of rows) await write(io.stdout, `${r.join('\t')}\n`);
    return;
  }
  const header = ['TYPE', 'FILES', 'SIZE', 'DURATION', 'TITLE', ...(lookup ? ['LIBRARY'] : []), 'SOURCE'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c < cells.length - 1 ? cell.padEnd(widths[c]!) : cell))
      .join('  ')
      .trimEnd();
  await write(io.stdout, `${line(header)}\n`);
  for (const r of rows) await write(io.stdout, `${line(r)}\n`);
  const files = plan.items.reduce((n, i) => n + i.files.length, 0);
  const bytes = plan.items.reduce((n, i) => n + i.files.reduce((m, f) => m + f.size, 0), 0);
  const there = (lookup?.views ?? []).filter((v) => v?.kind === 'there' || v?.kind === 'uploaded').length;
  await write(
    io.stderr,
    `Dry run: ${plan.items.length} item${plan.items.length === 1 ? '' : 's'}, ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}${there ? `; ${there} already in the library` : ''}; nothing was sent.\n`,
  );
}
