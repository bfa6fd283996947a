// One item in full (show, edit): every field the API sent, platformSettings readably, a
// carousel's files in sortOrder. A table for people, `field<TAB>value` rows in a pipe, and with
// --json the same object `ls --json` lists, a carousel's files nested in it.
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { formatBytes } from '../../rules/rules.js';
import type { IO } from '../io.js';
import type { JsonSelection } from './json.js';
import { formatJson } from './json.js';
import type { OutputMode } from './mode.js';
import { paint, write } from './mode.js';
import { statusColor } from './items.js';
import { relativeTime } from './time.js';

/** Fields shown first, in this order; any other field the API sends follows, so none is hidden. */
const ORDER = [
  'id',
  'type',
  'title',
  'status',
  'description',
  'hashtags',
  'createdAt',
  'updatedAt',
  'durationSeconds',
  'fileSize',
  'fileName',
  'contentType',
  'sha256',
  'fileUrl',
  'thumbnailUrl',
  'thumbnailSha256',
];

/** A checksum the server has not computed yet (a file stored before checksums were kept). */
const NOT_YET = 'not computed yet (the server fills it in)';

function orderedKeys(item: Record<string, unknown>): string[] {
  const rest = Object.keys(item).filter((k) => !ORDER.includes(k) && k !== 'platformSettings');
  return [...ORDER.filter((k) => k in item), ...rest.sort()];
}

/** `a.b.c` paths of every leaf, for plain rows and the readable platformSettings block. */
export function flatten(value: unknown, prefix: string, out: Array<[string, unknown]> = []): Array<[string, unknown]> {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.push([prefix, value]);
  }
  return out;
}

function plainValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.replace(/[\t\r\n]+/g, ' ');
  return JSON.stringify(v);
}

export function sortedFiles(files: readonly CarouselFile[]): CarouselFile[] {
  return [...files].sort((a, b) => a.sortOrder - b.sortOrder);
}

/** `field<TAB>value` rows: platformSettings and files as dotted paths (files.0.fileKey). */
export function plainItemLines(item: ContentItem, files: readonly CarouselFile[]): string[] {
  const rec = item as Record<string, unknown>;
  const lines = orderedKeys(rec).map(
    (k) => `${k}\t${k === 'hashtags' && Array.isArray(rec[k]) ? (rec[k] as string[]).join(',') : plainValue(rec[k])}`,
  );
  for (const [path, v] of flatten(item.platformSettings ?? {}, 'platformSettings'))
    lines.push(`${path}\t${plainValue(v)}`);
  sortedFiles(files).forEach((f, i) => {
    for (const [k, v] of Object.entries(f)) lines.push(`files.${i}.${k}\t${plainValue(v)}`);
  });
  return lines;
}

function humanValue(key: string, v: unknown, now: Date): string {
  if (key === 'sha256' && v === null) return NOT_YET;
  if (v === null || v === undefined || v === '') return '—';
  if (key === 'hashtags' && Array.isArray(v)) return v.length ? v.map((t) => `#${String(t)}`).join(' ') : '—';
  if ((key === 'createdAt' || key === 'updatedAt') && typeof v === 'string') return `${v} (${relativeTime(v, now)})`;
  if (key === 'fileSize' && typeof v === 'number') return `${formatBytes(v)} (${v.toLocaleString('en-US')} bytes)`;
  if (key === 'durationSeconds' && typeof v === 'number') return `${v} s`;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function tableItemLines(io: IO, item: ContentItem, files: readonly CarouselFile[], now: Date): string[] {
  const c = paint(io);
  const rec = item as Record<string, unknown>;
  const keys = orderedKeys(rec);
  const width = Math.max(...keys.map((k) => k.length), 'platformSettings'.length) + 2;
  const lines = keys.map((k) => {
    let value = humanValue(k, rec[k], now);
    if (k === 'status') value = statusColor(c, item.status)(value);
    if (k === 'id') value = c.cyan(value);
    return `${c.bold(k.padEnd(width))}${value}`;
  });
  const settings = flatten(item.platformSettings ?? {}, '');
  if (settings.length === 0 || (settings.length === 1 && settings[0]![0] === '')) {
    lines.push(`${c.bold('platformSettings'.padEnd(width))}—`);
  } else {
    lines.push(c.bold('platformSettings'));
    const w = Math.max(...settings.map(([p]) => p.length)) + 2;
    for (const [path, v] of settings) lines.push(`  ${path.padEnd(w)}${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  if (files.length || item.type === 'carousel') {
    lines.push(c.bold(`files (${files.length}, by sortOrder)`));
    // Columns padded to the widest entry so names, sizes and keys line up under each other.
    const rows = sortedFiles(files).map((f) => ({
      order: String(f.sortOrder),
      name: f.fileName ?? f.fileKey,
      size: typeof f.fileSize === 'number' ? formatBytes(f.fileSize) : '',
      // Each image's SHA-256 in full: what support compares with `sha256sum` of the creator's file.
      sha256: f.sha256 === null ? NOT_YET : (f.sha256 ?? ''),
      key: f.fileKey,
    }));
    const nameWidth = Math.max(0, ...rows.map((r) => r.name.length));
    const sizeWidth = Math.max(0, ...rows.map((r) => r.size.length));
    const shaWidth = Math.max(0, ...rows.map((r) => r.sha256.length));
    for (const r of rows) {
      // A service that keeps no checksums gets no empty column.
      const cells = [r.order.padStart(2), r.name.padEnd(nameWidth), r.size.padEnd(sizeWidth)];
      if (shaWidth > 0) cells.push(r.sha256.padEnd(shaWidth));
      lines.push(`  ${[...cells, c.dim(r.key)].join('  ')}`);
    }
  }
  return lines;
}

/**
 * The one item shape of `--json`: the object `ls --json` lists, with a carousel's files nested as
 * `files` (by sortOrder). `show` and `edit` print it; docs/cli.md lists its fields.
 */
export function itemObject(item: ContentItem, files: readonly CarouselFile[] | undefined): Record<string, unknown> {
  const withFiles = item.type === 'carousel' || (files !== undefined && files.length > 0);
  return withFiles ? { ...item, files: sortedFiles(files ?? []) } : { ...item };
}

/** Prints one item (show, edit) in the chosen mode; `sel` picks fields or runs --jq. */
export async function printItem(
  io: IO,
  mode: OutputMode,
  item: ContentItem,
  files: readonly CarouselFile[] | undefined,
  now: Date,
  sel: JsonSelection = {},
): Promise<void> {
  if (mode === 'json') return write(io.stdout, await formatJson(itemObject(item, files), sel));
  const list = files ?? [];
  const lines = mode === 'plain' ? plainItemLines(item, list) : tableItemLines(io, item, list, now);
  await write(io.stdout, `${lines.join('\n')}\n`);
}
