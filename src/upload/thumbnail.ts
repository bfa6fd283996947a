// A thumbnail for an existing item (`edit <id> --thumbnail IMG`): check the image against the
// thumbnail rule, presign it with `thumbnail: true`, stream it, then PATCH thumbnailKey. The
// upload command does the same inside the engine, in one PATCH with the item's metadata.
import type { PatchResponse } from '../api/schemas.js';
import { inspectFile } from '../media/inspect.js';
import type { InspectedFile } from '../media/inspect.js';
import type { EmitFn } from './events.js';
import { checkThumbnailFile } from './plan-checks.js';
import type { PlanProblem } from '../rules/problem.js';
import type { TransferDeps } from './transfer.js';
import { transferFile } from './transfer.js';

/** The image and what is wrong with it (nothing sent yet). */
export async function inspectThumbnail(
  path: string,
  shown: string = path,
): Promise<{ file: InspectedFile; problems: PlanProblem[] }> {
  const file = await inspectFile(path, shown);
  return { file, problems: checkThumbnailFile(file, shown) };
}

export interface ThumbnailDeps extends TransferDeps {
  api: TransferDeps['api'] & {
    patch(id: string, body: { thumbnailKey: string }, o?: { signal?: AbortSignal }): Promise<PatchResponse>;
  };
  signal: AbortSignal;
}

/** Sends the image's bytes and returns the key to PATCH as thumbnailKey. */
export async function sendThumbnail(
  file: InspectedFile,
  deps: TransferDeps,
  signal: AbortSignal,
  emit: EmitFn = () => {},
): Promise<string> {
  const ref = { path: file.path, name: file.name, size: file.size, item: 0, role: 'thumbnail' as const };
  const presigned = await transferFile(file, ref, { thumbnail: true }, deps, emit, signal);
  return presigned.key;
}

/** Sends the image and attaches it to the item; returns the updated item. */
export async function attachThumbnail(
  itemId: string,
  file: InspectedFile,
  deps: ThumbnailDeps,
  emit?: EmitFn,
): Promise<PatchResponse> {
  const thumbnailKey = await sendThumbnail(file, deps, deps.signal, emit);
  return deps.api.patch(itemId, { thumbnailKey }, { signal: deps.signal });
}
