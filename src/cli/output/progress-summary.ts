// The end of an upload, in words: one row per item on stdout (what scripts read), and on stderr
// what people need: counts, what was skipped and why, what failed and what to do about it, and
// after Ctrl-C what was and was not created. Pure functions of the engine's summary.
import { escapeText } from '../../text/escape-name.js';
import { formatBytes } from '../../rules/rules.js';
import type { ItemOutcome, ItemOutcomes, UploadSummary } from '../../upload/send/events.js';
import { outcomesWhere, sumOf, tally } from '../../upload/send/outcomes.js';
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
  const lines: string[] = [];
  const skippedFiles = sumOf(items, (o) => o.filesSkipped);
  // Of those, found in the library by their checksum (a fresh machine, a touched file).
  const inLibrary = sumOf(items, (o) => o.filesInLibrary ?? 0);
  // Images appended to an existing carousel created nothing: they are said on their own line.
  const n = tally(items);
  // A re-run with nothing left to do: one line (the items are listed on stdout), and what of
  // the local metadata differs from the library or was applied to it.
  if (items.length > 0 && n.skipped === items.length && !summary.interrupted) {
    const where = inLibrary === skippedFiles ? 'in the library' : 'uploaded';
    return [
      `Nothing new to upload: ${plural(items.length, 'item')} (${plural(skippedFiles, 'file')}) already ${where}; --force uploads them again.`,
      ...metadataLines(items),
    ];
  }
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
  if (n.appended > 0)
    for (const o of items) {
      if (o.appended && o.status === 'created')
        lines.push(`Appended ${plural(o.filesCompleted, 'image')} to ${o.itemId ?? o.source}.`);
    }
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

  lines.push(...metadataLines(items));
  const bad = outcomesWhere(items, (o) => o.status === 'failed' || o.status === 'partial');
  for (const o of bad.slice(0, MAX_LISTED))
    lines.push(
      `${o.status === 'failed' ? 'Failed' : 'Incomplete'}: ${escapeText(withoutEcho(o.source, o.message ?? 'unknown error'))}`,
    );
  if (bad.length > MAX_LISTED) lines.push(more(bad.length - MAX_LISTED));
  if (summary.interrupted) lines.push(...interruptedLines(items, summary.bytesKept ?? 0));
  else if (summary.bytesKept)
    lines.push(
      `${formatBytes(summary.bytesKept)} of parts already stored are kept for the next run: running the same command again sends only the rest.`,
    );
  return lines;
}

/**
 * Items already in the library: where the local metadata differs from it (not applied), and
 * what --update-metadata changed. One line per item, as many as MAX_LISTED.
 */
export function metadataLines(items: ItemOutcomes): string[] {
  const name = (o: ItemOutcome) => `${escapeText(o.source)}${o.itemId ? ` (${o.itemId})` : ''}`;
  const differing = outcomesWhere(items, (o) => !!o.differs?.length);
  const updated = outcomesWhere(items, (o) => !!o.updated?.length);
  const lines: string[] = [];
  for (const o of updated.slice(0, MAX_LISTED)) lines.push(`Updated: ${name(o)}: ${o.updated!.join(', ')}`);
  if (updated.length > MAX_LISTED) lines.push(more(updated.length - MAX_LISTED));
  for (const o of differing.slice(0, MAX_LISTED))
    lines.push(`${name(o)}: differs from the library: ${o.differs!.join(', ')}; --update-metadata applies them`);
  if (differing.length > MAX_LISTED) lines.push(more(differing.length - MAX_LISTED));
  if (differing.length > 0)
    lines.push(
      `${plural(differing.length, 'item')} kept as the library has ${differing.length === 1 ? 'it' : 'them'}: nothing was changed.`,
    );
  return lines;
}

/** After Ctrl-C: what exists now and what does not, so nobody has to guess. */
function interruptedLines(items: ItemOutcomes, bytesKept: number): string[] {
  const made = outcomesWhere(items, (o) => !!o.itemId && o.status !== 'skipped');
  const notMade = outcomesWhere(items, (o) => !o.itemId && o.status !== 'failed');
  const lines = ['Interrupted.'];
  const list = (all: ItemOutcome[], show: (o: ItemOutcome) => string) =>
    all.slice(0, MAX_LISTED).map(show).join(', ') +
    (all.length > MAX_LISTED ? ` … and ${all.length - MAX_LISTED} more; see --json` : '');
  lines.push(
    made.length
      ? `Created: ${list(made, (o) => `${o.source} → ${o.itemId}${o.status === 'interrupted' ? ' (incomplete)' : ''}`)}`
      : 'Created: nothing.',
  );
  if (notMade.length) lines.push(`Not created: ${list(notMade, (o) => o.source)}`);
  const unfinished = outcomesWhere(items, (o) => o.status === 'interrupted' && !!o.message);
  for (const o of unfinished.slice(0, MAX_LISTED)) lines.push(`  ${o.source}: ${escapeText(o.message ?? '')}`);
  if (unfinished.length > MAX_LISTED) lines.push(`  ${more(unfinished.length - MAX_LISTED)}`);
  if (bytesKept > 0)
    lines.push(
      `Kept for the next run: ${formatBytes(bytesKept)} of large files already stored as parts; the next run sends only the rest.`,
    );
  lines.push('Run the same command again to upload the rest; nothing is uploaded twice.');
  return lines;
}
