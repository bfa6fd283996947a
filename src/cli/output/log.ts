// What `contentlib log` prints: audit entries oldest first, as a table for people (time, who,
// what, which item, and a short summary of the change), tab-separated rows in a pipe, or the
// entries as the API sent them with --json.
import type { AuditEntryWire } from '../../api/schemas.js';
import { escapeText } from '../../text/escape-name.js';
import { type Column, columnWidths, renderRow } from './table.js';

/** Who made the change, in a few words: the key's name, else its id's start, else the server's own admin. */
export function actorLabel(e: Pick<AuditEntryWire, 'keyId' | 'keyName'>): string {
  if (e.keyName) return e.keyName;
  if (e.keyId) return `key ${e.keyId.slice(0, 8)}…`;
  return 'server admin';
}

/** A 0-based sortOrder as the position people count (from 1). */
const position = (sortOrder: unknown) => (typeof sortOrder === 'number' ? String(sortOrder + 1) : '?');

const quoted = (v: unknown) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

/** One line on what an entry changed, from its details (unknown actions show their details as JSON). */
export function summary(e: AuditEntryWire): string {
  const d = e.details;
  switch (e.action) {
    case 'item.created':
      return `${String(d.type)} ${quoted(d.title)} from ${String(d.fileName)}`;
    // Positions count from 1, as show prints them and edit's image flags read them.
    case 'item.image_added':
      return `${String(d.fileName)} at position ${position(d.sortOrder)}`;
    case 'item.images_reordered':
      return `images in the order ${Array.isArray(d.order) ? d.order.join(',') : '?'} (their positions before)`;
    case 'item.image_removed':
      return `${String(d.fileName)} removed from position ${position(d.sortOrder)}`;
    case 'item.image_replaced':
      return `${String(d.replacedFileName)} at position ${position(d.sortOrder)} replaced by ${String(d.fileName)}`;
    case 'item.updated': {
      const changes = (d.changes ?? {}) as Record<string, { from: unknown; to: unknown }>;
      // platformSettings' whole objects (kept for an undo) are too long for a line: its paths say it.
      const parts = Object.entries(changes)
        .filter(([field]) => field !== 'platformSettings')
        .map(([field, c]) => `${field} ${quoted(c.from)} → ${quoted(c.to)}`);
      if (Array.isArray(d.platformSettings))
        parts.push(`platformSettings ${d.platformSettings.join(', ') || '(same)'}`);
      return parts.join('; ');
    }
    case 'item.thumbnail_set':
      return d.replaced ? 'thumbnail replaced' : 'thumbnail set';
    case 'item.deleted':
      return `${String(d.type)} ${quoted(d.title)}`;
    case 'key.created': {
      const scopes = Array.isArray(d.scopes) ? d.scopes.join(', ') : '';
      const expiry = d.expiresAt ? `, expires ${String(d.expiresAt)}` : '';
      return `key ${String(d.prefix)}… ${d.name ? `${quoted(d.name)} ` : ''}(${scopes}${expiry})`;
    }
    case 'key.revoked':
      return `key ${String(d.prefix)}…${d.name ? ` ${quoted(d.name)}` : ''}`;
    default:
      return JSON.stringify(d);
  }
}

const COLUMNS: Column[] = [
  { header: 'TIME', width: 20 },
  { header: 'BY', width: 14 },
  // As wide as the longest action, item.images_reordered.
  { header: 'ACTION', width: 21 },
  { header: 'ITEM', width: 36 },
  { header: 'WHAT' },
];

function time(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

export function formatLog(
  entries: readonly AuditEntryWire[],
  mode: 'table' | 'plain' | 'json',
  columns: number,
): string {
  if (mode === 'json') return `${JSON.stringify(entries, null, 2)}\n`;
  if (mode === 'plain')
    return entries
      .map((e) =>
        [e.at, e.action, e.itemId ?? '', e.keyId ?? '', e.keyName ?? '', e.requestId ?? '', summary(e)]
          .map((v) => escapeText(v.replace(/[\t\r\n]+/g, ' ')))
          .join('\t'),
      )
      .map((line) => `${line}\n`)
      .join('');
  if (entries.length === 0) return 'No entries.\n';
  const widths = columnWidths(COLUMNS, columns);
  return [
    COLUMNS.map((c) => c.header),
    // Every cell as it is safe to print: names, titles and ids come from the service.
    ...entries.map((e) => [time(e.at), actorLabel(e), e.action, e.itemId ?? '—', summary(e)].map((v) => escapeText(v))),
  ]
    .map((row) => `${renderRow(row, COLUMNS, widths)}\n`)
    .join('');
}
