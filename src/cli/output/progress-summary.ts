// The end of an upload, in words: one row per item on stdout (what scripts read), and on stderr
// what people need: counts, what was skipped and why, what failed and what to do about it, and
// after Ctrl-C what was and was not created. Pure functions of the engine's summary.
import { escapeText } from '../../text/escape-name.js';
import { formatBytes } from '../../rules/rules.js';
import type { ItemOutcome, UploadSummary } from '../../upload/send/events.js';
import { type OutcomeFacts, type Picked, outcomesWhere, readOutcomes } from '../../upload/send/outcomes.js';
import { formatMs } from './progress-shared.js';

/** One row per item that exists: id, type, status, source. Tab-separated unless `aligned`. */
/** "dir/a.mp4: a.mp4: why" says the name twice: a single file's message already starts with it. */
function withoutEcho(source: string, message: string): string {
  const name = source.split(/[\\/]/).pop() ?? source;
  return message.startsWith(`${name}: `) ? `${source}: ${message.slice(name.length + 2)}` : `${source}: ${message}`;
}

export function itemRows(summary: UploadSummary, aligned: boolean): string[] {
  const rows = outcomesWhere(summary.items, (o) => !!o.itemId).map((o) => [o.itemId!, o.type, statusWord(o), o.source]);
  if (!aligned) return rows.map((r) => r.join('\t'));
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c]!) : cell)).join('  '));
}

/** Items named one by one on stderr; a 10,000-item run lists the rest as a count (--json has them all). */
export const MAX_LISTED = 50;

function more(n: number): string {
  return `… and ${n.toLocaleString('en-US')} more; see --json`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** 'appended' for images added to an existing carousel, else the outcome's status. */
function statusWord(o: ItemOutcome): string {
  if (o.status === 'skipped' && o.updated?.length) return 'updated';
  return o.appended && o.status === 'created' ? 'appended' : o.status;
}

/** The human summary for stderr, line by line. */
export function summaryLines(summary: UploadSummary): string[] {
  const { items } = summary;
  const f = readOutcomes(items, MAX_LISTED);
  const { tally: n, skippedFiles, inLibraryFiles: inLibrary } = f;
  const lines: string[] = [];
  // A re-run with nothing left to do: one line (the items are listed on stdout), and what of
  // the local metadata differs from the library or was applied to it.
  if (items.length > 0 && n.skipped === items.length && !summary.interrupted) {
    const where = inLibrary === skippedFiles ? 'in the library' : 'uploaded';
    return [
      `Nothing new to upload: ${plural(items.length, 'item')} (${plural(skippedFiles, 'file')}) already ${where}; --force uploads them again.`,
      ...metadataLines(f),
    ];
  }
  // Images appended to an existing carousel created nothing: they are said on their own line.
  const parts = [
    // "1 carousel appended to" alone when that is all the run did, never an empty start.
    n.created || !n.appended ? `${plural(n.created, 'item')} created` : '',
    n.appended ? `${plural(n.appended, 'carousel')} appended to` : '',
    n.skipped ? `${n.skipped} already there` : '',
    n.partial ? `${n.partial} incomplete` : '',
    n.failed ? `${n.failed} failed` : '',
    n.interrupted ? `${n.interrupted} interrupted` : '',
  ].filter(Boolean);
  lines.push(`${parts.join(', ')}; ${formatBytes(summary.bytesSent)} sent in ${formatMs(summary.ms)}.`);
  lines.push(...listed(f.appended, (o) => `Appended ${plural(o.filesCompleted, 'image')} to ${o.itemId ?? o.source}.`));
  if (summary.skippedFiles)
    lines.push(`${plural(summary.skippedFiles, 'file')} in the folders skipped, not uploaded (listed above).`);
  if (summary.leftOut)
    lines.push(`${plural(summary.leftOut, 'file')} left out as invalid (listed above; --skip-invalid), not uploaded.`);

  if (skippedFiles > inLibrary)
    lines.push(`${skippedFiles - inLibrary} already uploaded, skipped; --force uploads again.`);
  if (inLibrary > 0)
    lines.push(
      `${plural(inLibrary, 'file')} already in the library (the same bytes, found by checksum), not sent; --force uploads again.`,
    );

  lines.push(...metadataLines(f));
  lines.push(
    ...listed(
      f.failedOrPartial,
      (o) =>
        `${o.status === 'failed' ? 'Failed' : 'Incomplete'}: ${escapeText(withoutEcho(o.source, o.message ?? 'unknown error'))}`,
    ),
  );
  if (summary.interrupted) lines.push(...interruptedLines(f, summary.bytesKept ?? 0));
  else if (summary.bytesKept)
    lines.push(
      `${formatBytes(summary.bytesKept)} of parts already stored are kept for the next run: running the same command again sends only the rest.`,
    );
  return lines;
}

/** A line per outcome named (MAX_LISTED at most), then the count of the rest. */
function listed(p: Picked, line: (o: ItemOutcome) => string, indent = ''): string[] {
  const lines = p.first.map((o) => `${indent}${line(o)}`);
  if (p.count > p.first.length) lines.push(`${indent}${more(p.count - p.first.length)}`);
  return lines;
}

/**
 * Items already in the library: where the local metadata differs from it (not applied), and
 * what --update-metadata changed. One line per item, as many as MAX_LISTED.
 */
function metadataLines(f: OutcomeFacts): string[] {
  const name = (o: ItemOutcome) => `${escapeText(o.source)}${o.itemId ? ` (${o.itemId})` : ''}`;
  const { differing, updated } = f;
  const lines = [
    ...listed(updated, (o) => `Updated: ${name(o)}: ${o.updated!.join(', ')}`),
    ...listed(
      differing,
      (o) => `${name(o)}: differs from the library: ${o.differs!.join(', ')}; --update-metadata applies them`,
    ),
  ];
  if (differing.count > 0)
    lines.push(
      `${plural(differing.count, 'item')} kept as the library has ${differing.count === 1 ? 'it' : 'them'}: nothing was changed.`,
    );
  return lines;
}

/** After Ctrl-C: what exists now and what does not, so nobody has to guess. */
function interruptedLines(f: OutcomeFacts, bytesKept: number): string[] {
  const lines = ['Interrupted.'];
  const inline = (p: Picked, show: (o: ItemOutcome) => string) =>
    p.first.map(show).join(', ') + (p.count > p.first.length ? ` ${more(p.count - p.first.length)}` : '');
  lines.push(
    f.made.count
      ? `Created: ${inline(f.made, (o) => `${o.source} → ${o.itemId}${o.status === 'interrupted' ? ' (incomplete)' : ''}`)}`
      : 'Created: nothing.',
  );
  if (f.notMade.count) lines.push(`Not created: ${inline(f.notMade, (o) => o.source)}`);
  lines.push(...listed(f.unfinished, (o) => `${o.source}: ${escapeText(o.message ?? '')}`, '  '));
  if (bytesKept > 0)
    lines.push(
      `Kept for the next run: ${formatBytes(bytesKept)} of large files already stored as parts; the next run sends only the rest.`,
    );
  lines.push('Run the same command again to upload the rest; nothing is uploaded twice.');
  return lines;
}
