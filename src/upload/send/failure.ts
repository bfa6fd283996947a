// What an error of a run means: the key refused, an upload the server no longer knows, bytes
// changed on the way; and the one line a person reads about it (`messageOf`, also the CLI's
// words for a failed library lookup). Pure: the engine (./engine.ts) decides what to do.
import { ApiError, NetworkError, StorageError, missingScopeOf, requestIdNote } from '../../api/errors.js';
import { describeRefusal } from '../../api/storage-refusal.js';
import { type Step, causeOf } from './events.js';
import { FileChangedError } from './put.js';

export const STEP_LABEL: Record<Step, string> = {
  hash: 'reading the file for its checksum',
  presign: 'presign',
  put: 'PUT',
  complete: 'complete',
  patch: 'PATCH',
  check: 'check',
};

/** The key itself is refused: unknown, revoked or expired (401), or lacking a scope (403 forbidden). */
export function isKeyRejected(err: unknown): boolean {
  const cause = causeOf(err);
  return (cause instanceof ApiError && cause.status === 401) || missingScopeOf(cause) !== undefined;
}

/** complete's answer for a key it cannot use: unknown, never stored, or completed into an item since deleted. */
export function isUnknownKey(err: unknown): boolean {
  const cause = causeOf(err);
  return cause instanceof ApiError && cause.is('invalid_upload');
}

/**
 * complete's answer for an upload the server no longer has, e.g. swept after its URL expired
 * while the file waited for its turn (docs/api.md: `details[0]` names the key as unknown).
 */
export function isUploadGone(err: unknown): boolean {
  return (
    isUnknownKey(err) &&
    (causeOf(err) as ApiError).details.some(
      (d) =>
        typeof d === 'object' &&
        d !== null &&
        'path' in d &&
        d.path === 'key' &&
        'message' in d &&
        d.message === 'unknown upload',
    )
  );
}

export function codeOf(err: unknown): { code?: string } {
  if (err instanceof ApiError || err instanceof StorageError) return { code: err.code };
  if (err instanceof NetworkError && err.code) return { code: err.code };
  return {};
}

/** One line on why a file failed, with the server's code so a person can search for it. */
export function messageOf(err: unknown): string {
  if (err instanceof FileChangedError) return err.message;
  if ((err instanceof StorageError || err instanceof ApiError) && isChangedOnTheWay(err))
    return `the bytes that reached the store differ from the file on disk (SHA-256 mismatch), so nothing was stored; sent again from disk, they differed again: something between this machine and the store changes data in flight (a proxy, a network device) (${err.status} ${err.code}${requestIdNote(err)})`;
  if (err instanceof StorageError) return `storage refused the upload: ${describeRefusal(err, requestIdNote(err))}`;
  if (err instanceof ApiError) return `${err.message} (${err.status} ${err.code}${requestIdNote(err)})`;
  return err instanceof Error ? err.message : String(err);
}

/** The store (at PUT) or complete refused the bytes as not the file's: 400 bad_digest, or S3's BadDigest. */
export function isChangedOnTheWay(err: unknown): boolean {
  const cause = causeOf(err);
  if (cause instanceof StorageError) return cause.code === 'bad_digest' || cause.code === 'BadDigest';
  return cause instanceof ApiError && cause.is('bad_digest');
}
