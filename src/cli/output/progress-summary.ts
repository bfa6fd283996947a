// The end of an upload, in words: one row per item on stdout (what scripts read), and on stderr
// what people need: counts, what was skipped and why, what failed and what to do about it, and
// after Ctrl-C what was and was not created. Pure functions of the engine's summary.
import { formatBytes } from '../../rules/rules.js';
import type { ItemOutcome, UploadSummary } from '../../upload/events.js';
import { formatMs } from './progress-shared.js';

/** One row per item that exists: id, type, status, source. Tab-separated unless `aligned`. */
/** "dir/a.mp4: a.mp4: why" says the name twice: a single file's message already starts with it. */
function withoutEcho(source: string, message: string): string {
  const name = source.split(/[\\/]/).pop() ?? source;
  return message.startsWith(`${name}: `) ? `${source}: ${message.slice(name.length + 2)}` : `${source}: ${message}`;
}

export function itemRows(summary: UploadSummary, aligned: boolean): string[] {
  const rows = summary.items.filter((o) => o.itemId).map((o) => [o.itemId!, o.type, o.status, o.source]);
  if (!aligned) return rows.map((r) => r.join('\t'));
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c]!) : cell)).join('  '));
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function count(items: ItemOutcome[], status: ItemOutcome['status']): number {
  return items.filter((o) => o.status === status).length;
}

/** The human summary for stderr, line by line. */
export function summaryLines(summary: UploadSummary): string[] {
  const { items } = summary;
  const lines: string[] = [];
  const skippedFiles = items.reduce((n, o) => n + o.filesSkipped, 0);
  // A re-run with nothing left to do: one line (the items are listed on stdout).
  if (items.length > 0 && count(items, 'skipped') === items.length && !summary.interrupted) {
    return [
      `Nothing new to upload: ${plural(items.length, 'item')} (${plural(skippedFiles, 'file')}) already uploaded; --force uploads them again.`,
    ];
  }
  const parts = [
    `${plural(count(items, 'created'), 'item')} created`,
    count(items, 'skipped') ? `${count(items, 'skipped')} already there` : '',
    count(items, 'partial') ? `${count(items, 'partial')} incomplete` : '',
    count(items, 'failed') ? `${count(items, 'failed')} failed` : '',
    count(items, 'interrupted') ? `${count(items, 'interrupted')} interrupted` : '',
  ].filter(Boolean);
  lines.push(`${parts.join(', ')}; ${formatBytes(summary.bytesSent)} sent in ${formatMs(summary.ms)}.`);

  if (skippedFiles > 0) lines.push(`${skippedFiles} already uploaded, skipped; --force uploads again.`);

  for (const o of items) {
    if (o.status === 'failed' || o.status === 'partial')
      lines.push(
        `${o.status === 'failed' ? 'Failed' : 'Incomplete'}: ${withoutEcho(o.source, o.message ?? 'unknown error')}`,
      );
  }
  if (summary.interrupted) lines.push(...interruptedLines(items));
  return lines;
}

/** After Ctrl-C: what exists now and what does not, so nobody has to guess. */
function interruptedLines(items: ItemOutcome[]): string[] {
  const made = items.filter((o) => o.itemId && o.status !== 'skipped');
  const notMade = items.filter((o) => !o.itemId && o.status !== 'failed');
  const lines = ['Interrupted.'];
  lines.push(
    made.length
      ? `Created: ${made.map((o) => `${o.source} → ${o.itemId}${o.status === 'interrupted' ? ' (incomplete)' : ''}`).join(', ')}`
      : 'Created: nothing.',
  );
  if (notMade.length) lines.push(`Not created: ${notMade.map((o) => o.source).join(', ')}`);
  for (const o of items) if (o.status === 'interrupted' && o.message) lines.push(`  ${o.source}: ${o.message}`);
  lines.push('Run the same command again to upload the rest; nothing is uploaded twice.');
  return lines;
}
