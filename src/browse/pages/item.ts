// One item: its media (a video that plays and seeks; a carousel's images in sortOrder with their
// positions), every field the service sent (fields this page does not know included, so a
// service's additions — checksums, who created or changed the item — show without a change
// here), the forms a support agent needs (metadata, thumbnail) and the way to delete it.
//
// A carousel is an <ol> of <li data-file-id data-sort-order>, each with its `.file-actions`:
// move up/down, remove, replace (browse.js adds drag and drop over the same order form).
import { orderedFields } from '../../api/item-fields.js';
import type { CarouselFile, ContentItem } from '../../api/schemas.js';
import { STATUSES, THUMBNAIL_RULE } from '../../rules/rules.js';
import { type EditForm, FIELD_NAMES, type FieldProblem, hashtagsText, itemHref, settingsText } from '../forms.js';
import { type Child, type Html, html, safeMediaUrl } from '../html.js';
import { platformBadges } from './badges.js';
import { mediaFacts } from './facts.js';
import { formatDuration, formatSize, formatWhen, isVideoType } from './format.js';
import { DOWN_ARROW, ELLIPSIS, EM_DASH, MIDDOT, SINGLE_RIGHT_QUOTE, UP_ARROW } from '../chars.js';

/** Shown in sections of their own. */
// `media` has its own section (./facts.ts), in words.
const ELSEWHERE = new Set(['platformSettings', 'files', 'media']);

/**
 * What a person calls each field the page shows; the API's own names stay in the page's JSON twin
 * (`?format=json`) and in each value's `data-field`. A field not listed (a service's addition)
 * shows under its API name.
 */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  id: 'ID',
  type: 'Type',
  title: 'Title',
  status: 'Status',
  description: 'Description',
  hashtags: 'Hashtags',
  createdAt: 'Uploaded',
  createdBy: 'Uploaded by',
  updatedAt: 'Updated',
  updatedBy: 'Updated by',
  durationSeconds: 'Duration',
  fileSize: 'Size',
  fileName: 'File name',
  contentType: 'Format',
  sha256: 'Checksum (SHA-256)',
  fileCount: 'Files',
  fileUrl: 'File',
  thumbnailUrl: 'Thumbnail',
  thumbnailSha256: 'Thumbnail checksum (SHA-256)',
  posterUrl: 'Poster',
  previewUrl: 'Preview',
  width: 'Width',
  height: 'Height',
  resolution: 'Resolution',
};

export function fieldLabel(key: string): string {
  return FIELD_LABELS[key] ?? key;
}

export function sortedFiles(files: readonly CarouselFile[]): CarouselFile[] {
  return [...files].sort((a, b) => a.sortOrder - b.sortOrder);
}

/** Who made a change (the audit extension's createdBy/updatedBy): the key's name, or its id, and when. */
function author(a: Record<string, unknown>): Child {
  const who =
    typeof a.keyName === 'string' && a.keyName
      ? a.keyName
      : typeof a.keyId === 'string'
        ? `key ${a.keyId}`
        : 'a key since removed';
  const at = typeof a.at === 'string' ? html` ${MIDDOT} <time datetime="${a.at}">${formatWhen(a.at)}</time>` : '';
  return html`${who}${at}`;
}

function fieldValue(key: string, v: unknown): Child {
  if (v === null || v === undefined || v === '') return html`<span class="none">${EM_DASH}</span>`;
  if (key === 'hashtags' && Array.isArray(v))
    return v.length ? hashtagsText(v.map(String)) : html`<span class="none">${EM_DASH}</span>`;
  if ((key === 'createdAt' || key === 'updatedAt') && typeof v === 'string')
    return html`<time datetime="${v}">${formatWhen(v)}</time>`;
  if ((key === 'createdBy' || key === 'updatedBy') && typeof v === 'object')
    return author(v as Record<string, unknown>);
  if (key === 'fileSize' && typeof v === 'number') return formatSize(v);
  if (key === 'durationSeconds' && typeof v === 'number') return formatDuration(v);
  if (/Url$/.test(key) && typeof v === 'string') {
    const url = safeMediaUrl(v);
    return url ? html`<a href="${url}">open</a> <span class="hint">(signed; valid for a limited time)</span>` : v;
  }
  if (key === 'sha256' || key === 'thumbnailSha256' || key === 'id') return html`<code>${String(v)}</code>`;
  if (typeof v === 'string') return v;
  return html`<code>${JSON.stringify(v)}</code>`;
}

