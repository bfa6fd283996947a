// Bearer API keys on every /api route (docs/api.md, Authentication and keys); the rate limit is ./rate-limit.ts.
import type { FastifyRequest } from 'fastify';
import { apiError } from './errors.js';
import type { Caller, Repo } from './repo/interface.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="contentlib"' };

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The caller of a request, or a 401 `unauthorized` error for a missing, malformed or unknown key. */
export async function authenticate(request: FastifyRequest, repo: Repo): Promise<Caller> {
  const header = request.headers.authorization;
  if (!header)
    throw apiError(
      'unauthorized',
      'no API key: send Authorization: Bearer <key> (create one with: contentlib keys create --brand NAME)',
      [],
      CHALLENGE,
    );
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw apiError('unauthorized', 'the Authorization header must be "Bearer <key>"', [], CHALLENGE);
  const caller = await repo.authenticate(match[1]!);
  if (!caller)
    throw apiError(
      'unauthorized',
      'the API key is not valid (unknown or revoked); check it or create a new one',
      [],
      CHALLENGE,
    );
  return caller;
}
