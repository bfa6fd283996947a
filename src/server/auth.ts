// Bearer API keys on every /api route, and the optional per-key rate limit (docs/api.md, Authentication and keys).
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

/** A fixed-window counter per key: simple, and enough to exercise clients' 429 handling. */
export function createRateLimiter(limit: { max: number; windowMs: number }, now: () => Date) {
  const windows = new Map<string, { start: number; count: number }>();
  return function check(keyId: string): void {
    const t = now().getTime();
    let w = windows.get(keyId);
    if (!w || t - w.start >= limit.windowMs) {
      w = { start: t, count: 0 };
      windows.set(keyId, w);
    }
    w.count++;
    if (w.count > limit.max) {
      const retryAfter = Math.max(1, Math.ceil((w.start + limit.windowMs - t) / 1000));
      throw apiError(
        'rate_limited',
        `too many requests: at most ${limit.max} per ${limit.windowMs} ms; retry after ${retryAfter} s`,
        [],
        {
          'Retry-After': String(retryAfter),
        },
      );
    }
  };
}
