// A presigned storage URL as the client reads it: shown without its signature, its expiry read from
// its query, and a store's "expired" refusal recognised. Upload's PUT (src/upload/send/put.ts), its
// parts (src/upload/send/parts.ts) and download's GET (src/download/fetch.ts) share these.
import { StorageError } from './errors.js';
import { isExpiredRefusal } from './storage-refusal.js';

/** The URL without its query: the signature never goes into a message or a trace. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?[signed]`;
}

/**
 * When a presigned URL stops working, read from its query: ours (`expires`, Unix seconds), S3
 * signature v4 (`X-Amz-Date` + `X-Amz-Expires`) or v2 (`Expires`). Undefined when it does not say.
 */
export function urlExpiry(url: string): Date | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const seconds = params.get('expires') ?? params.get('Expires');
  if (seconds && /^\d+$/.test(seconds)) return new Date(Number(seconds) * 1000);
  const amzDate = params.get('X-Amz-Date');
  const amzExpires = params.get('X-Amz-Expires');
  const m = amzDate ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate) : null;
  if (m && amzExpires && /^\d+$/.test(amzExpires)) {
    const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    return new Date(start + Number(amzExpires) * 1000);
  }
  return undefined;
}

/** Storage said the URL has expired: ours (`expired`) or S3 ("Request has expired"). */
export function isExpired(err: unknown): boolean {
  return err instanceof StorageError && isExpiredRefusal(err);
}
