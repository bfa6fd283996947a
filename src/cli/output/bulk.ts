// What a bulk change says (`edit --where`, `rm --where`, `undo`): the preview before it (a count
// and the first rows), the one question, and a line per item and a summary after it. --json
// prints the whole result on stdout instead of the lines.
import { describeChanges } from '../bulk-plan.js';
import type { IO } from '../io.js';
import { confirm } from '../prompt.js';
import { escapeText } from '../../text/escape-name.js';
import { type JsonSelection, formatJson } from './json.js';
import { paint, write } from './mode.js';
import { loudStderr } from './quiet.js';

/** Rows of the preview shown before the count of the rest. */
export const PREVIEW_ROWS = 10;

/** One row of a preview: the item and, for an edit, what changes. */
export interface PreviewRow {
  id: string;
  title: string;
  /** `status "draft" → "scheduled"`; for rm, the type. */
  what: string;
}

/** What happened to one item of a bulk change. */
export interface BulkItemResult {
  id: string;
  title: string;
  outcome: 'changed' | 'deleted' | 'planned' | 'unchanged' | 'failed' | 'skipped';
  changes?: Record<string, { from: unknown; to: unknown }>;
  /** Why it failed or was skipped. */
  error?: { status?: number; code: string; message: string };
}

export interface BulkResult {
  /** The batch id its requests carried (null for a dry run: nothing was sent). */
  batchId: string | null;
  dryRun: boolean;
  /** How many items the query matched. */
  matched: number;
  items: BulkItemResult[];
}

/** `About to change 20 items:` then the first rows and `… and 10 more`. */
export function formatPreview(io: IO, heading: string, rows: readonly PreviewRow[], note?: string): string {
  const c = paint(io);
  const shown = rows.slice(0, PREVIEW_ROWS).map((r) => {
    const title = escapeText(r.title.length > 40 ? `${r.title.slice(0, 39)}…` : r.title);
    return `  ${c.cyan(escapeText(r.id))}  ${title}${r.what ? `  ${escapeText(r.what)}` : ''}`;
  });
  const more = rows.length > PREVIEW_ROWS ? [`  … and ${rows.length - PREVIEW_ROWS} more`] : [];
  return `${heading}\n${[...shown, ...more].join('\n')}\n${note ? `${note}\n` : ''}`;
}

/** The one question, asked even with --quiet (the answer is needed). */
export function askToGoOn(quietable: IO, preview: string, question: string): Promise<boolean> {
  const io = { ...quietable, stderr: loudStderr(quietable.stderr) };
  io.stderr.write(preview);
  return confirm(io, question);
}

const VERB: Record<BulkItemResult['outcome'], string> = {
  changed: 'Changed',
  deleted: 'Deleted',
  planned: 'Would change',
  unchanged: 'Unchanged',
  failed: 'Failed',
  skipped: 'Skipped',
};

/** --json: the result on stdout. Otherwise one line per item on stdout (id, outcome, why). */
export async function printBulkResult(io: IO, json: JsonSelection | undefined, result: BulkResult): Promise<void> {
  if (json) return write(io.stdout, await formatJson(result, json));
  const c = paint(io);
  const lines = result.items.map((r) => {
    const verb = r.outcome === 'failed' || r.outcome === 'skipped' ? c.red(VERB[r.outcome]) : VERB[r.outcome];
    const why = r.error ? `: ${r.error.message}${r.error.status ? ` (${r.error.status} ${r.error.code})` : ''}` : '';
    const what = r.changes ? `\t${escapeText(describeChanges(r.changes))}` : '';
    return `${verb}\t${r.id}\t${escapeText(r.title)}${what}${escapeText(why)}`;
  });
  await write(io.stdout, lines.length ? `${lines.join('\n')}\n` : '');
}
