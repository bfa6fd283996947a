// The pages and forms of the browse server. Each handler asks the library (the CLI's API
// client, so the API key stays in this process) and renders a page; each form posts, then
// redirects to a page that says what happened (post/redirect/get), or shows the form again
// with what was wrong. Every page has a JSON twin (`?format=json`): what the service answered.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api/errors.js';
import type { CarouselFile, ContentItem } from '../api/schemas.js';
import { THUMBNAIL_RULE, TYPE_RULES } from '../rules/rules.js';
import type { Asset } from './assets.js';
import {
  type EditForm,
  PAGE_SIZE,
  type Query,
  itemHref,
  listParamsOf,
  orderFromForm,
  parseGridQuery,
  patchFromForm,
} from './forms.js';
import { mediaOrigin, securityHeaders } from './access-guard.js';
import type { Html } from './html.js';
import type { BrowseOptions } from './options.js';
import { gridMain, gridMediaUrls } from './pages/grid.js';
import {
  confirmMain,
  deletionWords,
  itemMain,
  itemMediaUrls,
  messageMain,
  sortedFiles,
  type ItemView,
} from './pages/item.js';
import { type Flash, page } from './pages/layout.js';
import { FormProblem, receiveFile } from './receive-file.js';

interface RouteDeps extends BrowseOptions {
  assets: Map<string, Asset>;
  /** Aborted when browse stops: requests to the service in flight end with it. */
  signal: AbortSignal;
}

/** Messages for the page after a redirect, kept here (not in the URL, where anyone could write one). */
function flashStore() {
  const kept = new Map<string, Flash>();
  return {
    put(flash: Flash): string {
      const key = randomBytes(9).toString('base64url');
      kept.set(key, flash);
      // A person reads them one at a time; a few hundred unread ones is a tab left reloading.
      if (kept.size > 200) kept.delete(kept.keys().next().value!);
      return key;
    },
    take(key: string | undefined): Flash | undefined {
      if (!key) return undefined;
      const flash = kept.get(key);
      kept.delete(key);
      return flash;
    },
  };
}

/** The status a failed call to the service becomes here: the service's own for what the person can fix, else 502. */
function statusOf(err: unknown): number {
  if (err instanceof FormProblem) return 400;
  if (err instanceof ApiError && [400, 404, 409, 413, 415, 422].includes(err.status)) return err.status;
  return 502;
}

