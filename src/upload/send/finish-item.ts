// How an item is finished once its files are in (./engine.ts runs it): its thumbnail sent
// alongside unless attached already, then one PATCH with what it gets of the local metadata.
// An item this run made (or an earlier run made and could not finish, the journal's pending
// mark) gets all of it; one the library held before gets nothing but the report of what
// differs, or with --update-metadata exactly those differences (./metadata-diff.ts).
import type { PatchRequest } from '../../api/schemas.js';
import { type FileRef, type ItemOutcome, StepError } from './events.js';
import { fileKeyOf, metadataHash } from './journal.js';
import { transferFile } from './transfer.js';
import type { ItemIdentity } from './identify.js';
import { type MetadataField, fieldNames, metadataDifferences } from './metadata-diff.js';
import { codeOf, messageOf } from './failure.js';
import {
  type EngineItem,
  type ItemState,
  type Run,
  checksumOf,
  definedFields,
  judge,
  onceAgainIfChanged,
  refOf,
  retryEvent,
  stopped,
} from './run.js';

/** The item's thumbnail is attached already: the journal says so, or the library holds its bytes as this item's thumbnail. */
export function thumbnailAttached(
  run: Run,
  item: EngineItem,
  itemId: string | undefined,
  identity?: ItemIdentity,
): boolean {
  const thumb = item.thumbnail;
  if (!thumb || !itemId || run.deps.force) return false;
  if (run.deps.journal.item(itemId)?.thumbnail === fileKeyOf(thumb)) return true;
  return (identity?.thumbnail?.matches ?? []).some((m) => m.role === 'thumbnail' && m.itemId === itemId);
}

export type ThumbnailUpload = Promise<{ key: string; fileKey: string; ref: FileRef }>;

/** Sends the thumbnail's bytes (in parallel with the item's) unless it is attached already (journal or library). */
export function startThumbnail(
  run: Run,
  item: EngineItem,
  index: number,
  itemId: string | undefined,
  identity: ItemIdentity,
  signal: AbortSignal,
): ThumbnailUpload | undefined {
  const thumb = item.thumbnail;
  if (!thumb) return undefined;
  if (thumbnailAttached(run, item, itemId, identity)) return undefined;
  const ref = refOf(thumb, index, 'thumbnail');
  const p = run.pool.run(async () =>
    onceAgainIfChanged(run, thumb, ref, async () =>
      transferFile(thumb, ref, { thumbnail: true }, run.deps, run.emit, signal, {
        onBytes: (n) => (run.bytesSent += n),
        checksum: await checksumOf(run, thumb, identity.thumbnail?.sha256),
      }),
    ),
  );
  p.catch(() => {}); // awaited later; this only keeps an early failure from being "unhandled"
  return p.then((presigned) => ({ key: presigned.key, fileKey: fileKeyOf(thumb), ref }));
}

/**
 * The journal's mark for an item this tool created whose metadata is not applied yet (its PATCH
 * failed or was cut short): the next run applies it, as part of making the item.
 */
const METADATA_PENDING = 'pending';

/** The journal's mark for an item made with no metadata of its own (a thumbnail only): nothing pending. */
const METADATA_NONE = 'none';

/** The item was created by this run: until its metadata is applied, the journal says it is pending. */
export function itemCreated(run: Run, item: EngineItem, state: ItemState, itemId: string): void {
  state.created = true;
  if (item.thumbnail || Object.keys(definedFields(item.metadata)).length > 0)
    run.deps.journal.recordItem(itemId, { metadataHash: METADATA_PENDING });
}

/** This tool created the item in an earlier run and could not apply its metadata then. */
export function metadataPending(run: Run, itemId: string): boolean {
  return !run.deps.force && run.deps.journal.item(itemId)?.metadataHash === METADATA_PENDING;
}

/**
 * What the item gets of the local metadata. An item this run made (or an earlier run made and
 * could not finish) gets all of it. One the library held before gets nothing: the library's
 * word wins, and the differences are only reported, unless --update-metadata asks for exactly
 * those to be applied. `differs` is what was not applied.
 */
