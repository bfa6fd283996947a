// What the pages' forms and links mean, as pure functions: the grid's query string (filters and
// page) and the edit form (which fields changed, checked with the API's own PATCH schema before
// a request is made). Tested as tables in test/browse/forms.test.ts.
import type { ListParams } from '../api/client.js';
import { type PatchRequest, PatchRequestSchema, PlatformSettingsSchema } from '../api/schemas.js';
import type { ContentItem } from '../api/schemas.js';
import {
  CONTENT_TYPES,
  type ContentType,
  LIST_LIMITS,
  STATUSES,
  type Status,
  normalizeHashtags,
} from '../rules/rules.js';

/** Items per page of the grid: the API's default page. */
export const PAGE_SIZE = LIST_LIMITS.defaultLimit;
/** Far enough for any library a person pages through; keeps offset arithmetic small. */
const MAX_PAGE = 100_000;

export interface GridQuery {
  status?: Status;
  type?: ContentType;
  search?: string;
  /** Hashtags the items must all carry (the chips), without `#`. */
  hashtags?: string[];
  /** Created on or after this UTC day (YYYY-MM-DD). */
  from?: string;
  /** Created on or before this UTC day (YYYY-MM-DD), through its end. */
  to?: string;
  /** Uploaded by this key (its name or id). */
  by?: string;
  /** Free text over title, description and hashtags. */
  q?: string;
  /** 1-based. */
  page: number;
}

export type Query = Record<string, string | string[] | undefined>;

function one(q: Query, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[0] : v;
}

function all(q: Query, name: string): string[] {
  const v = q[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

const DAY = /^\d{4}-\d\d-\d\d$/;
const isDay = (text: string) => DAY.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`));

/** The day after a UTC day (YYYY-MM-DD): where "through that day" ends. */
function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The grid's filters as the list's parameters (the same ones `contentlib ls` sends). */
export function listParamsOf(q: GridQuery): ListParams {
  return {
    ...(q.status ? { status: q.status } : {}),
    ...(q.type ? { type: q.type } : {}),
    ...(q.search ? { search: q.search } : {}),
    ...(q.hashtags?.length ? { hashtag: q.hashtags } : {}),
    ...(q.from ? { createdAfter: `${q.from}T00:00:00.000Z` } : {}),
    ...(q.to ? { createdBefore: `${nextDay(q.to)}T00:00:00.000Z` } : {}),
    ...(q.by ? { createdBy: q.by } : {}),
    ...(q.q ? { q: q.q } : {}),
  };
}

/** Whether any filter is set (the page then offers to clear them). */
export function isFiltered(q: GridQuery): boolean {
  return Boolean(q.status || q.type || q.search || q.hashtags?.length || q.from || q.to || q.by || q.q);
}

/** The grid's filters from a query string; a value that is not one of the choices is a problem, not a filter. */
export function parseGridQuery(q: Query): { query: GridQuery; problems: string[] } {
  const problems: string[] = [];
  const query: GridQuery = { page: 1 };
  const status = one(q, 'status') ?? '';
  if ((STATUSES as readonly string[]).includes(status)) query.status = status as Status;
  else if (status !== '') problems.push(`There is no status “${status}”; choose one of ${STATUSES.join(', ')}.`);
  const type = one(q, 'type') ?? '';
  if ((CONTENT_TYPES as readonly string[]).includes(type)) query.type = type as ContentType;
  else if (type !== '') problems.push(`There is no type “${type}”; choose one of ${CONTENT_TYPES.join(', ')}.`);
  const search = (one(q, 'search') ?? '').trim();
  if (search) query.search = search;
  // Every `hashtag` value, the chips' and the field's (which may hold several: "summer, #sale").
  const tags = normalizeHashtags(all(q, 'hashtag').flatMap((t) => t.split(/[\s,]+/)));
  if (tags.length > 20) problems.push('Choose at most 20 hashtags.');
  else if (tags.length > 0) query.hashtags = tags;
  for (const name of ['from', 'to'] as const) {
    const day = (one(q, name) ?? '').trim();
    if (isDay(day)) query[name] = day;
    else if (day !== '') problems.push(`“${day}” is not a date; write it as 2026-11-01.`);
  }
  if (query.from && query.to && query.from > query.to)
    problems.push(`The date range ends (${query.to}) before it starts (${query.from}).`);
  const by = (one(q, 'by') ?? '').trim();
  if (by) query.by = by;
  const text = (one(q, 'q') ?? '').trim();
  if (text) query.q = text;
  const page = one(q, 'page') ?? '';
  if (/^\d{1,6}$/.test(page) && Number(page) >= 1 && Number(page) <= MAX_PAGE) query.page = Number(page);
  else if (page !== '') problems.push(`“${page}” is not a page number; pages start at 1.`);
  return { query, problems };
}

/** The grid's URL for these filters (and page): only what is set, in a fixed order. */
export function gridHref(q: GridQuery, page = q.page): string {
  const params = new URLSearchParams();
  if (q.status) params.set('status', q.status);
  if (q.type) params.set('type', q.type);
  if (q.search) params.set('search', q.search);
  for (const tag of q.hashtags ?? []) params.append('hashtag', tag);
  if (q.from) params.set('from', q.from);
  if (q.to) params.set('to', q.to);
  if (q.by) params.set('by', q.by);
  if (q.q) params.set('q', q.q);
  if (page > 1) params.set('page', String(page));
  const s = params.toString();
  return s ? `/?${s}` : '/';
}

export function itemHref(id: string): string {
  return `/items/${encodeURIComponent(id)}`;
}

/** The edit form as posted (every field is text). */
export interface EditForm {
  title: string;
  description: string;
  hashtags: string;
  status: string;
  platformSettings: string;
}

export interface FieldProblem {
  field: keyof EditForm;
  message: string;
}

/** Hashtags as a person types them in one field: `summer, #sale beach`. */
export function hashtagsOfText(text: string): string[] {
  return normalizeHashtags(text.split(/[\s,]+/));
}

export function hashtagsText(tags: readonly string[] | null | undefined): string {
  return (tags ?? []).map((t) => `#${t}`).join(' ');
}

/** JSON with object keys sorted: two settings objects are the same when these are equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

export function settingsText(settings: Record<string, unknown> | null | undefined): string {
  return JSON.stringify(settings ?? {}, null, 2);
}

function parseSettings(text: string): { value?: Record<string, unknown>; problem?: string } {
  if (text.trim() === '') return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `Platform settings are not valid JSON: ${(err as Error).message}.` };
  }
  const parsed = PlatformSettingsSchema.safeParse(value);
  if (!parsed.success)
    return {
      problem:
        'Platform settings must be a JSON object of platforms, each an object of settings, e.g. {"youtube": {"visibility": "private"}}.',
    };
  return { value: parsed.data };
}

/**
 * The PATCH body for what the form changed against `current` (undefined when nothing did), or
 * the problems that keep it from being sent, each naming its field.
 */
export function patchFromForm(
  form: EditForm,
  current: ContentItem,
): { patch?: PatchRequest; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const body: Record<string, unknown> = {};
  if (form.title !== current.title) body.title = form.title;
  if (form.description !== (current.description ?? '')) body.description = form.description;
  const tags = hashtagsOfText(form.hashtags);
  if (canonical(tags) !== canonical(current.hashtags ?? [])) body.hashtags = tags;
  if (form.status !== current.status) body.status = form.status;
  const settings = parseSettings(form.platformSettings);
  if (settings.problem) problems.push({ field: 'platformSettings', message: settings.problem });
  else if (canonical(settings.value) !== canonical(current.platformSettings ?? {}))
    body.platformSettings = settings.value;
  if (problems.length > 0) return { problems };
  if (Object.keys(body).length === 0) return { problems };
  const checked = PatchRequestSchema.safeParse(body);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = String(issue.path[0] ?? 'title') as keyof EditForm;
      problems.push({ field, message: `${FIELD_NAMES[field] ?? field}: ${issue.message}.` });
    }
    return { problems };
  }
  return { patch: checked.data, problems };
}

