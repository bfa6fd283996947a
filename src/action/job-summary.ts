// The job summary (Markdown in $GITHUB_STEP_SUMMARY): what the upload did, item by item (title,
// type, id, outcome), then its problems, failures and the files it skipped. GitHub takes at most
// 1 MiB per step; a run of thousands of items is cut to fit, saying how many rows were left out
// and where the whole list is (the `summary` output). Pure: the run's record in, Markdown out.
import type { SummaryLine } from '../cli/output/upload-ndjson.js';

/** GitHub's limit per step, less room for the notes that say what was cut. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024 - 4096;

export interface RunRecord {
  /** The last NDJSON line; undefined when the CLI printed none (it could not start). */
  summary?: SummaryLine;
  /** `problem` events: what refused the plan, or what --skip-invalid left out. */
  problems: Array<{ subject: string; rule: string; message: string; hint: string | null; leftOut: boolean }>;
  /** `skipped` events of the plan: files in the folders that are not uploaded. */
  skipped: Array<{ path: string; reason: string; hint?: string }>;
  /** `failed` events. */
  failed: Array<{ message: string; file?: { name: string } }>;
  /** The `error` event, or why the CLI could not run. */
  error?: string;
  exitCode: number;
  /** Said instead of the usual headline (if-no-files-found). */
  note?: string;
}

/** Text as a table cell or list item: Markdown and HTML characters of a title cannot break the page. */
export function cell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/([\\`*_[\]|])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function headline(r: RunRecord): string {
  const s = r.summary;
  if (r.note) return r.note;
  if (!s) return `contentlib could not run (exit ${r.exitCode}).`;
  if (s.refused) return `Nothing was uploaded: the upload was refused (exit ${s.exitCode}).`;
  const parts = [
    `${s.created} created`,
    s.appended ? `${s.appended} appended to` : '',
    s.skipped ? `${s.skipped} already there` : '',
    s.updated ? `${s.updated} updated` : '',
    s.differing ? `${s.differing} differing from the library (not changed)` : '',
    s.partial ? `${s.partial} incomplete` : '',
    s.failed ? `${s.failed} failed` : '',
    s.leftOut ? `${s.leftOut} files left out` : '',
  ].filter(Boolean);
  const where = s.target?.kind === 'remote' ? ` to ${s.target.baseUrl}` : '';
  return `${parts.join(', ')}${where}; ${formatBytes(s.bytesSent)} sent in ${(s.ms / 1000).toFixed(1)} s${s.interrupted ? '; interrupted' : ''} (exit ${s.exitCode}).`;
}

/**
 * What the run did to an item, and what of the local metadata differs from the library (not
 * applied: the library's word wins) or was applied (update-metadata).
 */
function outcomeCell(i: SummaryLine['items'][number]): string {
  const notes = [
    i.updated.length > 0 ? `updated: ${i.updated.join(', ')}` : '',
    i.differs.length > 0
      ? `differs from the library: ${i.differs.join(', ')}; not changed (update-metadata: true applies them)`
      : '',
    i.message ? cell(i.message) : '',
  ].filter(Boolean);
  return `${i.outcome}${notes.length > 0 ? `: ${notes.join('; ')}` : ''}`;
}

function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

/** A section: a heading, fixed lines, then rows that may be cut to fit. */
interface Section {
  head: string[];
  rows: string[];
  /** What the rows are, for the note when some are cut ("items", "skipped files"). */
  what: string;
}

export function jobSummary(r: RunRecord, limit = SUMMARY_LIMIT_BYTES): string {
  const sections: Section[] = [];
  const s = r.summary;
  if (r.error && !s?.items.length) sections.push({ head: [`**Error:** ${cell(r.error)}`, ''], rows: [], what: '' });
  if (s && s.items.length > 0)
    sections.push({
      head: ['| Title | Type | Id | Outcome |', '|---|---|---|---|'],
      rows: s.items.map(
        (i) => `| ${cell(i.title ?? i.source)} | ${i.type} | ${i.id ? `\`${i.id}\`` : '—'} | ${outcomeCell(i)} |`,
      ),
      what: 'items',
    });
  const problems = r.problems.filter((p) => !p.leftOut);
  const leftOut = r.problems.filter((p) => p.leftOut);
  const list = (p: RunRecord['problems'][number]) =>
    `- ${cell(p.subject)}: ${cell(p.message)}${p.hint ? ` (${cell(p.hint)})` : ''}`;
  if (problems.length > 0)
    sections.push({ head: ['', '### Problems', ''], rows: problems.map(list), what: 'problems' });
  if (leftOut.length > 0)
    sections.push({ head: ['', '### Left out (--skip-invalid)', ''], rows: leftOut.map(list), what: 'files left out' });
  if (r.failed.length > 0)
    sections.push({
      head: ['', '### Failed', ''],
      rows: r.failed.map((f) => `- ${f.file ? `${cell(f.file.name)}: ` : ''}${cell(f.message)}`),
      what: 'failures',
    });
  if (r.skipped.length > 0)
    sections.push({
      head: ['', '### Skipped files', ''],
      rows: r.skipped.map((k) => `- ${cell(k.path)}: ${cell(k.reason)}${k.hint ? ` (${cell(k.hint)})` : ''}`),
      what: 'skipped files',
    });
  return render(`## contentlib upload`, headline(r), sections, limit);
}

/** Every heading and as many rows as fit in `limit` bytes, each cut section saying how many it left out. */
function render(title: string, line: string, sections: readonly Section[], limit: number): string {
  const bytes = (t: string) => Buffer.byteLength(t, 'utf8');
  const fixed = [title, '', cell(line), '', ...sections.flatMap((x) => x.head)].join('\n');
  let budget = limit - bytes(fixed) - sections.length * 200;
  const out = [title, '', cell(line), ''];
  for (const section of sections) {
    out.push(...section.head);
    let kept = 0;
    for (const row of section.rows) {
      const size = bytes(row) + 1;
      if (size > budget) break;
      out.push(row);
      budget -= size;
      kept++;
    }
    const cut = section.rows.length - kept;
    if (cut > 0)
      out.push(
        '',
        `… and ${cut.toLocaleString('en-US')} more ${section.what}, left out to keep this summary under GitHub's 1 MiB: the \`summary\` output has every item.`,
      );
  }
  return `${out.join('\n')}\n`;
}
