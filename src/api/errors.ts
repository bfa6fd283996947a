// Typed errors of the HTTP layer. Every failure of a request to the service or to object storage
// becomes exactly one of these, so the CLI can map it to an exit code and a hint in one place
// (src/cli/errors.ts) and the retry loops can decide from its type (classifyForRetry).
import type { RetryDecision } from './retry.js';
import { parseRetryAfter } from './retry.js';

/** The service answered with its JSON error body (DESIGN.md section 2). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: readonly unknown[];
  readonly method: string;
  readonly url: string;
  /** Milliseconds the server asked us to wait (Retry-After on 429/503), when it said. */
  readonly retryAfterMs: number | undefined;
  /** The server's id of the request (x-request-id), for a person to quote when reporting it. */
  readonly requestId: string | undefined;
  constructor(o: {
    status: number;
    code: string;
    message: string;
    details?: readonly unknown[];
    method: string;
    url: string;
    retryAfterMs?: number;
    requestId?: string;
  }) {
    super(o.message);
    this.name = 'ApiError';
    this.status = o.status;
    this.code = o.code;
    this.details = o.details ?? [];
    this.method = o.method;
    this.url = o.url;
    this.retryAfterMs = o.retryAfterMs;
    this.requestId = o.requestId;
  }
}

/** Object storage refused a PUT: our JSON body or S3's XML `<Error><Code>`. */
export class StorageError extends Error {
  readonly status: number;
  readonly code: string;
  readonly method: string;
  readonly url: string;
  readonly retryAfterMs: number | undefined;
  /** The store's id of the request (x-request-id, or S3's x-amz-request-id). */
  readonly requestId: string | undefined;
  constructor(o: {
    status: number;
    code: string;
    message: string;
    method: string;
    url: string;
    retryAfterMs?: number;
    requestId?: string;
  }) {
    super(o.message);
    this.name = 'StorageError';
    this.status = o.status;
    this.code = o.code;
    this.method = o.method;
    this.url = o.url;
    this.retryAfterMs = o.retryAfterMs;
    this.requestId = o.requestId;
  }
}

/** No answer at all: refused, reset, DNS failure. `code` is Node's (ECONNREFUSED, ...). */
export class NetworkError extends Error {
  readonly code: string | undefined;
  readonly method: string;
  readonly url: string;
  constructor(o: { message: string; code?: string; method: string; url: string; cause?: unknown }) {
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'NetworkError';
    this.code = o.code;
    this.method = o.method;
    this.url = o.url;
  }
}

/** No complete answer within the client's time limit. */
export class TimeoutError extends Error {
  readonly method: string;
  readonly url: string;
  readonly timeoutMs: number;
  constructor(o: { method: string; url: string; timeoutMs: number }) {
    super(`${o.method} ${o.url} got no answer within ${Math.round(o.timeoutMs / 1000)} s`);
    this.name = 'TimeoutError';
    this.method = o.method;
    this.url = o.url;
    this.timeoutMs = o.timeoutMs;
  }
}

/** An answer that is not ours: an HTML page from a proxy, an empty body, JSON of the wrong shape. */
export class UnexpectedResponseError extends Error {
  readonly status: number;
  readonly method: string;
  readonly url: string;
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
    super(o.message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'UnexpectedResponseError';
    this.status = o.status;
    this.method = o.method;
    this.url = o.url;
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
 * The `error` of our JSON error body (DESIGN.md section 2), or undefined when it is not one.
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

/**
 * Whether another try may help. Network errors, timeouts, 5xx and 429 are worth retrying (with
 * the server's Retry-After when it gave one); 4xx answers are final. Storage 403s are final
 * here: an expired URL is the engine's business (it presigns again).
 */
export function classifyForRetry(err: unknown): RetryDecision {
  if (err instanceof NetworkError || err instanceof TimeoutError) return { retry: true };
  if (err instanceof ApiError || err instanceof StorageError) {
    if (err.status === 429 || err.status >= 500) {
      return err.retryAfterMs === undefined ? { retry: true } : { retry: true, afterMs: err.retryAfterMs };
    }
    return { retry: false };
  }
  if (err instanceof UnexpectedResponseError) return { retry: err.status === 429 || err.status >= 500 };
  return { retry: false };
}

/** `cl_abcd…`: enough of a key to recognise it, never enough to use it. */
export function redactKey(key: string): string {
  if (key.length < 16) return '…';
  return `${key.slice(0, 7)}…`;
}
