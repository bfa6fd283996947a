// Every non-2xx answer has the error body of docs/api.md: { error: { code, message, details } }.
// Routes throw HttpError; Fastify's own 4xx (bad JSON, wrong content type, body too large,
// unknown route) are rewritten into the same shape; anything else is a masked 500 `internal`.
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { randomUUID } from 'node:crypto';
import { API_ERRORS, type ApiErrorCode, STORAGE_ERRORS, type StorageErrorCode } from '../api/error-codes.js';
import type { ErrorBody } from '../api/schemas.js';
import type { Violation } from '../rules/rules.js';
import { errorCode } from '../sqlite/codes.js';
import { REQUEST_ID_HEADER, requestIdDetail } from './ops/request-id.js';
import { type DependencyPart, RETRY_AFTER_SECONDS, UnavailableError } from './unavailable.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error code this request was answered with (for its log line and the metrics). */
    errorCode?: string;
  }
}

export interface ErrorDetail {
  path?: string;
  message: string;
  [more: string]: unknown;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** An API error whose status comes from the one code table. */
export function apiError(
  code: ApiErrorCode,
  message: string,
  details: ErrorDetail[] = [],
  headers: Record<string, string> = {},
): HttpError {
  return new HttpError(API_ERRORS[code], code, message, details, headers);
}

export function storageError(code: StorageErrorCode, message: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(STORAGE_ERRORS[code], code, message, [], headers);
}

/** A file breaking a rule of the table (src/rules/rules.ts), as the API error it names. */
export function violationError(v: Violation): HttpError {
  return apiError(v.code, v.message, [
    { path: v.rule, message: v.message, actual: v.actual, ...(v.limit === undefined ? {} : { limit: v.limit }) },
  ]);
}

/** ENOSPC and friends: the data dir's disk (or its quota) is full, for files or the database. */
export function isDiskFull(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

export function zodDetails(err: ZodError): ErrorDetail[] {
  return err.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

export function invalidRequest(err: ZodError, what: string): HttpError {
  const details = zodDetails(err);
  const first = details[0];
  const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid';
  return apiError('invalid_request', `${what} is invalid (${summary}); fix the fields listed in details`, details);
}

/** The error body, its details ending with the request id, so that a user can quote it. */
export function sendError(reply: FastifyReply, err: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  const requestId = reply.request.id;
  reply.request.errorCode = err.code;
  return reply
    .code(err.status)
    .header(REQUEST_ID_HEADER, requestId)
    .type('application/json; charset=utf-8')
    .send({
      error: { code: err.code, message: err.message, details: [...err.details, requestIdDetail(requestId)] },
    } satisfies ErrorBody);
}

const PART_WORDS: Record<DependencyPart, string> = { database: 'database', storage: 'file storage' };

/**
 * A dependency that cannot be used now, as the client sees it: 503 `unavailable` naming the part,
 * never how it failed (hosts, ports and paths go to the log, once per outage: ops/outages.ts).
 */
export function unavailableError(err: UnavailableError): HttpError {
  return apiError(
    'unavailable',
    `the service's ${PART_WORDS[err.part]} is not answering right now; try again in a few seconds`,
    [{ path: err.part, message: 'unavailable' }],
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/** Fastify's own client errors, in our words (its messages are fine but may name internals). */
function fromFastify(err: FastifyError): HttpError | null {
  const status = err.statusCode ?? 500;
  if (status >= 500 || status < 400) return null;
  switch (status) {
    case 413:
      return apiError(
        'file_too_large',
        'the request body is too large for this endpoint; file bytes go to the presigned URL, not to the API',
      );
    case 415:
      return apiError('unsupported_media_type', 'send the request body as JSON with Content-Type: application/json');
    case 404:
      return apiError('not_found', 'no such endpoint; see docs/api.md for the list');
    default:
      if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return apiError('invalid_request', `the request body is not valid JSON (${err.message}); send a JSON object`);
      }
      if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        return apiError('invalid_request', 'the request body is empty; send a JSON object');
      }
      // Any other client error Fastify raises (bad header, bad URL encoding): keep its status.
      return new HttpError(status, 'invalid_request', `the request was refused: ${err.message}`);
  }
}

/** Fastify's own early refusals (a URL that is not valid percent-encoding), in our shape instead of Fastify's. */
export function frameworkErrorHandler(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    err.code === 'FST_ERR_BAD_URL'
      ? 'the URL is not valid (a broken %-escape); percent-encode it properly'
      : `the request was refused (${err.code})`;
  sendError(reply, apiError('invalid_request', message, [{ path: 'url', message: err.code }]));
}

/** Sockets on which the HTTP parser refused bytes (see clientErrorHandler). */
const refused = new WeakSet<object>();

/**
 * True once the parser refused bytes on this socket. Bytes right after a PUT body that filled
 * its Content-Length are refused this way (a body that ran past its length), so the PUT keeps
 * nothing: the check runs after the body was read, when the parser has seen what followed it.
 */
export function parserRefused(socket: object): boolean {
  return refused.has(socket);
}

/**
 * Requests Node's HTTP parser refuses before any route sees them (a garbled request line,
 * headers over the size limit, a body shorter than its Content-Length): answered on the raw
 * socket, still in the documented error shape, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  refused.add(socket);
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'the request headers are too large; send fewer or shorter headers'
        : `the HTTP request is malformed (${err.code ?? 'parse error'}); send a well-formed HTTP/1.1 request`;
    // No request was parsed, so none has an id yet: this answer gets its own.
    const requestId = randomUUID();
    const body = JSON.stringify({
      error: { code: 'invalid_request', message, details: [requestIdDetail(requestId)] },
    } satisfies ErrorBody);
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function installErrorHandling(
  app: FastifyInstance,
  onInternalError: (err: unknown, requestId?: string) => void,
): void {
  // Every answer names its request (errors also in their body, through sendError).
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  // Node would refuse a request without Host with an empty 400; this says why, in our shape.
  app.addHook('onRequest', async (request) => {
    if (!request.headers.host)
      throw apiError('invalid_request', 'the request has no Host header; HTTP/1.1 requires one');
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      apiError('not_found', `no endpoint ${request.method} ${request.url.split('?')[0]}; see docs/api.md for the list`),
    );
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) return sendError(reply, err);
    if (err instanceof UnavailableError) return sendError(reply, unavailableError(err));
    if (err instanceof ZodError) return sendError(reply, invalidRequest(err, 'the request'));
    const known = fromFastify(err);
    if (known) return sendError(reply, known);
    if (isDiskFull(err))
      return sendError(
        reply,
        apiError(
          'insufficient_storage',
          'the server has no disk space left, so nothing was changed; delete items to free space, or try later',
        ),
      );
    onInternalError(err, request.id);
    return sendError(
      reply,
      apiError('internal', 'the server failed unexpectedly; try again, and report it if it keeps happening'),
    );
  });
}