function fieldsList(item: ContentItem): Html {
  const rec = item as Record<string, unknown>;
  const keys = orderedFields(Object.keys(rec), ELSEWHERE);
  return html`<dl class="fields">
    ${keys.map(
      (k) =>
        html`<dt>${fieldLabel(k)}</dt>
          <dd data-field="${k}">${fieldValue(k, rec[k])}</dd>`,
    )}
  </dl>`;
}

function media(item: ContentItem, files: readonly CarouselFile[]): Html {
  if (item.type === 'carousel') return carousel(item, files);
  const src = safeMediaUrl(item.fileUrl);
  if (!src) return html`<p class="none">The service gave no file URL for this item.</p>`;
  if (isVideoType(item.type) || item.contentType?.startsWith('video/')) {
    // Shown until play: the thumbnail someone chose, else the server's poster frame (issue 39).
    const poster = safeMediaUrl(item.thumbnailUrl) ?? safeMediaUrl(item.posterUrl);
    return html`<video
      class="player"
      controls
      preload="metadata"
      playsinline
      src="${src}"
      ${poster ? html` poster="${poster}"` : ''}
    >
      <a href="${src}">Download the video</a>
    </video>`;
  }
  return html`<img class="picture" src="${src}" alt="${item.title}" />`;
}

function carousel(item: ContentItem, files: readonly CarouselFile[]): Html {
  const sorted = sortedFiles(files);
  if (sorted.length === 0) return html`<p class="none">The service listed no images for this carousel.</p>`;
  const n = sorted.length;
  return html`<ol class="carousel" id="images" aria-label="Images of the carousel, in order" data-item-id="${item.id}">
      ${sorted.map((f, i) => {
        // The small preview when the server made one (issue 39), linking to the image itself.
        const full = safeMediaUrl(f.fileUrl);
        const src = safeMediaUrl(f.previewUrl) ?? full;
        const name = f.fileName ?? f.fileKey;
        const img = src
          ? html`<img src="${src}" alt="Image ${i + 1} of ${n}: ${name}" loading="lazy" decoding="async" />`
          : html`<span class="no-picture">no URL</span>`;
        const picture = full && src !== full ? html`<a href="${full}">${img}</a>` : img;
        return html`<li
          class="slide"
          id="slide-${f.id}"
          tabindex="-1"
          data-file-id="${f.id}"
          data-sort-order="${f.sortOrder}"
        >
          <figure>
            ${picture}
            <figcaption><span class="position">${i + 1} of ${n}</span> ${name}</figcaption>
          </figure>
          <div class="file-actions">${imageActions(item, f, i, n, name)}</div>
        </li>`;
      })}
    </ol>
    <form id="order-form" class="order-form" method="post" action="${itemHref(item.id)}/order">
      <input type="hidden" name="order" value="${sorted.map((f) => f.id).join(',')}" />
    </form>
    <p class="hint drag-hint" hidden>Drag an image to another place to reorder, or use its Move buttons.</p>
    <p id="order-status" class="visually-hidden" aria-live="polite"></p>`;
}

/**
 * An image's controls, plain forms that work without script (browse.js adds dragging): move it
 * up or down, remove it, or put another image in its place. They post to browse, which calls the
 * same endpoints as `contentlib edit` (docs/api.md, Carousel images), under the same guard as
 * every change (src/browse/access-guard.ts).
 */
