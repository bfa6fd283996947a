// Request ids: every request gets one, returned as `x-request-id`, written on its log line and
// put in every error body's details, so a user can quote it and support can find the request.
// An incoming id (from a load balancer, or the CLI) is kept when it is safe to log as is.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Printable, short, no spaces or quotes: nothing a client sends can forge a log line. */
const SAFE_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/** Fastify's genReqId: the incoming x-request-id when it is safe, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}

/** The entry every error body's details end with. */
export function requestIdDetail(requestId: string): { message: string; requestId: string } {
  return { message: `request id ${requestId}; quote it when reporting a problem`, requestId };
}
