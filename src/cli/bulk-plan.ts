// The pure side of a bulk change (`edit --where`, `rm --where`, `undo`): which items a listed page
// really matches, and what one set of edit flags makes of each item (from its own current
// values: --add-hashtag adds to each item's hashtags). No I/O here; tests are tables.
import type { ListParams } from '../api/client.js';
import type { ContentItem, PatchRequest } from '../api/schemas.js';
import { type EditFlags, buildPatch } from './commands/edit-flags.js';

/** One field of one item: what it is, what it becomes. */
export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** What a bulk edit will send for one item (only the fields whose value really changes). */
export interface PlannedEdit {
  id: string;
  title: string;
  patch: PatchRequest;
  changes: Record<string, FieldChange>;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** An item's value of a PATCH field, as the service shows it (absent text fields are empty). */
function currentValue(item: ContentItem, field: keyof PatchRequest): unknown {
  switch (field) {
    case 'description':
      return item.description ?? '';
    case 'hashtags':
      return item.hashtags ?? [];
    case 'platformSettings':
      return item.platformSettings ?? {};
    default:
      return (item as Record<string, unknown>)[field];
  }
}

/**
 * The flags applied to each item: the PATCH of the fields that change, and the items the flags
 * leave as they are (nothing is sent for those). Throws UsageError when the flags make no valid
 * change (checked as `edit ID` checks them).
 */
export function planEdits(
  items: readonly ContentItem[],
  flags: EditFlags,
): { edits: PlannedEdit[]; unchanged: ContentItem[] } {
  const edits: PlannedEdit[] = [];
  const unchanged: ContentItem[] = [];
  for (const item of items) {
    const body = buildPatch(flags, item);
    const patch: Record<string, unknown> = {};
    const changes: Record<string, FieldChange> = {};
    for (const [field, to] of Object.entries(body) as [keyof PatchRequest, unknown][]) {
      const from = currentValue(item, field);
      if (sameJson(from, to)) continue;
      patch[field] = to;
      changes[field] = { from, to };
    }
    if (Object.keys(patch).length === 0) unchanged.push(item);
    else edits.push({ id: item.id, title: item.title, patch: patch as PatchRequest, changes });
  }
  return { edits, unchanged };
}

/**
 * Whether an item the service listed satisfies the filters that can be checked on the item
 * itself. A service that does not know a filter (one without this extension) ignores it and
 * lists everything: a bulk change must never take that for a match. Who made an item and the
 * free text cannot be checked here; a field the service does not show is not held against it.
 */
export function matchesLocally(item: ContentItem, p: ListParams): boolean {
  if (p.status !== undefined && item.status !== p.status) return false;
  if (p.type !== undefined && item.type !== p.type) return false;
  if (p.search !== undefined && !item.title.toLowerCase().includes(p.search.toLowerCase())) return false;
  if (p.hashtag?.length && item.hashtags !== undefined && item.hashtags !== null) {
    const has = new Set(item.hashtags.map((t) => t.replace(/^#/, '').toLowerCase()));
    if (!p.hashtag.every((t) => has.has(t.replace(/^#/, '').toLowerCase()))) return false;
  }
  const at = (iso: string) => Date.parse(iso);
  const created = at(item.createdAt);
  if (p.createdAfter !== undefined && created < at(p.createdAfter)) return false;
  if (p.createdBefore !== undefined && created >= at(p.createdBefore)) return false;
  if (item.updatedAt !== undefined && item.updatedAt !== null) {
    const updated = at(item.updatedAt);
    if (p.updatedAfter !== undefined && updated < at(p.updatedAfter)) return false;
    if (p.updatedBefore !== undefined && updated >= at(p.updatedBefore)) return false;
  }
  if (p.minDuration !== undefined || p.maxDuration !== undefined) {
    const d = item.durationSeconds;
    // A carousel has no duration and never matches a duration range (as the API says).
    if (d === undefined || d === null) return false;
    if (p.minDuration !== undefined && d < Number(p.minDuration)) return false;
    if (p.maxDuration !== undefined && d > Number(p.maxDuration)) return false;
  }
  return true;
}

/** A value in a preview line: text quoted, lists and objects as JSON, cut to a line. */
export function shortValue(v: unknown, max = 40): string {
  const text = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? '(none)' : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `status "draft" → "scheduled"; hashtags ["a"] → ["a","launch"]`. */
export function describeChanges(changes: Record<string, FieldChange>): string {
  return Object.entries(changes)
    .map(([field, c]) => `${field} ${shortValue(c.from)} → ${shortValue(c.to)}`)
    .join('; ');
}
