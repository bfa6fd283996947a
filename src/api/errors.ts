// Typed errors of the HTTP layer. Every failure of a request to the service or to object storage
// becomes exactly one of these, so the CLI can map it to an exit code and a hint in one place
// (src/cli/error-messages.ts) and the retry loops can decide from its type (classifyForRetry).
import type { ApiErrorCode, StorageErrorCode } from './error-codes.js';
import type { RetryDecision } from './retry.js';
import { parseRetryAfter } from './retry.js';
import { refusalRetry } from './storage-refusal.js';

/** A request that failed, and where it went. */
abstract class RequestFailure extends Error {
  readonly method: string;
  readonly url: string;
  constructor(name: string, message: string, o: { method: string; url: string; cause?: unknown }) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = name;
    this.method = o.method;
    this.url = o.url;
  }
}

/** What an answer that refuses a request carries, from the service or from object storage. */
interface RefusalFields {
  status: number;
  code: string;
  message: string;
  method: string;
  url: string;
  retryAfterMs?: number;
  requestId?: string;
}

/** An answer refusing a request: its status and code. */
abstract class RefusedError<Code extends string> extends RequestFailure {
  readonly status: number;
  readonly code: string;
  /** Milliseconds the server asked us to wait (Retry-After on 429/503), when it said. */
  readonly retryAfterMs: number | undefined;
  /** The answer's id of the request (x-request-id, or S3's x-amz-request-id), for a person to quote. */
  readonly requestId: string | undefined;
  constructor(name: string, o: RefusalFields) {
    super(name, o.message, o);
    this.status = o.status;
    this.code = o.code;
    this.retryAfterMs = o.retryAfterMs;
    this.requestId = o.requestId;
  }

  /** Whether the answer carries this code of the shared table (src/api/error-codes.ts). */
  is(code: Code): boolean {
    return this.code === code;
  }
}

/** The service answered with its JSON error body (docs/api.md, Errors). */
export class ApiError extends RefusedError<ApiErrorCode> {
  readonly details: readonly unknown[];
  constructor(o: RefusalFields & { details?: readonly unknown[] }) {
    super('ApiError', o);
    this.details = o.details ?? [];
  }
}

/** Object storage refused a PUT: our JSON body or S3's XML `<Error><Code>` (S3's codes: storage-refusal.ts). */
export class StorageError extends RefusedError<StorageErrorCode> {
  constructor(o: RefusalFields) {
    super('StorageError', o);
  }
}

/** No answer at all: refused, reset, DNS failure. `code` is Node's (ECONNREFUSED, ...). */
export class NetworkError extends RequestFailure {
  readonly code: string | undefined;
  constructor(o: { message: string; code?: string; method: string; url: string; cause?: unknown }) {
    super('NetworkError', o.message, o);
    this.code = o.code;
  }
}

/** No complete answer within the client's time limit. */
export class TimeoutError extends RequestFailure {
  readonly timeoutMs: number;
  constructor(o: { method: string; url: string; timeoutMs: number }) {
    super('TimeoutError', `${o.method} ${o.url} got no answer within ${Math.round(o.timeoutMs / 1000)} s`, o);
    this.timeoutMs = o.timeoutMs;
  }
}

/** An answer that is not ours: an HTML page from a proxy, an empty body, JSON of the wrong shape. */
export class UnexpectedResponseError extends RequestFailure {
  readonly status: number;
  /** The first bytes of the body, for --verbose; never contains our request's secrets. */
  readonly bodySnippet: string;
  /** x-request-id, when whatever answered sent one. */
  readonly requestId: string | undefined;
  constructor(o: {
    status: number;
    message: string;
    method: string;
    url: string;
    bodySnippet: string;
    cause?: unknown;
    requestId?: string;
  }) {
    super('UnexpectedResponseError', o.message, o);
    this.status = o.status;
    this.bodySnippet = o.bodySnippet;
    this.requestId = o.requestId;
  }
}

export type HttpFailure = ApiError | StorageError | NetworkError | TimeoutError | UnexpectedResponseError;

export function isHttpFailure(err: unknown): err is HttpFailure {
  return (
    err instanceof ApiError ||
    err instanceof StorageError ||
    err instanceof NetworkError ||
    err instanceof TimeoutError ||
    err instanceof UnexpectedResponseError
  );
}

