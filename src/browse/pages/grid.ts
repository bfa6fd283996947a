// The library as a grid, newest first: the list's filters (status, type, title search), one page
// of the API's list, and links to the newer and older pages. Thumbnails load lazily (the
// browser's loading="lazy"), so a page costs the same at page 50 as at page 1: one list request
// and the images in view.
import type { ContentItem, ListResponse } from '../../api/schemas.js';
import { CONTENT_TYPES, STATUSES } from '../../rules/rules.js';
import { type GridQuery, gridHref, itemHref } from '../forms.js';
import { type Html, html, safeMediaUrl } from '../html.js';
import { formatWhen, isVideoType } from './format.js';

/**
 * The picture of a card, the smallest there is (issue 39: ≤ 60 KB a card): the server's poster of
 * a video (its thumbnail made small when it has one, else a frame) or preview of a carousel's
 * first image; else the thumbnail itself (a poster not made yet), else a carousel's first image
 * (services that make no previews).
 */
export function cardImageUrl(item: ContentItem): string | undefined {
  return (
    safeMediaUrl(item.posterUrl) ??
    safeMediaUrl(item.previewUrl) ??
    safeMediaUrl(item.thumbnailUrl) ??
    (item.type === 'carousel' ? safeMediaUrl(item.fileUrl) : undefined)
  );
}

/**
 * A video card without a picture (a server without ffmpeg, or a poster not made yet) shows a
 * frame of the video itself: the browser fetches its index and the frame at 1 s (docs/deploy.md,
 * Posters and previews).
 */
export function cardVideoUrl(item: ContentItem): string | undefined {
  if (!isVideoType(item.type) || cardImageUrl(item)) return undefined;
  const src = safeMediaUrl(item.fileUrl);
  return src ? `${src}#t=1` : undefined;
}

function card(item: ContentItem): Html {
  const src = cardImageUrl(item);
  const frame = cardVideoUrl(item);
  const picture = src
    ? html`<img src="${src}" alt="" loading="lazy" decoding="async" width="320" height="320" />`
    : frame
      ? html`<video src="${frame}" preload="metadata" muted playsinline tabindex="-1" aria-hidden="true"></video>`
      : html`<span class="no-picture" aria-hidden="true">${isVideoType(item.type) ? '▶' : '▦'}</span>`;
  const count = item.type === 'carousel' && item.fileCount ? html` · ${item.fileCount} images` : '';
  return html`<li class="card" data-id="${item.id}">
    <a class="card-link" href="${itemHref(item.id)}">
      <span class="thumb">${picture}</span>
      <span class="card-title">${item.title || '(untitled)'}</span>
    </a>
    <span class="card-meta"
      ><span class="badge">${item.type}</span>${count}
      <span class="badge status status-${item.status}">${item.status}</span>
      <time datetime="${item.createdAt}">${formatWhen(item.createdAt)}</time></span
    >
  </li>`;
}

function choice(name: string, label: string, values: readonly string[], selected: string | undefined): Html {
  return html`<label
    >${label}
    <select name="${name}">
      <option value="">any</option>
      ${values.map((v) => html`<option value="${v}" ${v === selected ? html` selected` : ''}>${v}</option>`)}
    </select></label
  >`;
}

function filters(q: GridQuery): Html {
  const filtered = q.status || q.type || q.search;
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter the library">
    ${choice('status', 'Status', STATUSES, q.status)} ${choice('type', 'Type', CONTENT_TYPES, q.type)}
    <label
      >Title contains <input type="search" name="search" value="${q.search ?? ''}" maxlength="300" autocomplete="off"
    /></label>
    <button type="submit">Filter</button>
    ${filtered ? html`<a href="/">Clear filters</a>` : ''}
  </form>`;
}

function pager(q: GridQuery, hasMore: boolean): Html {
  if (q.page === 1 && !hasMore) return html``;
  return html`<nav class="pager" aria-label="Pages">
    ${q.page > 1 ? html`<a href="${gridHref(q, q.page - 1)}" rel="prev">← Newer</a>` : html`<span></span>`}
    <span>Page ${q.page}</span>
    ${hasMore ? html`<a href="${gridHref(q, q.page + 1)}" rel="next">Older →</a>` : html`<span></span>`}
  </nav>`;
}

function empty(q: GridQuery): Html {
  if (q.page > 1)
    return html`<p class="empty">No items on this page. <a href="${gridHref(q, 1)}">Back to the first page</a>.</p>`;
  if (q.status || q.type || q.search) return html`<p class="empty">No item matches these filters.</p>`;
  return html`<p class="empty">The library is empty. Add media with <code>contentlib upload</code>.</p>`;
}

/** The grid page's main part; `list` is undefined when the service could not be asked (the message says why). */
export function gridMain(q: GridQuery, list: ListResponse | undefined): Html {
  const heading = html`<h1>Library</h1>`;
  if (!list) return html`${heading}${filters(q)}`;
  const body =
    list.items.length === 0
      ? empty(q)
      : html`<ul class="grid" aria-label="Items, newest first">
          ${list.items.map(card)}
        </ul>`;
  return html`${heading}${filters(q)}${body}${pager(q, list.hasMore)}`;
}

/** The origins of the pictures the grid shows (for the page's CSP). */
export function gridMediaUrls(list: ListResponse | undefined): string[] {
  return (list?.items ?? [])
    .flatMap((item) => [cardImageUrl(item), cardVideoUrl(item)])
    .filter((u): u is string => u !== undefined);
}