async function metadataToApply(
  run: Run,
  item: EngineItem,
  index: number,
  itemId: string,
  state: ItemState,
): Promise<{ body: PatchRequest; differs?: MetadataField[]; updated?: MetadataField[] }> {
  const metadata = definedFields(item.metadata);
  if (state.created || metadataPending(run, itemId)) return { body: { ...metadata } };
  const thumbDiffers = item.thumbnail !== undefined && !thumbnailAttached(run, item, itemId, state.identity);
  if (Object.keys(metadata).length === 0 && !thumbDiffers) return { body: {} };
  const known = run.library.get(itemId);
  run.library.delete(itemId);
  const library =
    known ??
    (
      await run.deps.api
        .get(itemId, { signal: run.signal, onRetry: retryEvent(run, 'check', refOf(item.files[0]!, index, 'file')) })
        .catch((err: unknown) => {
          throw new StepError('check', err);
        })
    ).item;
  const diff = metadataDifferences(metadata, library);
  const names = fieldNames(diff, thumbDiffers);
  if (names.length === 0) return { body: {} };
  if (!run.deps.updateMetadata) return { body: {}, differs: names };
  // The thumbnail is sent (startThumbnail) only when it differs: the caller adds its key.
  return { body: { ...diff }, updated: names };
}

/** Applies what the item gets of its metadata and thumbnail (one PATCH), or says what differs. */
export async function finishItem(
  run: Run,
  item: EngineItem,
  index: number,
  state: ItemState,
  thumb: ThumbnailUpload | undefined,
  outcome: ItemOutcome,
): Promise<ItemOutcome> {
  const { deps } = run;
  const itemId = state.itemId!;
  const status: ItemOutcome['status'] = outcome.filesCompleted > 0 ? 'created' : 'skipped';
  const made = state.created || metadataPending(run, itemId);
  const metadata = definedFields(item.metadata);
  const hash = Object.keys(metadata).length > 0 ? metadataHash(metadata) : undefined;
  let thumbFileKey: string | undefined;
  let body: PatchRequest = {};
  const notApplied = made
    ? `${itemId} was created; its metadata was not applied: run the same command again to apply it`
    : `the metadata of ${itemId} was not updated: run the same command again to update it`;
  try {
    const wanted = await metadataToApply(run, item, index, itemId, state);
    body = wanted.body;
    if (wanted.differs) return { ...outcome, status, differs: wanted.differs };
    if (thumb) {
      const t = await thumb;
      body.thumbnailKey = t.key;
      thumbFileKey = t.fileKey;
    }
    // Once applied, the item is made: the journal's pending mark goes (an item without metadata
    // of its own, a thumbnail only, gets a mark that says so).
    const appliedHash = hash ?? (made ? METADATA_NONE : undefined);
    if (Object.keys(body).length === 0) {
      if (made && appliedHash) deps.journal.recordItem(itemId, { metadataHash: appliedHash });
      return { ...outcome, status };
    }
    if (run.signal.aborted) return stopped(run, outcome, notApplied);
    const first = item.files[0];
    await deps.api
      .patch(itemId, body, first ? { onRetry: retryEvent(run, 'patch', refOf(first, index, 'file')) } : {})
      .catch((err: unknown) => {
        throw new StepError('patch', err);
      });
    deps.journal.recordItem(itemId, {
      ...(appliedHash ? { metadataHash: appliedHash } : {}),
      ...(thumbFileKey ? { thumbnail: thumbFileKey } : {}),
    });
    return { ...outcome, status, ...(wanted.updated ? { updated: wanted.updated } : {}) };
  } catch (err) {
    const verdict = judge(run, err, run.signal);
    if (verdict === 'cut-short') return stopped(run, outcome, notApplied);
    const { step, cause } = err instanceof StepError ? err : new StepError('patch', err);
    const what = body.thumbnailKey === undefined && thumb ? 'its thumbnail' : 'its metadata';
    const message = made
      ? `${itemId} was created, but ${what} could not be applied: ${messageOf(cause)}. Run the same command again to apply it.`
      : `${itemId} is in the library, but ${step === 'check' ? 'its metadata could not be compared with the library' : `${what} could not be updated`}: ${messageOf(cause)}. Run the same command again.`;
    run.emit({ type: 'failed', item: index, message, step, ...codeOf(cause) });
    return {
      ...outcome,
      status: 'partial',
      message,
      ...(verdict === 'key-rejected' ? { keyRejected: true as const } : {}),
    };
  }
}