/**
 * A 403 `forbidden` that refuses the key for what it lacks (docs/api.md, Scopes): the scope the
 * endpoint needs, as the error's details name it; undefined for any other error.
 */
export function missingScopeOf(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 403 || !err.is('forbidden')) return undefined;
  for (const d of err.details) {
    const { path, requiredScope } = (d ?? {}) as { path?: unknown; requiredScope?: unknown };
    if (path === 'scope' && typeof requiredScope === 'string') return requiredScope;
  }
  return undefined;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** The header a request id comes back in: ours, or S3's. */
export function requestIdHeader(headers: Headers): string | undefined {
  return header(headers, 'x-request-id') ?? header(headers, 'x-amz-request-id');
}

/** The request id an error body's details carry (their last entry, on contentlib's server). */
function requestIdOfDetails(details: readonly unknown[]): string | undefined {
  for (const d of details) {
    const id = (d as { requestId?: unknown } | null)?.requestId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/** `, request id X` for a message's parenthesis, or nothing when the answer had none. */
export function requestIdNote(err: { requestId?: string | undefined }): string {
  return err.requestId ? `, request id ${err.requestId}` : '';
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** `<Tag>value</Tag>` from an S3 error document; enough XML for the four fields S3 sends. */
function xmlField(xml: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml);
  if (!m) return undefined;
  return m[1]!
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

/**
 * The `error` of our JSON error body (docs/api.md, Errors), or undefined when it is not one.
 * Checked by hand rather than with zod so that main.ts, which imports this through
 * describeError, stays light for `--help`.
 */
function readErrorBody(json: unknown): { code: string; message: string; details: unknown[] } | undefined {
  const error = (json as { error?: unknown } | null)?.error as
    { code?: unknown; message?: unknown; details?: unknown } | undefined;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
  return { code: error.code, message: error.message, details: Array.isArray(error.details) ? error.details : [] };
}

/** A request to the storage PUT URL rather than to the service API. */
function isStorageUrl(url: string): boolean {
  try {
    return !new URL(url).pathname.includes('/api/v1/');
  } catch {
    return false;
  }
}

/**
 * Turns a non-2xx answer into a typed error: our JSON error body (ApiError for the API,
 * StorageError for the storage PUT), an S3 XML error document (StorageError), or anything else
 * — an HTML proxy page, an empty body — as UnexpectedResponseError.
 */
export function errorFromResponse(
  status: number,
  headers: Headers,
  bodyText: string,
  method: string,
  url: string,
  now: Date = new Date(),
): HttpFailure {
  const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), now);
  const fromHeader = requestIdHeader(headers);
  const trimmed = bodyText.trim();
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      json = undefined;
    }
    const body = readErrorBody(json);
    if (body) {
      const { code, message, details } = body;
      const requestId = fromHeader ?? requestIdOfDetails(details);
      if (isStorageUrl(url)) return new StorageError({ status, code, message, method, url, retryAfterMs, requestId });
      return new ApiError({ status, code, message, details, method, url, retryAfterMs, requestId });
    }
  }
  if (trimmed.startsWith('<') && /<Error>/.test(trimmed)) {
    const code = xmlField(trimmed, 'Code');
    if (code) {
      const message = xmlField(trimmed, 'Message') ?? code;
      const requestId = fromHeader ?? xmlField(trimmed, 'RequestId');
      return new StorageError({ status, code, message, method, url, retryAfterMs, requestId });
    }
  }
  const what =
    trimmed === ''
      ? 'an empty body'
      : /^<(!doctype|html)/i.test(trimmed)
        ? 'an HTML page'
        : 'a body that is not the service’s error format';
  return new UnexpectedResponseError({
    status,
    method,
    url,
    bodySnippet: snippet(trimmed),
    message: `${method} ${url} answered ${status} with ${what}; a proxy or a wrong base URL may be in between`,
    requestId: fromHeader,
  });
}

/** Node's error code of a socket failure, looking through undici's wrappers. */
export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code) && !code.startsWith('ERR_')) return code;
    if (typeof code === 'string' && code.startsWith('UND_ERR_')) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Node's and undici's codes of a request that got no (complete) answer, in a few words. */
