// A thumbnail for an existing item (`edit <id> --thumbnail IMG`): check the image against the
// thumbnail rule, presign it with `thumbnail: true` and stream it; `edit` then PATCHes
// thumbnailKey. The upload command does the same inside the engine, in one PATCH with the item's
// metadata.
import { inspectFile } from '../../media/inspect.js';
import { type EmitFn, causeOf } from './events.js';
import { sha256OfFile } from './hash.js';
import { checkThumbnailFile } from '../plan/plan-checks.js';
import type { PlanProblem } from '../../rules/problem.js';
import type { SendableFile, TransferDeps } from './transfer.js';
import { transferFile } from './transfer.js';

/** The image, or what is wrong with it (nothing sent yet). */
export async function inspectThumbnail(
  path: string,
  shown: string = path,
): Promise<{ ok: true; file: SendableFile } | { ok: false; problems: PlanProblem[] }> {
  const file = await inspectFile(path, shown);
  const problems = checkThumbnailFile(file, shown);
  // A file whose format is unknown always has a problem (src/media/inspect.ts).
  if (problems.length > 0 || file.contentType === undefined) return { ok: false, problems };
  return { ok: true, file: { ...file, contentType: file.contentType } };
}

/**
 * Sends the image's bytes and returns the key to PATCH as thumbnailKey. Its SHA-256 is declared
 * at presign (the store refuses bytes changed on the way), unless the service refuses the field.
 */
export async function sendThumbnail(
  file: SendableFile,
  deps: TransferDeps,
  signal: AbortSignal,
  emit: EmitFn = () => {},
): Promise<string> {
  const ref = { path: file.path, name: file.name, size: file.size, item: 0, role: 'thumbnail' as const };
  let declares = true;
  const checksum = {
    sha256: await sha256OfFile(file, signal),
    declares: () => declares,
    refused: () => {
      declares = false;
    },
  };
  // `edit` reports what went wrong, not in which step.
  const presigned = await transferFile(file, ref, { thumbnail: true }, deps, emit, signal, { checksum }).catch(
    (err: unknown) => {
      throw causeOf(err);
    },
  );
  return presigned.key;
}
