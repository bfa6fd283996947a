// GET/PATCH/DELETE of content items (spec 4.4–4.7). Every lookup is scoped to the caller's
// brand: another brand's id answers 404 exactly like a missing one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ListQuerySchema, PatchRequestSchema } from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest } from '../errors.js';
import { presentFile, presentItem, urlSigner } from '../present.js';
import type { ItemChanges, ItemRow } from '../repo/items.js';
import type { Caller } from '../repo/keys.js';
import { baseUrlOf, callerOf, isUuid } from './common.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

async function findItem(s: Services, caller: Caller, id: string): Promise<ItemRow> {
  const item = isUuid(id) ? await s.repo.getItem(caller.brandId, id) : null;
  if (!item) throw apiError('not_found', `no content item ${id}; check the id with GET /api/v1/content`);
  return item;
}

export function registerContent(app: FastifyInstance, s: Services): void {
  app.get('/api/v1/content', async (request) => {
    const caller = callerOf(request);
    const parsed = ListQuerySchema.safeParse(request.query);
    if (!parsed.success) throw invalidRequest(parsed.error, 'the list query');
    const q = parsed.data;
    const limit = q.limit ?? LIST_LIMITS.defaultLimit;
    const offset = q.offset ?? LIST_LIMITS.defaultOffset;
    const page = await s.repo.listItems(caller.brandId, {
      status: q.status,
      type: q.type,
      search: q.search,
      limit,
      offset,
    });
    const url = urlSigner(s, baseUrlOf(request));
    return { items: page.items.map((i) => presentItem(i, url)), limit, offset, hasMore: page.hasMore };
  });

  app.get('/api/v1/content/:id', async (request: IdRequest) => {
    const item = await findItem(s, callerOf(request), request.params.id);
    const url = urlSigner(s, baseUrlOf(request));
    const files = item.type === 'carousel' ? (await s.repo.files(item.id)).map((f) => presentFile(f, url)) : [];
    return { item: presentItem(item, url), files };
  });

  app.patch('/api/v1/content/:id', async (request: IdRequest) => {
    const caller = callerOf(request);
    const item = await findItem(s, caller, request.params.id);
    const parsed = PatchRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidRequest(parsed.error, 'the update');
    const changes: ItemChanges = parsed.data;
    if (changes.thumbnailKey !== undefined) await checkThumbnailKey(s, caller, item, changes.thumbnailKey);

    const at = s.deps.now().toISOString();
    const removed = await s.repo.updateItem(caller.brandId, item.id, changes, at);
    const updated = removed ? await s.repo.getItem(caller.brandId, item.id) : null;
    // Deleted while this request ran: as if it had been deleted first.
    if (!removed || !updated) throw apiError('not_found', `no content item ${item.id}; it was deleted meanwhile`);
    if (removed.length > 0) await s.removeObjects(removed);
    const url = urlSigner(s, baseUrlOf(request));
    return { item: presentItem(updated, url) };
  });

  app.delete('/api/v1/content/:id', async (request: IdRequest) => {
    const caller = callerOf(request);
    const item = await findItem(s, caller, request.params.id);
    const objects = await s.repo.deleteItem(caller.brandId, item.id, s.deps.now().toISOString());
    if (!objects) throw apiError('not_found', `no content item ${item.id}; it was deleted meanwhile`);
    await s.removeObjects(objects);
    return { deleted: true as const };
  });
}

/** thumbnailKey must name a thumbnail upload of this brand that was PUT and is not another item's. */
async function checkThumbnailKey(s: Services, caller: Caller, item: ItemRow, key: string): Promise<void> {
  const upload = await s.repo.getUpload(key);
  const fail = (why: string) => {
    throw apiError('invalid_upload', `thumbnailKey ${why}`, [{ path: 'thumbnailKey', message: why }]);
  };
  if (!upload || upload.brandId !== caller.brandId)
    fail('names no upload of yours; presign with thumbnail: true, PUT the image, then send its key');
  if (!upload!.thumbnail)
    fail('names an upload that was not presigned as a thumbnail; presign it again with thumbnail: true');
  if (!upload!.storedAt) fail('names a thumbnail that was never uploaded; PUT the image to its presigned URL first');
  if (upload!.itemId && upload!.itemId !== item.id)
    fail('is already the thumbnail of another item; upload the image again for this one');
}
