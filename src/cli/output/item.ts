// One item in full (show, edit): every field the API sent, platformSettings readably, a
// carousel's files in sortOrder, each with its position (counted from 1, as edit's --order,
// --remove-image and --replace-image read it) beside the API's 0-based sortOrder. A table for
// people, `field<TAB>value` rows in a pipe, and with --json the same object `ls --json` lists, a
// carousel's files nested in it.
import { orderedFields } from '../../api/item-fields.js';
import type { ContentItem } from '../../api/schemas.js';
import { type MediaFacts, describeMedia, friendlyRatio } from '../../rules/media-facts.js';
import { formatBytes } from '../../rules/rules.js';
import type { IO } from '../io.js';
import type { JsonSelection } from './json.js';
import { formatJson } from './json.js';
import type { OutputMode } from './mode.js';
import { paint, write } from './mode.js';
import { statusColor } from './items.js';
import { relativeTime } from './time.js';
import { escapeText } from '../../text/escape-name.js';

/** A checksum the server has not computed yet (a file stored before checksums were kept). */
const NOT_YET = 'not computed yet (the server fills it in)';

/** Shown as blocks of their own after the fields: platformSettings, and the media facts (issue 39). */
function orderedKeys(item: Record<string, unknown>): string[] {
  return orderedFields(Object.keys(item), new Set(['platformSettings', 'media']));
}

/** The media facts as labelled lines, or why there are none (a field the service sends as null). */
function mediaBlock(item: ContentItem): Array<[string, string]> | undefined {
  if (item.media) return describeMedia(item.media);
  if (item.media === null && item.type !== 'carousel') return [['', 'not measured yet (the server measures it)']];
  return undefined;
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

/** Who made a change (createdBy, updatedBy, from the audit log): the key's name, else its id. */
function authorOf(v: unknown): { who: string; at: string | undefined } | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const { keyId, keyName, at } = v as { keyId?: unknown; keyName?: unknown; at?: unknown };
  const id = typeof keyId === 'string' ? keyId : undefined;
  const who =
    typeof keyName === 'string' && keyName
      ? `${keyName}${id ? ` (key ${id})` : ''}`
      : id
        ? `key ${id}`
        : 'server admin';
  return { who, at: typeof at === 'string' ? at : undefined };
}

const AUTHOR_FIELDS = new Set(['createdBy', 'updatedBy']);

/** A value on one `field<TAB>value` row: no line breaks or tabs, no control character raw. */
function plainValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return escapeText(v.replace(/[\t\r\n]+/g, ' '));
  return escapeText(JSON.stringify(v));
}

/**
 * A file as shown: one the API sent, or (edit --dry-run) one that is not uploaded yet, which has
 * no id or key.
 */
export interface ShownFile {
  id: string | null;
  fileKey: string | null;
  sortOrder: number;
  fileName?: string;
  fileSize?: number;
  contentType?: string;
  [field: string]: unknown;
}

function isFacts(v: unknown): v is MediaFacts {
  return typeof v === 'object' && v !== null && typeof (v as MediaFacts).displayWidth === 'number';
}

export function sortedFiles<F extends ShownFile>(files: readonly F[]): F[] {
  return [...files].sort((a, b) => a.sortOrder - b.sortOrder);
}

/** The files in order, each with its position from 1 first: what --json prints. */
export function positionedFiles(files: readonly ShownFile[]): Array<{ position: number } & ShownFile> {
  return sortedFiles(files).map((f, i) => ({ position: i + 1, ...f }));
}

/** `field<TAB>value` rows: platformSettings and files as dotted paths (files.0.fileKey). */
export function plainItemLines(item: ContentItem, files: readonly ShownFile[]): string[] {
  const rec = item as Record<string, unknown>;
  const lines = orderedKeys(rec).map((k) => {
    if (AUTHOR_FIELDS.has(k)) return `${escapeText(k)}\t${plainValue(authorOf(rec[k])?.who ?? '')}`;
    return `${escapeText(k)}\t${k === 'hashtags' && Array.isArray(rec[k]) ? (rec[k] as string[]).map((t) => plainValue(t)).join(',') : plainValue(rec[k])}`;
  });
  for (const [path, v] of flatten(item.platformSettings ?? {}, 'platformSettings'))
    lines.push(`${plainValue(path)}\t${plainValue(v)}`);
  if (item.media !== undefined)
    for (const [path, v] of flatten(item.media ?? null, 'media')) lines.push(`${plainValue(path)}\t${plainValue(v)}`);
  positionedFiles(files).forEach((f, i) => {
    for (const [k, v] of Object.entries(f))
      if (k === 'media' && v)
        for (const [path, leaf] of flatten(v, `files.${i}.media`)) lines.push(`${path}\t${plainValue(leaf)}`);
      else lines.push(`files.${i}.${k}\t${plainValue(v)}`);
  });
  return lines;
}

function humanValue(key: string, v: unknown, now: Date): string {
  if (key === 'sha256' && v === null) return NOT_YET;
  return escapeText(rawHumanValue(key, v, now), { lines: key === 'description' });
}

