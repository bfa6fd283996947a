// A carousel's images after upload (an extension, docs/api.md, Carousel images): reorder them,
// remove one, replace one. Each change is one transaction on the item's locked row
// (src/server/repo/carousel.ts); a replace is the completion of a new upload into the image's
// place, with every check complete makes (../complete-upload.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type CarouselResponse,
  ReorderRequestSchema,
  ReplaceImageRequestSchema,
  type ReplaceImageResponse,
} from '../../api/schemas.js';
import { TYPE_RULES } from '../../rules/rules.js';
import { actorOf } from '../auth.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest } from '../errors.js';
import { presentFile, presentOne, urlSigner } from '../present.js';
import type { CarouselChange, CarouselResult } from '../repo/carousel.js';
import type { Caller, FileRow, ItemRow } from '../repo/interface.js';
import { objectKeysOf } from '../storage/interface.js';
import { callerOf, isUuid } from './common.js';
import { completeUpload, imageGone } from '../complete-upload.js';

type ItemRequest = FastifyRequest<{ Params: { id: string } }>;
type ImageRequest = FastifyRequest<{ Params: { id: string; fileId: string } }>;

// 404s name the part of the path at fault: a service without these endpoints answers a 404 that
// names none, which is how the CLI tells it lacks the extension (src/cli/commands/edit.ts).
const noItem = (id: string) =>
  apiError('not_found', `no content item ${id}; check the id with GET /api/v1/content`, [
    { path: 'id', message: 'no such item' },
  ]);

const notACarousel = (id: string, type: string) =>
  apiError('not_a_carousel', `item ${id} is a ${type}, not a carousel; only a carousel's images can be changed`);

export function registerCarousel(app: FastifyInstance, s: Services): void {
  app.put('/api/v1/content/:id/order', async (request: ItemRequest) => {
    const id = itemIdOf(request);
    const parsed = ReorderRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the new order');
    const { fileIds } = parsed.data;
    const result = await s.repo.reorderImages({ ...change(s, request, id), fileIds });
    return answer(s, callerOf(request), id, result, { sent: fileIds.length });
  });

  app.delete('/api/v1/content/:id/files/:fileId', async (request: ImageRequest) => {
    const id = itemIdOf(request);
    const { fileId } = request.params;
    if (!isUuid(fileId)) throw imageGone(id, fileId);
    const minFiles = TYPE_RULES.carousel.minFiles;
    const result = await s.repo.removeImage({ ...change(s, request, id), fileId, minFiles }, objectKeysOf);
    return answer(s, callerOf(request), id, result, { fileId });
  });

  app.put('/api/v1/content/:id/files/:fileId', async (request: ImageRequest) => {
    const caller = callerOf(request);
    const id = itemIdOf(request);
    const { fileId } = request.params;
    const item = await s.repo.getItem(caller.brandId, id);
    if (!item) throw noItem(id);
    if (item.type !== 'carousel') throw notACarousel(id, item.type);
    if (!isUuid(fileId)) throw imageGone(id, fileId);
    const parsed = ReplaceImageRequestSchema.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the replacement');
    const body = { ...parsed.data, type: 'carousel' as const, contentItemId: id };
    const actor = actorOf(request);
    // Completes of one key run one after another, whichever endpoint they come through.
    const done = await s.oneAtATime(body.key, () => completeUpload(s, caller, actor, body, fileId));
    // A key completed before answers with what it went into, changing nothing: another item's is no replacement.
    if (done.contentItemId !== id)
      throw apiError(
        'invalid_upload',
        `this upload is already part of item ${done.contentItemId}; presign and PUT the new image again`,
        [{ path: 'key', message: 'completed into another item' }],
      );
    const url = urlSigner(s);
    const files = await Promise.all((await s.repo.files(id)).map((f) => presentFile(f, url)));
    return { item: done.item, files, ...(done.file ? { file: done.file } : {}) } satisfies ReplaceImageResponse;
  });
}

function itemIdOf(request: ItemRequest | ImageRequest): string {
  const { id } = request.params;
  if (!isUuid(id)) throw noItem(id);
  return id;
}

function change(s: Services, request: FastifyRequest, itemId: string): CarouselChange {
  return { brandId: callerOf(request).brandId, itemId, at: s.deps.now().toISOString(), actor: actorOf(request) };
}

/** The carousel as the change left it, or the error that says why nothing changed. */
async function answer(
  s: Services,
  caller: Caller,
  id: string,
  result: CarouselResult,
  asked: { sent?: number; fileId?: string },
): Promise<CarouselResponse> {
  switch (result.kind) {
    case 'done':
      if (result.discarded.length > 0) await s.removeObjects(result.discarded);
      return present(s, caller, result.item, result.files);
    case 'item_gone':
      throw noItem(id);
    case 'not_a_carousel':
      throw notACarousel(id, result.type);
    case 'file_gone':
      throw imageGone(id, asked.fileId ?? '');
    case 'too_few':
      throw apiError(
        'carousel_minimum',
        `carousel ${id} has ${result.count} images and a carousel keeps at least ${TYPE_RULES.carousel.minFiles}; add an image before removing this one, or delete the whole item`,
        [{ path: 'fileId', message: `would leave ${result.count - 1}`, count: result.count }],
      );
    case 'stale':
      throw apiError(
        'files_changed',
        `the order sent (${asked.sent ?? 0} images) is not the carousel's images each once: they changed since they were read; fetch carousel ${id} again (GET /api/v1/content/${id}) and send each of its images once`,
        [
          ...result.missing.map((f) => ({
            path: 'fileIds',
            message: `image ${f.id} (${f.fileName}, sortOrder ${f.sortOrder}) is missing from the order (added since?)`,
            fileId: f.id,
          })),
          ...result.unknown.map((fileId) => ({
            path: 'fileIds',
            message: `${fileId} is not an image of this carousel (removed or replaced since?)`,
            fileId,
          })),
        ],
      );
  }
}

async function present(s: Services, caller: Caller, item: ItemRow, files: FileRow[]): Promise<CarouselResponse> {
  const url = urlSigner(s);
  const [presented, presentedFiles] = await Promise.all([
    presentOne(s, caller.brandId, item, url),
    Promise.all(files.map((f) => presentFile(f, url))),
  ]);
  return { item: presented, files: presentedFiles };
}
