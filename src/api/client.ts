// The typed HTTP client of the Content Library Service: the JSON calls over node:http with one
// keep-alive pool for the whole run (./http-transport.ts), which the downloads' GETs share, the
// storage PUTs over an undici dispatcher created on first use (./undici.ts), one method per endpoint, every answer
// parsed with the shared zod schemas, every failure a typed error (./errors.ts), and retries
// through ./retry.ts.
import { LazyAgent, request } from './undici.js';
import type { Transport } from './undici.js';
import { type HttpPool, createHttpPool } from './http-transport.js';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  ApiError,
  NetworkError,
  TimeoutError,
  UnexpectedResponseError,
  classifyForRetry,
  errorFromResponse,
  errorFromThrown,
  redactKey,
  requestIdHeader,
} from './errors.js';
import type { RetryInfo, RetryPolicy } from './retry.js';
import { BATCH_HEADER, BRAND_HEADER } from './headers.js';
import { DEFAULT_RETRY, withRetry } from './retry.js';
import type {
  AuditResponse,
  CarouselResponse,
  CheckRequest,
  CheckResponse,
  CompleteRequest,
  CompleteResponse,
  DeleteResponse,
  GetResponse,
  KeyCreateRequest,
  KeyCreateResponse,
  KeyListResponse,
  KeyRevokeResponse,
  ListResponse,
  PatchRequest,
  AbortUploadRequest,
  PartsRequest,
  AbortUploadResponse,
  PartsResponse,
  PatchResponse,
  PresignRequest,
  PresignResponse,
  ReplaceImageRequest,
  ReplaceImageResponse,
} from './schemas.js';
// The responses alone: the client never builds the request schemas (the server checks those).
import {
  AuditResponseSchema,
  CarouselResponseSchema,
  CheckResponseSchema,
  CompleteResponseSchema,
  DeleteResponseSchema,
  GetResponseSchema,
  KeyCreateResponseSchema,
  KeyListResponseSchema,
  KeyRevokeResponseSchema,
  ListResponseSchema,
  AbortUploadResponseSchema,
  PartsResponseSchema,
  PatchResponseSchema,
  PresignResponseSchema,
  ReplaceImageResponseSchema,
} from './response-schemas.js';
import type { ContentType, Status } from '../rules/rules.js';
import type { ListSort } from './schemas.js';

export const DEFAULT_TIMEOUT_MS = 30_000;

/** List filters as the CLI holds them; numbers or the digits of the query string alike. */
export interface ListParams {
  status?: Status;
  type?: ContentType;
  search?: string;
  /** Extension of our own server (docs/api.md): ids starting with this; other services may refuse or ignore it. */
  idPrefix?: string;
  /** Extension of our own server (docs/api.md): only these ids (at most 100); other services may refuse or ignore it. */
  id?: readonly string[];
  limit?: number | string;
  offset?: number | string;
  // The search extension of our own server (docs/api.md "Search, sort and cursor paging").
  hashtag?: readonly string[];
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  createdBy?: string;
  updatedBy?: string;
  minDuration?: number;
  maxDuration?: number;
  q?: string;
  sort?: ListSort;
  order?: 'asc' | 'desc';
  cursor?: string;
}

/** Audit log filters (an extension: GET /api/v1/audit). */
export interface AuditParams {
  itemId?: string;
  keyId?: string;
  /** ISO time. */
  since?: string;
  /** The nextBefore of the previous page. */
  before?: number;
  /** One bulk change's entries (extension). */
  batchId?: string;
  limit?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Told before each retry's wait (the upload engine turns it into a `retrying` event). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * A change that is part of a bulk change (an extension: BATCH_HEADER): sent on PATCH, DELETE
   * and a carousel's changes, so our server records it in the change's audit entry.
   */
  batchId?: string;
}

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  /** An undici dispatcher (a test's MockAgent): then the JSON calls go through it too, as the storage requests do. */
  dispatcher?: Dispatcher;
  retry?: RetryPolicy;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => Date;
  /** Per request: no answer headers, or a body that stalls, for this long is a TimeoutError. */
  timeoutMs?: number;
  /** --verbose: one line per request, response and retry. The API key never appears. */
  trace?: (line: string) => void;
}