function imageActions(item: ContentItem, f: CarouselFile, i: number, n: number, name: string): Html {
  const base = `${itemHref(item.id)}/files/${encodeURIComponent(f.id)}`;
  const which = `image ${i + 1} (${name})`;
  const accept = 'image/jpeg,image/png,image/webp';
  return html`<form class="move" method="post" action="${itemHref(item.id)}/order">
      <input type="hidden" name="move" value="${f.id}" />
      <button type="submit" name="to" value="up" aria-label="Move ${which} up" ${i === 0 ? html` disabled` : ''}>
        ${UP_ARROW} Up
      </button>
      <button
        type="submit"
        name="to"
        value="down"
        aria-label="Move ${which} down"
        ${i === n - 1 ? html` disabled` : ''}
      >
        ${DOWN_ARROW} Down
      </button>
    </form>
    <form class="remove" method="post" action="${base}/remove">
      <button type="submit" class="danger" aria-label="Remove ${which}">Remove</button>
    </form>
    <form class="replace" method="post" action="${base}/replace" enctype="multipart/form-data">
      <label for="replace-${f.id}">Replace ${which} with</label>
      <input id="replace-${f.id}" type="file" name="image" accept="${accept}" required />
      <button type="submit">Replace</button>
    </form>`;
}

/** A long hex value shortened for the table; the whole of it in `title` and for copying. */
function shortHex(v: unknown): Html {
  if (typeof v !== 'string' || v === '') return html`<span class="none">${EM_DASH}</span>`;
  return html`<code class="hex" title="${v}">${v.length > 12 ? `${v.slice(0, 12)}…` : v}</code>`;
}