function rawHumanValue(key: string, v: unknown, now: Date): string {
  if (v === null || v === undefined || v === '') return '—';
  if (key === 'hashtags' && Array.isArray(v)) return v.length ? v.map((t) => `#${String(t)}`).join(' ') : '—';
  if ((key === 'createdAt' || key === 'updatedAt') && typeof v === 'string') return `${v} (${relativeTime(v, now)})`;
  if (AUTHOR_FIELDS.has(key)) {
    const author = authorOf(v);
    if (author) return author.at ? `${author.who}, ${relativeTime(author.at, now)}` : author.who;
  }
  if (key === 'fileSize' && typeof v === 'number') return `${formatBytes(v)} (${v.toLocaleString('en-US')} bytes)`;
  if (key === 'durationSeconds' && typeof v === 'number') return `${v} s`;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function tableItemLines(io: IO, item: ContentItem, files: readonly ShownFile[], now: Date): string[] {
  const c = paint(io);
  const rec = item as Record<string, unknown>;
  const keys = orderedKeys(rec);
  const width = Math.max(...keys.map((k) => k.length), 'platformSettings'.length) + 2;
  const lines = keys.map((k) => {
    let value = humanValue(k, rec[k], now);
    if (k === 'status') value = statusColor(c, item.status)(value);
    if (k === 'id') value = c.cyan(value);
    return `${c.bold(escapeText(k).padEnd(width))}${value}`;
  });
  const settings = flatten(item.platformSettings ?? {}, '');
  if (settings.length === 0 || (settings.length === 1 && settings[0]![0] === '')) {
    lines.push(`${c.bold('platformSettings'.padEnd(width))}—`);
  } else {
    lines.push(c.bold('platformSettings'));
    const w = Math.max(...settings.map(([p]) => p.length)) + 2;
    for (const [path, v] of settings)
      lines.push(`  ${escapeText(path).padEnd(w)}${escapeText(typeof v === 'string' ? v : JSON.stringify(v))}`);
  }
  const media = mediaBlock(item);
  if (media?.length === 1 && media[0]![0] === '') lines.push(`${c.bold('media'.padEnd(width))}${media[0]![1]}`);
  else if (media) {
    lines.push(c.bold('media'));
    const w = Math.max(...media.map(([label]) => label.length)) + 2;
    for (const [label, value] of media) lines.push(`  ${label.padEnd(w)}${escapeText(value)}`);
  }
  if (files.length || item.type === 'carousel') {
    lines.push(c.bold(`files (${files.length}, in order)`));
    // Columns padded to the widest entry so names, sizes and keys line up under each other.
    const rows = sortedFiles(files).map((f, i) => ({
      position: String(i + 1),
      order: String(f.sortOrder),
      name: escapeText(f.fileName ?? f.fileKey ?? ''),
      size: typeof f.fileSize === 'number' ? formatBytes(f.fileSize) : '',
      // Each image's SHA-256 in full: what support compares with `sha256sum` of the creator's file.
      sha256: f.sha256 === null ? NOT_YET : escapeText(String(f.sha256 ?? '')),
      // Each image's shape (issue 39): what a platform's crop depends on.
      shape: isFacts(f.media)
        ? `${f.media.displayWidth}×${f.media.displayHeight} (${friendlyRatio(f.media.displayWidth, f.media.displayHeight)})`
        : '',
      key: escapeText(f.fileKey ?? (typeof f.path === 'string' ? `(not uploaded: ${f.path})` : '')),
    }));
    const nameWidth = Math.max('name'.length, ...rows.map((r) => r.name.length));
    const sizeWidth = Math.max('size'.length, ...rows.map((r) => r.size.length));
    const shaWidth = Math.max(0, ...rows.map((r) => r.sha256.length));
    const shapeWidth = Math.max(0, ...rows.map((r) => r.shape.length));
    const shape = (text: string) => (shapeWidth > 0 ? `${text.padEnd(Math.max(shapeWidth, 'shape'.length))}  ` : '');
    // A service that keeps no checksums gets no empty column.
    const sha = (text: string) => (shaWidth > 0 ? `${text.padEnd(Math.max(shaWidth, 'sha256'.length))}  ` : '');
    // `#` is the position edit's image flags read (from 1); sortOrder is the API's (from 0).
    lines.push(
      c.dim(
        `  ${'#'.padStart(2)}  sortOrder  ${'name'.padEnd(nameWidth)}  ${'size'.padEnd(sizeWidth)}  ${shape('shape')}${sha('sha256')}key`,
      ),
    );
    for (const r of rows)
      lines.push(
        `  ${r.position.padStart(2)}  ${r.order.padStart(9)}  ${r.name.padEnd(nameWidth)}  ${r.size.padEnd(sizeWidth)}  ${shape(r.shape)}${sha(r.sha256)}${c.dim(r.key)}`,
      );
  }
  return lines;
}

/**
 * The one item shape of `--json`: the object `ls --json` lists, with a carousel's files nested as
 * `files` (by sortOrder). `show` and `edit` print it; docs/cli.md lists its fields.
 */
export function itemObject(item: ContentItem, files: readonly ShownFile[] | undefined): Record<string, unknown> {
  const withFiles = item.type === 'carousel' || (files !== undefined && files.length > 0);
  return withFiles ? { ...item, files: positionedFiles(files ?? []) } : { ...item };
}

/** Prints one item (show, edit) in the chosen mode; `sel` picks fields or runs --jq. */
export async function printItem(
  io: IO,
  mode: OutputMode,
  item: ContentItem,
  files: readonly ShownFile[] | undefined,
  now: Date,
  sel: JsonSelection = {},
): Promise<void> {
  if (mode === 'json') return write(io.stdout, await formatJson(itemObject(item, files), sel));
  const list = files ?? [];
  const lines = mode === 'plain' ? plainItemLines(item, list) : tableItemLines(io, item, list, now);
  await write(io.stdout, `${lines.join('\n')}\n`);
}