export interface ApiClient {
  baseUrl: string;
  /** What the storage PUTs go through (src/upload/send/put.ts). */
  dispatcher: Transport;
  /** What the downloads' GETs go through (src/download/fetch.ts), and the JSON calls unless a dispatcher was given. */
  http: HttpPool;
  presign(body: PresignRequest, o?: CallOptions): Promise<PresignResponse>;
  complete(body: CompleteRequest, o?: CallOptions): Promise<CompleteResponse>;
  /** An extension (docs/api.md): which of these files' bytes the brand's library holds already. */
  check(body: CheckRequest, o?: CallOptions): Promise<CheckResponse>;
  /** An extension (docs/api.md "Multipart uploads"): part URLs, and the parts received. Signs afresh each call, so it may be retried. */
  parts(body: PartsRequest, o?: CallOptions): Promise<PartsResponse>;
  /** An extension (docs/api.md "Multipart uploads"): closes an open upload and frees its parts. Idempotent. */
  abortUpload(body: AbortUploadRequest, o?: CallOptions): Promise<AbortUploadResponse>;
  list(query: ListParams, o?: CallOptions): Promise<ListResponse>;
  get(id: string, o?: CallOptions): Promise<GetResponse>;
  patch(id: string, body: PatchRequest, o?: CallOptions): Promise<PatchResponse>;
  remove(id: string, o?: CallOptions): Promise<DeleteResponse>;
  // Extensions of contentlib serve (docs/api.md): a service without them answers 404.
  createKey(body: KeyCreateRequest, o?: CallOptions): Promise<KeyCreateResponse>;
  listKeys(o?: CallOptions): Promise<KeyListResponse>;
  revokeKey(id: string, o?: CallOptions): Promise<KeyRevokeResponse>;
  audit(query: AuditParams, o?: CallOptions): Promise<AuditResponse>;
  /** A carousel's images in this order: each of its file ids once (409 files_changed otherwise). */
  reorderImages(id: string, fileIds: readonly string[], o?: CallOptions): Promise<CarouselResponse>;
  /** Removes one image (409 carousel_minimum at 2); its objects are deleted. */
  removeImage(id: string, fileId: string, o?: CallOptions): Promise<CarouselResponse>;
  /** Completes an upload (presigned and PUT as a carousel image) into that image's place. */
  replaceImage(id: string, fileId: string, body: ReplaceImageRequest, o?: CallOptions): Promise<ReplaceImageResponse>;
  /** The brand of the key, as the last answer told it (our server's Content-Library-Brand header); undefined otherwise. */
  reportedBrand(): string | undefined;
  close(): Promise<void>;
}

/** One keep-alive undici pool per run for the engine's PUTs and the downloads, made on first use. */
export function createDispatcher(): LazyAgent {
  return new LazyAgent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 16,
    connect: { timeout: 10_000 },
  });
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A fresh id for one try of a request, in a UUID's shape: random enough to tell requests apart
 * in the logs, and no secret. Not node:crypto's randomUUID: loading node:crypto cost every
 * command ~4 ms of its start-up (bench/notes.md), for ids that need no cryptographic strength.
 */
