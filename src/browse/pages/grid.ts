// The library as a grid, newest first: the list's filters (status, type, title search, hashtag
// chips, a created date range, the uploader, free text; all in the page's URL, so a search can be
// shared), one page of the API's list with the searched words marked in titles, and links to the
// newer and older pages. Thumbnails load lazily (the
// browser's loading="lazy"), so a page costs the same at page 50 as at page 1: one list request
// and the images in view.
import type { ContentItem, ListResponse } from '../../api/schemas.js';
import { CONTENT_TYPES, STATUSES } from '../../rules/rules.js';
import { type GridQuery, gridHref, isFiltered, itemHref } from '../forms.js';
import { Html, escapeHtml, html, safeMediaUrl } from '../html.js';
import { platformBadges } from './badges.js';
import { formatWhen, isVideoType } from './format.js';
import { LEFT_ARROW, MIDDOT, RIGHT_ARROW, TIMES } from '../chars.js';

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

/** The words a person searched for: the free text's words and "phrases", and the title search. */
export function searchedTerms(q: GridQuery): string[] {
  const terms: string[] = [];
  const text = q.q ?? '';
  for (const m of text.matchAll(/"([^"]+)"|(\S+)/g)) {
    const term = (m[1] ?? m[2] ?? '').replace(/^#/, '').trim();
    if (term) terms.push(term);
  }
  if (q.search) terms.push(q.search);
  // Longest first: a phrase is marked whole rather than word by word.
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

/** The text with every searched term in it marked (<mark>), case-insensitive; escaped like any text. */
export function highlight(text: string, terms: readonly string[]): Html {
  if (terms.length === 0 || text === '') return html`${text}`;
  const pattern = new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  let out = '';
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0] === '') continue;
    out += escapeHtml(text.slice(at, m.index)) + `<mark>${escapeHtml(m[0])}</mark>`;
    at = m.index + m[0].length;
  }
  return new Html(out + escapeHtml(text.slice(at)));
}

function card(item: ContentItem, terms: readonly string[]): Html {
  const src = cardImageUrl(item);
  const frame = cardVideoUrl(item);
  const picture = src
    ? html`<img src="${src}" alt="" loading="lazy" decoding="async" width="320" height="320" />`
    : frame
      ? html`<video src="${frame}" preload="metadata" muted playsinline tabindex="-1" aria-hidden="true"></video>`
      : html`<span class="no-picture" aria-hidden="true">${isVideoType(item.type) ? '▶' : '▦'}</span>`;
  const count = item.type === 'carousel' && item.fileCount ? html` ${MIDDOT} ${item.fileCount} images` : '';
  return html`<li class="card" data-id="${item.id}">
    <a class="card-link" href="${itemHref(item.id)}">
      <span class="thumb">${picture}</span>
      <span class="card-title">${item.title ? highlight(item.title, terms) : '(untitled)'}</span>
    </a>
    <span class="card-meta"
      ><span class="badge">${item.type}</span>${count}
      <span class="badge status status-${item.status}">${item.status}</span>${platformBadges(item)}
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

/** The chosen hashtags: each a chip that keeps it in the form and a link that removes it. */
function chips(q: GridQuery): Html {
  const tags = q.hashtags ?? [];
  if (tags.length === 0) return html``;
  return html`<ul class="chips" aria-label="Hashtags the items must all carry">
    ${tags.map(
      (tag) =>
        html`<li class="chip">
          <input type="hidden" name="hashtag" value="${tag}" />#${tag}
          <a
            href="${gridHref({ ...q, hashtags: tags.filter((t) => t !== tag) }, 1)}"
            aria-label="${`Remove hashtag #${tag}`}"
            title="Remove"
            >${TIMES}</a
          >
        </li>`,
    )}
  </ul>`;
}

function filters(q: GridQuery): Html {
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter the library">
    ${choice('status', 'Status', STATUSES, q.status)} ${choice('type', 'Type', CONTENT_TYPES, q.type)}
    <label
      >Title contains <input type="search" name="search" value="${q.search ?? ''}" maxlength="300" autocomplete="off"
    /></label>
    <label
      >Words
      <input
        type="search"
        name="q"
        value="${q.q ?? ''}"
        maxlength="500"
        autocomplete="off"
        placeholder="title, description, hashtags"
    /></label>
    ${chips(q)}
    <label
      >Hashtag <input type="text" name="hashtag" value="" maxlength="101" autocomplete="off" placeholder="#summersale"
    /></label>
    <label>Created from <input type="date" name="from" value="${q.from ?? ''}" /></label>
    <label>Created to <input type="date" name="to" value="${q.to ?? ''}" /></label>
    <label
      >Uploaded by
      <input
        type="text"
        name="by"
        value="${q.by ?? ''}"
        maxlength="100"
        autocomplete="off"
        placeholder="key name or id"
    /></label>
    <button type="submit">Filter</button>
    ${isFiltered(q) ? html`<a href="/">Clear filters</a>` : ''}
  </form>`;
}

function pager(q: GridQuery, hasMore: boolean): Html {
  if (q.page === 1 && !hasMore) return html``;
  return html`<nav class="pager" aria-label="Pages">
    ${q.page > 1 ? html`<a href="${gridHref(q, q.page - 1)}" rel="prev">${LEFT_ARROW} Newer</a>` : html`<span></span>`}
    <span>Page ${q.page}</span>
    ${hasMore ? html`<a href="${gridHref(q, q.page + 1)}" rel="next">Older ${RIGHT_ARROW}</a>` : html`<span></span>`}
  </nav>`;
}

function empty(q: GridQuery): Html {
  if (q.page > 1)
    return html`<p class="empty">No items on this page. <a href="${gridHref(q, 1)}">Back to the first page</a>.</p>`;
  if (isFiltered(q)) return html`<p class="empty">No item matches these filters.</p>`;
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
          ${list.items.map((item) => card(item, searchedTerms(q)))}
        </ul>`;
  return html`${heading}${filters(q)}${body}${pager(q, list.hasMore)}`;
}

/** The origins of the pictures the grid shows (for the page's CSP). */
export function gridMediaUrls(list: ListResponse | undefined): string[] {
  return (list?.items ?? [])
    .flatMap((item) => [cardImageUrl(item), cardVideoUrl(item)])
    .filter((u): u is string => u !== undefined);
}
