// Small helpers shared by the API routes.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../repo/keys.js';

/** The caller set by the auth hook; every /api route runs after it. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error('auth hook did not run for an /api route');
  return request.caller;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id that cannot exist answers 404 like any unknown id, without a database query. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