export const FIELD_NAMES: Record<keyof EditForm, string> = {
  title: 'Title',
  description: 'Description',
  hashtags: 'Hashtags',
  status: 'Status',
  platformSettings: 'Platform settings',
};

/** The order form of a carousel (pages/item.ts): a whole order (dragged) or one image moved one place. */
export interface OrderForm {
  /** File ids, comma-separated, in the new order (browse.js fills it in after a drop). */
  order: string;
  /** The file id of the image to move, with `to`. */
  move: string;
  to: string;
}

export type OrderChange =
  | { kind: 'order'; fileIds: string[]; moved?: { fileId: string; from: number; to: number } }
  | { kind: 'unchanged' }
  | { kind: 'problem'; message: string };

/**
 * The images' new order from the form, against their ids in the current order. A dragged order
 * goes as it is (the service refuses one that does not match the images it has: 409); a move names
 * an image and a direction.
 */
export function orderFromForm(current: readonly string[], form: OrderForm): OrderChange {
  if (form.move) {
    const from = current.indexOf(form.move);
    if (from < 0) return { kind: 'problem', message: 'That image is not in this carousel any more; look again.' };
    const step = form.to === 'up' ? -1 : form.to === 'down' ? 1 : 0;
    if (step === 0) return { kind: 'problem', message: 'Say which way to move the image: up or down.' };
    const to = from + step;
    if (to < 0 || to >= current.length) return { kind: 'unchanged' };
    const fileIds = [...current];
    [fileIds[from], fileIds[to]] = [fileIds[to]!, fileIds[from]!];
    return { kind: 'order', fileIds, moved: { fileId: form.move, from, to } };
  }
  const fileIds = form.order
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (fileIds.length === 0)
    return { kind: 'problem', message: 'No order was sent; drag an image, or use its Move buttons.' };
  if (fileIds.join(',') === current.join(',')) return { kind: 'unchanged' };
  return { kind: 'order', fileIds };
}