function filesTable(files: readonly CarouselFile[]): Html {
  if (files.length === 0) return html``;
  const sorted = sortedFiles(files);
  const known = new Set([
    'id',
    'fileKey',
    'sortOrder',
    'fileUrl',
    'fileName',
    'contentType',
    'fileSize',
    'sha256',
    'previewUrl',
  ]);
  const hasSha = sorted.some((f) => (f as Record<string, unknown>).sha256 !== undefined);
  const extra = [...new Set(sorted.flatMap((f) => Object.keys(f).filter((k) => !known.has(k))))].sort();
  // Short headers, one line each (no "Posit ion" at 1280 px); below 40rem each row becomes a
  // block whose cells say their header (browse.css, `data-label`).
  const cell = (label: string, content: Child) => html`<td data-label="${label}">${content}</td>`;
  return html`<section aria-labelledby="files-h">
    <h2 id="files-h">Files (${sorted.length})</h2>
    <div class="table-wrap">
      <table class="files">
        <thead>
          <tr>
            <th scope="col"><abbr title="Position, from 1 (sortOrder + 1)">#</abbr></th>
            <th scope="col">Name</th>
            <th scope="col">Format</th>
            <th scope="col">Size</th>
            ${hasSha ? html`<th scope="col">SHA-256</th>` : ''}${extra.map(
              (k) => html`<th scope="col">${fieldLabel(k)}</th>`,
            )}
            <th scope="col">Key</th>
            <th scope="col">Link</th>
          </tr>
        </thead>
        <tbody>
          ${sorted.map((f, i) => {
            const rec = f as Record<string, unknown>;
            const src = safeMediaUrl(f.fileUrl);
            return html`<tr data-sort-order="${f.sortOrder}">
              ${cell('#', String(i + 1))} ${cell('Name', html`<span class="name">${f.fileName ?? '—'}</span>`)}
              ${cell('Format', f.contentType ?? '—')}
              ${cell('Size', typeof f.fileSize === 'number' ? formatSize(f.fileSize) : '—')}
              ${hasSha ? cell('SHA-256', shortHex(rec.sha256)) : ''}${extra.map((k) =>
                cell(fieldLabel(k), fieldValue(k, rec[k])),
              )}
              ${cell('Key', html`<code class="key" title="${f.fileKey}">${f.fileKey}</code>`)}
              ${cell('Link', src ? html`<a href="${src}">open</a>` : '—')}
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </section>`;
}

/** What the bytes say (./facts.ts); no section while there is nothing to say. */
function factsSection(item: ContentItem, files: readonly CarouselFile[]): Html {
  const rows = mediaFacts(item, files);
  if (String(rows).trim() === '') return html``;
  return html`<section aria-labelledby="facts-h">
    <h2 id="facts-h">Media</h2>
    <dl class="fields facts">${rows}</dl>
  </section>`;
}

function settingsBlock(item: ContentItem): Html {
  const settings = item.platformSettings ?? {};
  return html`<section aria-labelledby="settings-h">
    <h2 id="settings-h">Platform settings</h2>
    ${Object.keys(settings).length === 0 ? html`<p class="none">None.</p>` : html`<pre class="json">${settingsText(settings)}</pre>`}
  </section>`;
}

/** The edit form's values: what the person typed (after a refused save), else the item's. */
export function formOf(item: ContentItem): EditForm {
  return {
    title: item.title,
    description: item.description ?? '',
    hashtags: hashtagsText(item.hashtags),
    status: item.status,
    platformSettings: settingsText(item.platformSettings),
  };
}

function problemFor(problems: readonly FieldProblem[], field: keyof EditForm): Html {
  const mine = problems.filter((p) => p.field === field);
  if (mine.length === 0) return html``;
  return html`<p class="field-problem" id="${field}-problem">${mine.map((p) => p.message).join(' ')}</p>`;
}

function described(problems: readonly FieldProblem[], field: keyof EditForm): Html {
  return problems.some((p) => p.field === field)
    ? html` aria-invalid="true" aria-describedby="${field}-problem"`
    : html``;
}

function editForm(item: ContentItem, form: EditForm, problems: readonly FieldProblem[]): Html {
  const action = `${itemHref(item.id)}/edit`;
  return html`<section aria-labelledby="edit-h">
    <h2 id="edit-h">Edit</h2>
    <form class="edit" method="post" action="${action}">
      <label for="f-title">${FIELD_NAMES.title}</label>
      <input id="f-title" name="title" value="${form.title}" maxlength="300" ${described(problems, 'title')} />
      ${problemFor(problems, 'title')}
      <label for="f-description">${FIELD_NAMES.description}</label>
      <textarea id="f-description" name="description" rows="4" maxlength="5000" ${described(problems, 'description')}>
${form.description}</textarea>
      ${problemFor(problems, 'description')}
      <label for="f-hashtags">${FIELD_NAMES.hashtags} <span class="hint">(words, e.g. #summer #sale)</span></label>
      <input id="f-hashtags" name="hashtags" value="${form.hashtags}" ${described(problems, 'hashtags')} />
      ${problemFor(problems, 'hashtags')}
      <label for="f-status">${FIELD_NAMES.status}</label>
      <select id="f-status" name="status" ${described(problems, 'status')}>
        ${STATUSES.map((s) => html`<option value="${s}" ${s === form.status ? html` selected` : ''}>${s}</option>`)}
      </select>
      ${problemFor(problems, 'status')}
      <label for="f-settings">${FIELD_NAMES.platformSettings} <span class="hint">(JSON)</span></label>
      <textarea
        id="f-settings"
        class="code"
        name="platformSettings"
        rows="6"
        spellcheck="false"
        ${described(problems, 'platformSettings')}
      >
${form.platformSettings}</textarea>
      ${problemFor(problems, 'platformSettings')}
      <div class="actions"><button type="submit">Save changes</button></div>
    </form>
  </section>`;
}

function thumbnailForm(item: ContentItem): Html {
  const accept = THUMBNAIL_RULE.formats.map((f) => `image/${f}`).join(',');
  return html`<section aria-labelledby="thumb-h">
    <h2 id="thumb-h">Thumbnail</h2>
    <form class="thumbnail" method="post" action="${itemHref(item.id)}/thumbnail" enctype="multipart/form-data">
      <label for="f-thumb">Image file <span class="hint">(JPEG, PNG or WebP, at most 20 MB)</span></label>
      <input id="f-thumb" type="file" name="thumbnail" accept="${accept}" required />
      <div class="actions"><button type="submit">Set thumbnail</button></div>
    </form>
  </section>`;
}

export interface ItemView {
  item: ContentItem;
  files: readonly CarouselFile[];
  form?: EditForm;
  problems?: readonly FieldProblem[];
}

export function itemMain(v: ItemView): Html {
  const { item, files } = v;
  return html`<nav class="crumbs" aria-label="Breadcrumb">
      <a href="/">Library</a> ${SINGLE_RIGHT_QUOTE} <span>${item.type}</span>
    </nav>
    <h1>${item.title || '(untitled)'}</h1>
    <p class="badges">
      <span class="badge">${item.type}</span> <span class="badge status status-${item.status}">${item.status}</span>
      ${platformBadges(item, files)}
    </p>
    <section class="media" aria-label="Media">${media(item, files)}</section>
    <div class="columns">
      <div>
        ${factsSection(item, files)}
        <section aria-labelledby="fields-h">
          <h2 id="fields-h">Fields</h2>
          ${fieldsList(item)}
        </section>
        ${settingsBlock(item)}
      </div>
      <div>
        ${editForm(item, v.form ?? formOf(item), v.problems ?? [])} ${thumbnailForm(item)}
        <section aria-labelledby="delete-h">
          <h2 id="delete-h">Delete</h2>
          <p><a class="danger-link" href="${itemHref(item.id)}/delete">Delete this item${ELLIPSIS}</a></p>
        </section>
      </div>
    </div>
    ${filesTable(files)}`;
}

/** Every library URL the item page shows (for the page's CSP). */
export function itemMediaUrls(item: ContentItem, files: readonly CarouselFile[]): string[] {
  return [
    item.fileUrl,
    item.thumbnailUrl,
    item.posterUrl,
    item.previewUrl,
    ...files.flatMap((f) => [f.fileUrl, f.previewUrl]),
  ]
    .map((u) => safeMediaUrl(u))
    .filter((u): u is string => u !== undefined);
}

/** What a deletion takes with it, in words: `the carousel “Summer” and its 3 images`. */
export function deletionWords(item: ContentItem): string {
  const title = item.title ? `“${item.title}”` : '(untitled)';
  if (item.type === 'carousel') return `the carousel ${title} and its ${item.fileCount ?? 'all'} images`;
  return `the ${item.type} video ${title}`;
}

export function confirmMain(item: ContentItem): Html {
  return html`<nav class="crumbs" aria-label="Breadcrumb">
      <a href="/">Library</a> ${SINGLE_RIGHT_QUOTE} <a href="${itemHref(item.id)}">${item.title || '(untitled)'}</a>
    </nav>
    <h1>Delete ${item.title ? `“${item.title}”` : 'this item'}?</h1>
    <p>
      This deletes ${deletionWords(item)} (id <code>${item.id}</code>) for good, files included. It cannot be undone.
    </p>
    <form class="confirm" method="post" action="${itemHref(item.id)}/delete">
      <input type="hidden" name="confirm" value="${item.id}" />
      <div class="actions">
        <button type="submit" class="danger">Delete ${item.title ? `“${item.title}”` : 'this item'}</button>
        <a href="${itemHref(item.id)}">Cancel</a>
      </div>
    </form>`;
}

export function messageMain(title: string, text: string): Html {
  return html`<h1>${title}</h1>
    ${text.split('\n').map((line) => html`<p>${line}</p>`)}
    <p><a href="/">Back to the library</a></p>`;
}
