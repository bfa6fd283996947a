// What an object store's refusal of a presigned PUT means for the upload: retried or final, and
// in words. S3 and the S3-compatible stores answer with an XML <Error><Code> (parsed by
// errorFromResponse into a StorageError); our own disk storage with the codes of the shared
// table (./error-codes.ts), whose names are checked against it here.
import type { StorageErrorCode } from './error-codes.js';

/** What a store's refusal says: a StorageError (./errors.ts, which asks refusalRetry) has these. */
export interface Refusal {
  code: string;
  message: string;
  status: number;
}

interface Meaning {
  /** Another try of the same PUT (from byte 0) may succeed. */
  retry: boolean;
  /** What happened, for a person; the store's own code and message are quoted beside it. */
  says: string;
}

/** Our own storage's codes (src/server/routes/storage.ts answers with them). */
const OURS: Partial<Record<StorageErrorCode, Meaning>> = {
  signature_mismatch: { retry: false, says: 'the URL or its signature did not match; not retried' },
  content_type_mismatch: { retry: false, says: 'the Content-Type differed from the presigned one; not retried' },
  content_length_mismatch: { retry: false, says: 'the length differed from the presigned one; not retried' },
  request_timeout: { retry: true, says: 'the server gave up waiting for the body (too slow); sending again' },
  unavailable: { retry: true, says: 'the server takes no more uploads right now; retrying after a pause' },
};

/** S3's codes, and the S3-compatible stores'. */
const S3: Record<string, Meaning> = {
  SignatureDoesNotMatch: {
    retry: false,
    says: "the upload's headers did not match what was signed (Content-Type and Content-Length must be exactly the presigned ones); not retried",
  },
  EntityTooLarge: { retry: false, says: 'the file is larger than the store accepts for one PUT' },
  EntityTooSmall: { retry: false, says: 'the file is smaller than the store accepts' },
  InvalidAccessKeyId: { retry: false, says: "the store does not know the server's access key (a server setting)" },
  NoSuchBucket: { retry: false, says: "the server's bucket does not exist (a server setting)" },
  // The store waited too long for the body, or got fewer bytes than announced: the network, most likely.
  RequestTimeout: { retry: true, says: 'the store timed out waiting for the body; sending again' },
  IncompleteBody: { retry: true, says: 'the store received fewer bytes than Content-Length; sending again' },
  SlowDown: { retry: true, says: 'the store asks to slow down; retrying after a pause' },
  InternalError: { retry: true, says: 'the store had an internal error; retrying' },
  ServiceUnavailable: { retry: true, says: 'the store is unavailable; retrying after a pause' },
};

const MEANINGS: Record<string, Meaning> = { ...S3, ...OURS };

const EXPIRED: StorageErrorCode = 'expired';

/** The store said the presigned URL has expired: ours (`expired`) or S3's AccessDenied "Request has expired". */
export function isExpiredRefusal(err: Refusal): boolean {
  return err.code === EXPIRED || (err.code === 'AccessDenied' && /expired/i.test(err.message));
}

/** A fresh presigned URL may help: it expired, or S3 denied it (its AccessDenied covers both). */
export function freshUrlMayHelp(err: Refusal): boolean {
  return err.code === EXPIRED || err.code === 'AccessDenied';
}

/** Whether another try may help; undefined when the code says nothing beyond its status. */
export function refusalRetry(err: Refusal): boolean | undefined {
  return MEANINGS[err.code]?.retry;
}

/** One line: the store's own message, status and code (and `note`, e.g. its request id), then what they mean. */
export function describeRefusal(err: Refusal, note = ''): string {
  const meaning = isExpiredRefusal(err) ? 'the upload URL expired' : MEANINGS[err.code]?.says;
  const quoted = `${err.message} (${err.status} ${err.code}${note})`;
  return meaning ? `${quoted} — ${meaning}` : quoted;
}
