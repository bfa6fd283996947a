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

/** One row per item: type, files, size, duration, title, source. */
export function planRows(plan: UploadPlan): string[][] {
  return plan.items.map((item) => [
    item.contentItemId ? `${item.type} (append to ${item.contentItemId})` : item.type,
    String(item.files.length),
    formatBytes(item.files.reduce((n, f) => n + f.size, 0)),
    item.type === 'carousel' ? '' : duration(item.files[0]?.durationSeconds),
    item.metadata.title ?? '',
    item.source,
  ]);
}

export function planJson(plan: UploadPlan) {
  return {
    items: plan.items.map((item) => ({
      type: item.type,
      source: item.source,
      ...(item.contentItemId ? { contentItemId: item.contentItemId } : {}),
      metadata: item.metadata,
      files: item.files.map((f) => ({
        path: f.path,
        name: f.name,
        size: f.size,
        contentType: f.contentType,
        ...(f.durationSeconds === undefined ? {} : { durationSeconds: f.durationSeconds }),
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

export async function printPlan(io: IO, mode: OutputMode, plan: UploadPlan, sel: JsonSelection = {}): Promise<void> {
  if (mode === 'json') return write(io.stdout, await formatJson(planJson(plan), sel, false));
  const rows = planRows(plan);
  if (mode === 'plain') {
    for (const r of rows) await write(io.stdout, `${r.join('\t')}\n`);
    return;
  }
  const header = ['TYPE', 'FILES', 'SIZE', 'DURATION', 'TITLE', 'SOURCE'];
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
  await write(
    io.stderr,
    `Dry run: ${plan.items.length} item${plan.items.length === 1 ? '' : 's'}, ${files} file${files === 1 ? '' : 's'}, ${formatBytes(bytes)}; nothing was sent.\n`,
  );
}