function stringField(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

export function registerRoutes(app: FastifyInstance, d: RouteDeps): void {
  const flashes = flashStore();
  const call = { signal: d.signal };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  // The thumbnail's file streams from the request in its handler (receive-file.ts).
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));

  function send(reply: FastifyReply, status: number, title: string, main: Html, flash?: Flash, media: string[] = []) {
    const origins = media.map(mediaOrigin).filter((o): o is string => o !== undefined);
    return reply
      .code(status)
      .headers(securityHeaders(origins))
      .type('text/html; charset=utf-8')
      .send(page({ title, library: d.libraryName, main, flash }).markup);
  }

  /** `hash`: where on the page to land (an image that moved keeps the keyboard's place). */
  function redirect(reply: FastifyReply, to: string, flash: Flash, hash = '') {
    const sep = to.includes('?') ? '&' : '?';
    return reply
      .code(303)
      .header('Location', `${to}${sep}flash=${flashes.put(flash)}${hash ? `#${hash}` : ''}`)
      .send();
  }

  const failure = (err: unknown): Flash => ({ kind: 'error', text: d.describe(err) });
  const flashOf = (request: FastifyRequest) => flashes.take((request.query as Query).flash as string | undefined);
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const wantsJson = (request: FastifyRequest) => (request.query as Query).format === 'json';

  app.get('/assets/:name', async (request, reply) => {
    const asset = d.assets.get((request.params as { name: string }).name);
    if (!asset) return send(reply, 404, 'Not found', messageMain('Not found', 'There is no such file.'));
    return reply.type(asset.type).header('Cache-Control', 'no-cache').send(asset.body);
  });

  app.get('/', async (request, reply) => {
    const { query, problems } = parseGridQuery(request.query as Query);
    const flash = flashOf(request);
    if (problems.length > 0)
      return send(reply, 400, 'Library', gridMain(query, undefined), { kind: 'error', text: problems.join('\n') });
    try {
      const list = await d.library.list(
        {
          ...listParamsOf(query),
          limit: PAGE_SIZE,
          offset: (query.page - 1) * PAGE_SIZE,
        },
        call,
      );
      if (wantsJson(request)) return reply.send(list);
      const title = query.page > 1 ? `Library, page ${query.page}` : 'Library';
      return send(reply, 200, title, gridMain(query, list), flash, gridMediaUrls(list));
    } catch (err) {
      return send(reply, statusOf(err), 'Library', gridMain(query, undefined), failure(err));
    }
  });

  /** The item page, or the page saying why there is none. */
  async function itemPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    extra: Partial<ItemView> = {},
    flash?: Flash,
  ) {
    let got;
    try {
      got = await d.library.get(idOf(request), call);
    } catch (err) {
      return send(reply, statusOf(err), 'Item', messageMain('This item cannot be shown', d.describe(err)));
    }
    if (wantsJson(request)) return reply.send(got);
    const view: ItemView = { item: got.item, files: got.files, ...extra };
    return send(
      reply,
      status,
      got.item.title || 'Item',
      itemMain(view),
      flash ?? flashOf(request),
      itemMediaUrls(got.item, got.files),
    );
  }

  app.get('/items/:id', (request, reply) => itemPage(request, reply));

  app.post('/items/:id/edit', async (request, reply) => {
    const id = idOf(request);
    const form: EditForm = {
      title: stringField(request.body, 'title'),
      // Browsers send a textarea's line breaks as CR LF; the item holds LF.
      description: stringField(request.body, 'description').replace(/\r\n?/g, '\n'),
      hashtags: stringField(request.body, 'hashtags'),
      status: stringField(request.body, 'status'),
      platformSettings: stringField(request.body, 'platformSettings').replace(/\r\n?/g, '\n'),
    };
    let current: ContentItem;
    try {
      current = (await d.library.get(id, call)).item;
    } catch (err) {
      return send(reply, statusOf(err), 'Item', messageMain('This item cannot be changed', d.describe(err)));
    }
    const { patch, problems } = patchFromForm(form, current);
    if (problems.length > 0)
      return itemPage(
        request,
        reply,
        400,
        { form, problems },
        {
          kind: 'error',
          text: 'Nothing was saved: fix what is marked below, then save again.',
        },
      );
    if (!patch) return redirect(reply, itemHref(id), { kind: 'ok', text: 'Nothing to save: no field was changed.' });
    try {
      await d.library.patch(id, patch, call);
    } catch (err) {
      return itemPage(request, reply, statusOf(err), { form }, failure(err));
    }
    const fields = Object.keys(patch).join(', ');
    return redirect(reply, itemHref(id), { kind: 'ok', text: `Saved (${fields}).` });
  });

  app.post('/items/:id/thumbnail', async (request, reply) => {
    const id = idOf(request);
    try {
      const file = await receiveFile(request.raw, request.headers, {
        field: 'thumbnail',
        maxBytes: THUMBNAIL_RULE.maxBytes,
        what: 'an image file',
      });
      try {
        await d.setThumbnail(id, file.path, file.name, d.signal);
      } finally {
        await file.dispose();
      }
      return redirect(reply, itemHref(id), { kind: 'ok', text: `The thumbnail is now ${file.name}.` });
    } catch (err) {
      return redirect(
        reply,
        itemHref(id),
        err instanceof FormProblem ? { kind: 'error', text: err.message } : failure(err),
      );
    }
  });

  // A carousel's images (issue 39, part 4): the endpoints `contentlib edit` uses, posted from the
  // item page's forms (and browse.js's drag and drop) under the guard every change passes.
  const fileIdOf = (request: FastifyRequest) => (request.params as { fileId: string }).fileId;
  const nameOf = (files: readonly CarouselFile[], fileId: string) => {
    const i = files.findIndex((f) => f.id === fileId);
    return `image ${i + 1} (${files[i]?.fileName ?? fileId})`;
  };

  app.post('/items/:id/order', async (request, reply) => {
    const id = idOf(request);
    const form = {
      order: stringField(request.body, 'order'),
      move: stringField(request.body, 'move'),
      to: stringField(request.body, 'to'),
    };
    try {
      const files = sortedFiles((await d.library.get(id, call)).files);
      const change = orderFromForm(
        files.map((f) => f.id),
        form,
      );
      if (change.kind === 'problem') return redirect(reply, itemHref(id), { kind: 'error', text: change.message });
      if (change.kind === 'unchanged')
        return redirect(reply, itemHref(id), { kind: 'ok', text: 'The images are already in that order.' });
      await d.library.reorderImages(id, change.fileIds, call);
      const moved = change.moved;
      const text = moved
        ? `Moved ${nameOf(files, moved.fileId)} to position ${moved.to + 1} of ${files.length}.`
        : `The images are now in the order ${change.fileIds.map((fid) => files.findIndex((f) => f.id === fid) + 1).join(', ')} (old positions).`;
      return redirect(reply, itemHref(id), { kind: 'ok', text }, moved ? `slide-${moved.fileId}` : 'images');
    } catch (err) {
      return redirect(reply, itemHref(id), failure(err));
    }
  });

  app.post('/items/:id/files/:fileId/remove', async (request, reply) => {
    const id = idOf(request);
    const fileId = fileIdOf(request);
    try {
      const files = sortedFiles((await d.library.get(id, call)).files);
      await d.library.removeImage(id, fileId, call);
      return redirect(reply, itemHref(id), { kind: 'ok', text: `Removed ${nameOf(files, fileId)}.` }, 'images');
    } catch (err) {
      return redirect(reply, itemHref(id), failure(err));
    }
  });

  app.post('/items/:id/files/:fileId/replace', async (request, reply) => {
    const id = idOf(request);
    const fileId = fileIdOf(request);
    try {
      const files = sortedFiles((await d.library.get(id, call)).files);
      const file = await receiveFile(request.raw, request.headers, {
        field: 'image',
        maxBytes: TYPE_RULES.carousel.maxBytes,
        what: 'an image file',
      });
      try {
        await d.replaceImage(id, fileId, file.path, file.name, d.signal);
      } finally {
        await file.dispose();
      }
      const position = files.findIndex((f) => f.id === fileId) + 1;
      return redirect(
        reply,
        itemHref(id),
        { kind: 'ok', text: `Replaced ${nameOf(files, fileId)} with ${file.name}.` },
        position > 0 ? 'images' : '',
      );
    } catch (err) {
      return redirect(
        reply,
        itemHref(id),
        err instanceof FormProblem ? { kind: 'error', text: err.message } : failure(err),
      );
    }
  });

  app.get('/items/:id/delete', async (request, reply) => {
    try {
      const { item } = await d.library.get(idOf(request), call);
      return send(reply, 200, `Delete ${item.title || 'item'}?`, confirmMain(item), flashOf(request));
    } catch (err) {
      return send(reply, statusOf(err), 'Delete', messageMain('This item cannot be deleted', d.describe(err)));
    }
  });

  app.post('/items/:id/delete', async (request, reply) => {
    const id = idOf(request);
    let item: ContentItem;
    try {
      item = (await d.library.get(id, call)).item;
    } catch (err) {
      return send(reply, statusOf(err), 'Delete', messageMain('This item cannot be deleted', d.describe(err)));
    }
    // The confirmation page's button sends the id back: a post without it deletes nothing.
    if (stringField(request.body, 'confirm') !== id)
      return send(reply, 400, `Delete ${item.title || 'item'}?`, confirmMain(item), {
        kind: 'error',
        text: 'Nothing was deleted: confirm with the button below.',
      });
    try {
      await d.library.remove(id, call);
    } catch (err) {
      return send(reply, statusOf(err), `Delete ${item.title || 'item'}?`, confirmMain(item), failure(err));
    }
    const words = deletionWords(item);
    return redirect(reply, '/', { kind: 'ok', text: `Deleted ${words}.` });
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, 404, 'Not found', messageMain('Not found', `There is no page ${request.url.split('?')[0]} here.`)),
  );
  app.setErrorHandler((err: Error & { statusCode?: number }, _request, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    const text = status < 500 ? `The request could not be read: ${err.message}.` : d.describe(err);
    return send(reply, status, 'Error', messageMain('Something went wrong', text));
  });
}
