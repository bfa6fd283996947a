// A dependency that fails is not the client's fault: PostgreSQL stopped or frozen, the object
// store down, the data dir's disk giving I/O errors. Those failures are recognised here, at the
// boundary of the Repo and the Storage (guardRepo, guardStorage wrap every call), and become one
// typed UnavailableError, which src/server/errors.ts answers as `503 unavailable` with
// Retry-After. Everything else passes through untouched, so a bug is still a 500.
import { errorCode } from '../sqlite/codes.js';

/** The parts a request depends on, as /readyz names them. */
export type DependencyPart = 'database' | 'storage';

/** Seconds a client is asked to wait before trying again (Retry-After). */
export const RETRY_AFTER_SECONDS = 3;

export class UnavailableError extends Error {
  constructor(
    readonly part: DependencyPart,
    /** What failed, for the log only: it may name hosts, ports and paths. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${part} unavailable: ${reason}`, options);
    this.name = 'UnavailableError';
  }
}

export function isUnavailable(err: unknown): err is UnavailableError {
  return err instanceof UnavailableError;
}

/** Node's socket errors: the peer is gone, refuses, or never answered. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** File system errors that say the disk (or the file server behind it) cannot be used now. */
const DISK_CODES = new Set([
  'EIO',
  'EMFILE',
  'ENFILE',
  'EAGAIN',
  'EBUSY',
  'ESTALE',
  'ENOTCONN',
  'EROFS',
  'ENODEV',
  'ENXIO',
]);

/** SQLite's result codes of a file it cannot use right now (SQLITE_IOERR_* included). */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|READONLY|PROTOCOL)/;

/**
 * PostgreSQL's SQLSTATEs of a server that cannot serve us now: class 08 (connection exception),
 * 53 (insufficient resources: too many connections, out of memory or disk), 57P01–57P03 (shut
 * down, crashed, starting), 57014 (our statement_timeout cancelled a statement), 25P03 (our
 * idle-in-transaction timeout).
 */
const PG_UNAVAILABLE = /^(08|53|57P0[123]$|57014$|25P03$)/;

/** pg's own words for a connection that broke or never came (these carry no code). */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * The AWS SDK's error names for a store that is overloaded or not answering: S3's own codes, and
 * the SDK's for a request that timed out or that our deadline (storage/s3.ts) aborted.
 */
const S3_UNAVAILABLE_NAMES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'TimeoutError',
  'AbortError',
]);

function fieldOf(err: unknown, name: string): unknown {
  return err !== null && typeof err === 'object' ? (err as Record<string, unknown>)[name] : undefined;
}

/** The error code of `err` or of any error it wraps (undici, the AWS SDK and pg nest them). */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = errorCode(e);
    if (code !== undefined) codes.push(code);
    e = fieldOf(e, 'cause');
  }
  return codes;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether `err`, thrown by the metadata store, means the database cannot be used now. */
export function databaseDown(err: unknown): boolean {
  const codes = codesOf(err);
  return (
    codes.some(
      (c) => NETWORK_CODES.has(c) || DISK_CODES.has(c) || SQLITE_UNAVAILABLE.test(c) || PG_UNAVAILABLE.test(c),
    ) || PG_MESSAGES.test(messageOf(err))
  );
}

/** Whether `err`, thrown by the object store (S3 or the data dir), means it cannot be used now. */
export function storageDown(err: unknown): boolean {
  if (codesOf(err).some((c) => NETWORK_CODES.has(c) || DISK_CODES.has(c))) return true;
  const name = err instanceof Error ? err.name : '';
  // The AWS SDK: a 5xx, a throttle, a timeout of ours (abortSignal) or of its handler.
  if (S3_UNAVAILABLE_NAMES.has(name)) return true;
  const metadata = fieldOf(err, '$metadata') as { httpStatusCode?: number } | undefined;
  if (metadata !== undefined) {
    const status = metadata.httpStatusCode;
    // No status: the SDK got no HTTP answer it could read (a reset, a proxy's garbage).
    return status === undefined || status >= 500;
  }
  return false;
}

const DOWN: Record<DependencyPart, (err: unknown) => boolean> = { database: databaseDown, storage: storageDown };

/** `err` as an UnavailableError when it means `part` cannot be used now; otherwise `err` itself. */
export function asUnavailable(part: DependencyPart, err: unknown): unknown {
  if (err instanceof UnavailableError || !DOWN[part](err)) return err;
  const code = codesOf(err)[0];
  return new UnavailableError(part, `${messageOf(err)}${code && !messageOf(err).includes(code) ? ` (${code})` : ''}`, {
    cause: err,
  });
}