const NO_ANSWER: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  EPIPE: 'connection reset',
};

/** Codes that mean the answer did not come in time. */
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** Why a request got no answer, in a few words ("connection refused"), else the error's own message. */
export function networkReason(err: unknown): string {
  const code = err instanceof NetworkError ? err.code : networkCode(err);
  const words = code === undefined ? undefined : NO_ANSWER[code];
  return words ?? (err as Error | undefined)?.message ?? String(err);
}

/**
 * A thrown undici or socket failure as one of our typed errors: TimeoutError, or NetworkError
 * saying why in words; an abort passes through as it is. The one place both the API client and
 * the storage PUT describe a request that got no answer. `sending`: the request streams a body,
 * so a reset is said to have happened while sending it.
 */
export function errorFromThrown(
  err: unknown,
  o: { method: string; url: string; timeoutMs: number; signal?: AbortSignal; sending?: boolean },
): unknown {
  if (o.signal?.aborted) return err;
  const code = networkCode(err);
  if (code && TIMEOUT_CODES.has(code))
    return new TimeoutError({ method: o.method, url: o.url, timeoutMs: o.timeoutMs });
  if (code === 'UND_ERR_ABORTED' || (err instanceof Error && err.name === 'AbortError')) return err;
  const reason = networkReason(err);
  const said = o.sending && reason === NO_ANSWER.ECONNRESET ? `${reason} while sending` : reason;
  return new NetworkError({
    message: `${o.method} ${o.url} failed: ${said}`,
    code,
    method: o.method,
    url: o.url,
    cause: err,
  });
}

/** No answer because nobody is listening, or the connection dropped: a service restarting. */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** What a load balancer or a service answers while an instance restarts or a dependency is down. */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

/** A retry after the server's delay; an outage when the status or the delay says it is one. */
function retryAfter(status: number, retryAfterMs: number | undefined): RetryDecision {
  const outage = OUTAGE_STATUSES.has(status) || retryAfterMs !== undefined;
  return {
    retry: true,
    ...(retryAfterMs === undefined ? {} : { afterMs: retryAfterMs }),
    ...(outage ? { outage } : {}),
  };
}

/**
 * Whether another try may help. Network errors, timeouts, 5xx and 429 are worth retrying (with
 * the server's Retry-After when it gave one); 4xx answers are final. Storage 403s are final
 * here: an expired URL is the engine's business (it presigns again). A refused or dropped
 * connection, 502/503/504 and an answer with Retry-After are an outage, ridden out for
 * RetryPolicy.rideOutMs (src/api/retry.ts).
 */
export function classifyForRetry(err: unknown): RetryDecision {
  if (err instanceof NetworkError)
    return err.code && OUTAGE_CODES.has(err.code) ? { retry: true, outage: true } : { retry: true };
  if (err instanceof TimeoutError) return { retry: true };
  if (err instanceof StorageError) {
    // An object store's code says more than its status (S3's RequestTimeout is a 400 worth retrying).
    const byCode = refusalRetry(err);
    if (byCode === false) return { retry: false };
    if (byCode === true) return retryAfter(err.status, err.retryAfterMs);
  }
  if (err instanceof ApiError || err instanceof StorageError) {
    if (err.status === 429 || err.status >= 500) return retryAfter(err.status, err.retryAfterMs);
    return { retry: false };
  }
  if (err instanceof UnexpectedResponseError) {
    if (!(err.status === 429 || err.status >= 500)) return { retry: false };
    return OUTAGE_STATUSES.has(err.status) ? { retry: true, outage: true } : { retry: true };
  }
  return { retry: false };
}

/** What made a retry loop ride out an outage, in a few words, for the one line that says it waits. */
export function outageReason(err: unknown): string {
  if (err instanceof NetworkError) return networkReason(err);
  if (err instanceof ApiError || err instanceof StorageError) return `${err.status} ${err.code}: ${err.message}`;
  if (err instanceof UnexpectedResponseError)
    return `${err.status} from something in between (a proxy or load balancer)`;
  return err instanceof Error ? err.message : String(err);
}

/** `cl_abcd…`: enough of a key to recognise it, never enough to use it. */
export function redactKey(key: string): string {
  if (key.length < 16) return '…';
  return `${key.slice(0, 7)}…`;
}
