// GET/PATCH/DELETE of content items (docs/api.md). Every lookup is scoped to the caller's
// brand: another brand's id answers 404 exactly like a missing one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type DeleteResponse,
  type GetResponse,
  type ListResponse,
  ListQuerySchema,
  type PatchResponse,
  PatchRequestSchema,
} from '../../api/schemas.js';
import { LIST_LIMITS } from '../../rules/rules.js';
import type { Services } from '../context.js';
import { apiError, invalidRequest, isDiskFull } from '../errors.js';
import { actorOf } from '../auth.js';
import { presentFile, presentItems, presentOne, urlSigner } from '../present.js';
import type { Actor } from '../repo/interface.js';
import type { ItemChanges, ItemRow } from '../repo/items.js';
import { cursorOf, listFilterOf } from '../repo/list-filter.js';
import type { Caller } from '../repo/keys.js';
import type { Upload } from '../repo/uploads.js';
import { objectKeysOf } from '../storage/interface.js';
import { checkThenPromote, magicBytesProblem, verifiedSha256 } from '../stored-file.js';
import { callerOf, isUuid } from './common.js';

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
    const asked = listFilterOf({ ...q, limit, offset });
    if ('problem' in asked) {
      const { path, message } = asked.problem;
      throw apiError('invalid_request', `the list query is invalid (${message})`, [{ path, message }]);
    }
    const page = await s.repo.listItems(caller.brandId, asked.filter);
    const url = urlSigner(s);
    const items = await presentItems(s, caller.brandId, page.items, url);
    return {
      items,
      limit,
      offset,
      hasMore: page.hasMore,
      nextCursor: cursorOf(asked.filter, page.next),
    } satisfies ListResponse;
  });

  app.get('/api/v1/content/:id', async (request: IdRequest) => {
    const caller = callerOf(request);
    const item = await findItem(s, caller, request.params.id);
    const url = urlSigner(s);
    const files =
      item.type === 'carousel' ? await Promise.all((await s.repo.files(item.id)).map((f) => presentFile(f, url))) : [];
    return { item: await presentOne(s, caller.brandId, item, url), files } satisfies GetResponse;
  });

  app.patch('/api/v1/content/:id', async (request: IdRequest) => {
    const caller = callerOf(request);
    const item = await findItem(s, caller, request.params.id);
    const parsed = PatchRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidRequest(parsed.error, 'the update');
    const changes: ItemChanges = parsed.data;
    const thumbnailKey = changes.thumbnailKey;
    const actor = actorOf(request);
    if (thumbnailKey === undefined) return patchItem(s, caller, actor, item, changes);
    // One attach of a thumbnail at a time: the second finds it attached, never half-promoted.
    return s.oneAtATime(thumbnailKey, async () => {
      const upload = await checkThumbnailKey(s, caller, item, thumbnailKey);
      if (!upload.completedAt) changes.thumbnailSha256 = await checkAndPromoteThumbnail(s, upload);
      return patchItem(s, caller, actor, item, changes);
    });
  });

  app.delete('/api/v1/content/:id', async (request: IdRequest) => {
    const caller = callerOf(request);
    const item = await findItem(s, caller, request.params.id);
    const objects = await deleteRows(s, caller, actorOf(request), item.id);
    // Deleted by a concurrent request between the lookup and the transaction.
    if (!objects) throw apiError('not_found', `no content item ${item.id}; check the id with GET /api/v1/content`);
    await s.removeObjects(objects);
    return { deleted: true } satisfies DeleteResponse;
  });
}

/**
 * Applies a PATCH in one transaction that re-reads the item: one deleted meanwhile is a 404,
 * never a 500. A new thumbnailKey (checked and promoted by then) is attached, which closes its
 * upload; the replaced thumbnail's objects are queued for deletion. The answer is the item as
 * the transaction left it.
 */
async function patchItem(s: Services, caller: Caller, actor: Actor, item: ItemRow, changes: ItemChanges) {
  const at = s.deps.now().toISOString();
  const updated = await s.repo.updateItem(caller.brandId, item.id, changes, at, actor, objectKeysOf);
  if (!updated) throw apiError('not_found', `no content item ${item.id}; it was deleted meanwhile`);
  if (updated.discarded.length > 0) await s.removeObjects(updated.discarded);
  // A new thumbnail is what a video's poster is made from (src/server/previews/): made again.
  if (changes.thumbnailKey !== undefined) s.deps.previews?.nudge();
  return { item: await presentOne(s, caller.brandId, updated.item, urlSigner(s)) } satisfies PatchResponse;
}

/**
 * Removes the item's rows and records every object of it for deletion, in one transaction;
 * null when the item is gone already. On a full disk the database may be unable to grow its
 * log: the space held in reserve is released once and the transaction tried again, because
 * deleting is how a user frees space.
 */
async function deleteRows(s: Services, caller: Caller, actor: Actor, id: string): Promise<string[] | null> {
  const run = () => s.repo.deleteItem(caller.brandId, id, s.deps.now().toISOString(), actor, objectKeysOf);
  try {
    return await run();
  } catch (err) {
    // SQLITE_FULL only: on PostgreSQL a full disk is the database server's to handle (its own
    // reserved space and alerts), and this server holds no reserve for it.
    if (!isDiskFull(err) || !(await s.deps.reserve?.release())) throw err;
    return run();
  }
}

/** thumbnailKey must name a thumbnail upload of this brand that is not another item's. */
async function checkThumbnailKey(s: Services, caller: Caller, item: ItemRow, key: string): Promise<Upload> {
  const upload = await s.repo.getUpload(key);
  const fail = (why: string): never => {
    throw apiError('invalid_upload', `thumbnailKey ${why}`, [{ path: 'thumbnailKey', message: why }]);
  };
  if (!upload || upload.brandId !== caller.brandId)
    return fail('names no upload of yours; presign with thumbnail: true, PUT the image, then send its key');
  if (!upload.thumbnail)
    return fail('names an upload that was not presigned as a thumbnail; presign it again with thumbnail: true');
  if (upload.itemId && upload.itemId !== item.id)
    return fail('is already the thumbnail of another item; upload the image again for this one');
  return upload;
}

/**
 * A thumbnail goes the way of any upload: its staging bytes must have the declared SHA-256 and
 * be the declared image type, and only the checked version is promoted to its key (which no URL
 * can write). Attaching it then closes its URL. Returns its verified SHA-256.
 */
async function checkAndPromoteThumbnail(s: Services, upload: Upload): Promise<string> {
  const { storage } = s.deps;
  const checked = await checkThenPromote(
    storage,
    upload,
    async (object) => {
      if (!object || object.head.size !== upload.fileSize)
        throw apiError(
          'invalid_upload',
          'thumbnailKey names a thumbnail that was never uploaded; PUT the image to its presigned URL first',
          [{ path: 'thumbnailKey', message: 'not uploaded' }],
        );
      const refuse = async (why: Error): Promise<never> => {
        await storage.delete(object.key);
        await s.repo.markNotStored(upload.key);
        throw why;
      };
      const digest = await verifiedSha256(object, upload.sha256);
      if ('problem' in digest) return refuse(digest.problem);
      const mismatch = await magicBytesProblem(object, upload.contentType);
      if (mismatch) return refuse(mismatch);
      return { sha256: digest.sha256 };
    },
    () =>
      apiError('invalid_upload', 'the thumbnail kept changing while it was being checked; let the PUT finish', [
        { path: 'thumbnailKey', message: 'still being written' },
      ]),
  );
  return checked.sha256;
}
