// Bearer API keys on every /api route: who the caller is, whether the key may still be used
// (revoked, expired) and when it was last used (docs/api.md, Authentication and keys). What each
// endpoint needs of the key is ./scopes.ts; the rate limit is ./rate-limit.ts.
import type { FastifyRequest } from 'fastify';
import { BATCH_HEADER, BATCH_ID_PATTERN } from '../api/headers.js';
import { apiError } from './errors.js';
import type { Actor, Caller, Repo } from './repo/interface.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="contentlib"' };

/** A key's last use is written at most this often: a busy key does not write on every request. */
export const LAST_USED_EVERY_MS = 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

const refused = (message: string, details: Array<{ path?: string; message: string; [k: string]: unknown }> = []) =>
  apiError('unauthorized', message, details, CHALLENGE);

/**
 * The caller of a request, or a 401 `unauthorized` error for a missing, malformed, unknown,
 * revoked or expired key (the message says which, and when).
 */
export async function authenticate(request: FastifyRequest, repo: Repo, now: () => Date): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header)
    throw refused(
      'no API key: send Authorization: Bearer <key> (create one with: contentlib keys create --brand NAME)',
    );
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw refused('the Authorization header must be "Bearer <key>"');
  const key = await repo.authenticate(match[1]!);
  if (!key) throw refused('the API key is not valid (unknown or revoked); check it or create a new one');
  const at = now();
  const iso = at.toISOString();
  if (key.revokedAt !== null)
    throw refused(`the API key was revoked at ${key.revokedAt}; ask an admin of the brand for a new one`, [
      { path: 'authorization', message: 'revoked', revokedAt: key.revokedAt },
    ]);
  if (key.expiresAt !== null && key.expiresAt <= iso)
    throw refused(`the API key expired at ${key.expiresAt}; ask an admin of the brand for a new one`, [
      { path: 'authorization', message: 'expired', expiredAt: key.expiresAt },
    ]);
  const notAfter = new Date(at.getTime() - LAST_USED_EVERY_MS).toISOString();
  if (key.lastUsedAt === null || key.lastUsedAt < notAfter) await repo.touchKey(key.keyId, iso, notAfter);
  return {
    keyId: key.keyId,
    keyName: key.keyName,
    userId: key.userId,
    brandId: key.brandId,
    brandName: key.brandName,
    scopes: key.scopes,
  };
}

/**
 * Who a change is made by, for its audit entry: the request's key, the request's id, and the bulk
 * change it belongs to (the Content-Library-Batch header, an extension: docs/api.md). A batch id
 * that is not one is refused (400) before anything changes, rather than recorded as no batch.
 */
export function actorOf(request: FastifyRequest): Actor {
  const caller = request.caller;
  if (!caller) throw new Error('auth hook did not run for an /api route');
  const batch = request.headers[BATCH_HEADER];
  if (batch !== undefined && (typeof batch !== 'string' || !BATCH_ID_PATTERN.test(batch)))
    throw apiError(
      'invalid_request',
      `the ${BATCH_HEADER} header must be a batch id: 8 to 64 letters, digits, - or _ (a UUID)`,
      [{ path: BATCH_HEADER, message: 'not a batch id' }],
    );
  return {
    keyId: caller.keyId,
    keyName: caller.keyName,
    requestId: request.id,
    ...(batch !== undefined ? { batchId: batch } : {}),
  };
}