function newRequestId(): string {
  let hex = '';
  while (hex.length < 32)
    hex += Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function queryString(q: ListParams | AuditParams): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q) as [string, unknown][]) {
    // A list (hashtag, id) repeats its name: hashtag=a&hashtag=b.
    if (Array.isArray(v)) for (const one of v) params.append(k, String(one));
    else if (v !== undefined && v !== '') params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** An error detail naming the image (path fileId): the carousel is there, that image is not. */
function isFileIdDetail(d: unknown): boolean {
  return (d as { path?: unknown } | null)?.path === 'fileId';
}

export function createApiClient(opts: ApiClientOptions): ApiClient {
  const baseUrl = trimSlash(opts.baseUrl);
  const ownDispatcher = opts.dispatcher === undefined;
  const dispatcher: Transport = opts.dispatcher ?? createDispatcher();
  // A dispatcher given (a test's MockAgent) answers the JSON calls too; otherwise node:http does.
  // The downloads' GETs always go over node:http (its agents are made on first use).
  const http = createHttpPool();
  const pool = ownDispatcher ? http : undefined;
  const policy = opts.retry ?? DEFAULT_RETRY;
  const sleep = opts.sleep ?? defaultSleep;
  const now = opts.now ?? (() => new Date());
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const trace = opts.trace;
  let brand: string | undefined;

  /** One try: send, read the whole body, turn a non-2xx into a typed error, parse a 2xx. */
  async function once<S extends z.ZodType>(
    method: Dispatcher.HttpMethod,
    path: string,
    schema: S,
    body: unknown,
    o: CallOptions | undefined,
  ): Promise<z.infer<S>> {
    const signal = o?.signal;
    const url = `${baseUrl}${path}`;
    const started = Date.now();
    // Each try names itself: a server that keeps incoming ids (ours does) logs it under this one,
    // so even a request that got no answer can be found in its logs.
    const sentId = newRequestId();
    trace?.(
      `→ ${method} ${url} (Authorization: Bearer ${redactKey(opts.apiKey)}; x-request-id ${sentId}${o?.batchId === undefined ? '' : `; batch ${o.batchId}`})`,
    );
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const sent = {
        authorization: `Bearer ${opts.apiKey}`,
        accept: 'application/json',
        'x-request-id': sentId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(o?.batchId === undefined ? {} : { [BATCH_HEADER]: o.batchId }),
      };
      const payload = body === undefined ? undefined : JSON.stringify(body);
      if (pool) {
        ({ status, headers, text } = await pool.send({ method, url, headers: sent, body: payload, timeoutMs, signal }));
      } else {
        const res = await request(url, {
          method,
          dispatcher,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          headers: sent,
          body: payload,
        });
        status = res.statusCode;
        headers = res.headers;
        text = await res.body.text();
      }
    } catch (err) {
      const typed = errorFromThrown(err, { method, url, timeoutMs, signal });
      const why =
        typed instanceof NetworkError
          ? (typed.code ?? typed.message)
          : typed instanceof TimeoutError
            ? 'timeout'
            : String((typed as Error)?.message ?? typed);
      trace?.(`← ${method} ${url} failed after ${Date.now() - started} ms: ${why} (x-request-id ${sentId} sent)`);
      throw typed;
    }
    const requestId = requestIdHeader(headers);
    const brandHeader = headers[BRAND_HEADER];
    if (typeof brandHeader === 'string') {
      try {
        brand = decodeURIComponent(brandHeader);
      } catch {
        brand = brandHeader;
      }
    }
    trace?.(`← ${status} ${method} ${url} in ${Date.now() - started} ms (request id ${requestId ?? 'none given'})`);
    if (status < 200 || status >= 300) throw errorFromResponse(status, headers, text, method, url, now());
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new UnexpectedResponseError({
        status,
        method,
        url,
        bodySnippet: text.slice(0, 200),
        message: `${method} ${url} answered ${status} with a body that is not JSON; is the base URL the Content Library Service?`,
        cause,
        requestId,
      });
    }
    // jitless: zod's fast path generates and compiles a parser per object schema on its first
    // parse (new Function, which no code cache keeps); a command parses a few small answers, so
    // that compile cost more than it saved (bench/notes.md, issue 33). A page of 100 items parses
    // in 0.2 ms this way, 0.12 ms with the compiled parser.
    const parsed = schema.safeParse(json, { jitless: true });
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new UnexpectedResponseError({
        status,
        method,
        url,
        bodySnippet: text.slice(0, 200),
        message: `${method} ${url} answered with JSON of an unexpected shape (${first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'invalid'}); is the base URL the Content Library Service?`,
        requestId,
      });
    }
    return parsed.data;
  }

  function call<S extends z.ZodType>(
    method: Dispatcher.HttpMethod,
    path: string,
    schema: S,
    body: unknown,
    o: CallOptions | undefined,
    fallback?: (err: unknown) => z.infer<S> | undefined,
    how: { retry?: boolean } = {},
  ): Promise<z.infer<S>> {
    if (how.retry === false) return once(method, path, schema, body, o);
    return withRetry(
      async () => {
        try {
          return await once(method, path, schema, body, o);
        } catch (err) {
          const rescued = fallback?.(err);
          if (rescued !== undefined) return rescued;
          throw err;
        }
      },
      {
        policy,
        sleep,
        signal: o?.signal,
        classify: classifyForRetry,
        onRetry: (info) => {
          trace?.(
            `  retry ${info.attempt}${info.outage ? '' : `/${policy.attempts - 1}`} of ${method} ${path} in ${info.delayMs} ms (${(info.error as Error).name})`,
          );
          o?.onRetry?.(info);
        },
      },
    );
  }

  const enc = encodeURIComponent;

  return {
    baseUrl,
    dispatcher,
    http,
    reportedBrand: () => brand,
    presign: (body, o) => call('POST', '/api/v1/upload/presign', PresignResponseSchema, body, o),
    // complete is idempotent per key on the server (src/server/routes/complete.ts), so it may be retried.
    complete: (body, o) => call('POST', '/api/v1/upload/complete', CompleteResponseSchema, body, o),
    check: (body, o) => call('POST', '/api/v1/upload/check', CheckResponseSchema, body, o),
    parts: (body, o) => call('POST', '/api/v1/upload/parts', PartsResponseSchema, body, o),
    abortUpload: (body, o) => call('POST', '/api/v1/upload/abort', AbortUploadResponseSchema, body, o),
    list: (query, o) => call('GET', `/api/v1/content${queryString(query)}`, ListResponseSchema, undefined, o),
    get: (id, o) => call('GET', `/api/v1/content/${enc(id)}`, GetResponseSchema, undefined, o),
    patch: (id, body, o) => call('PATCH', `/api/v1/content/${enc(id)}`, PatchResponseSchema, body, o),
    remove: (id, o) => {
      // A DELETE whose answer was lost may have happened: when a retry after a network error
      // answers 404, the first try deleted it, and that is success.
      let lostAnswer = false;
      return call('DELETE', `/api/v1/content/${enc(id)}`, DeleteResponseSchema, undefined, o, (err) => {
        if (err instanceof NetworkError || err instanceof TimeoutError) lostAnswer = true;
        if (lostAnswer && err instanceof ApiError && err.status === 404) {
          trace?.(`  ${id}: the retry found it gone, so the first DELETE went through`);
          return { deleted: true as const };
        }
        return undefined;
      });
    },
    // A retry of a create whose answer was lost could make a second key: it is not retried.
    createKey: (body, o) => call('POST', '/api/v1/keys', KeyCreateResponseSchema, body, o, undefined, { retry: false }),
    listKeys: (o) => call('GET', '/api/v1/keys', KeyListResponseSchema, undefined, o),
    revokeKey: (id, o) => call('DELETE', `/api/v1/keys/${enc(id)}`, KeyRevokeResponseSchema, undefined, o),
    audit: (query, o) => call('GET', `/api/v1/audit${queryString(query)}`, AuditResponseSchema, undefined, o),
    // The same order again changes nothing, so a retry after a lost answer is harmless.
    reorderImages: (id, fileIds, o) =>
      call('PUT', `/api/v1/content/${enc(id)}/order`, CarouselResponseSchema, { fileIds }, o),
    removeImage: async (id, fileId, o) => {
      // As for an item: a retry after a lost answer that finds the image gone means the first
      // try removed it; the carousel is then read as it now is.
      let lostAnswer = false;
      try {
        return await call(
          'DELETE',
          `/api/v1/content/${enc(id)}/files/${enc(fileId)}`,
          CarouselResponseSchema,
          undefined,
          o,
          (err) => {
            if (err instanceof NetworkError || err instanceof TimeoutError) lostAnswer = true;
            return undefined;
          },
        );
      } catch (err) {
        const imageGone = err instanceof ApiError && err.status === 404 && err.details.some(isFileIdDetail);
        if (!lostAnswer || !imageGone) throw err;
        trace?.(`  ${id}: the retry found image ${fileId} gone, so the first DELETE went through`);
        return call('GET', `/api/v1/content/${enc(id)}`, CarouselResponseSchema, undefined, o);
      }
    },
    // Idempotent per upload key, like complete.
    replaceImage: (id, fileId, body, o) =>
      call('PUT', `/api/v1/content/${enc(id)}/files/${enc(fileId)}`, ReplaceImageResponseSchema, body, o),
    close: async () => {
      http.close();
      if (!ownDispatcher) return;
      await dispatcher.close();
    },
  };
}
