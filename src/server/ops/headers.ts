// Headers every answer carries for safety (OWASP's REST security cheat sheet): no browser may
// guess a type other than the one sent (nosniff), and the API's JSON — which holds signed URLs
// that work for an hour without a key — is never stored by a cache, nor framed or run as a page.
import type { FastifyInstance } from 'fastify';

/**
 * On every answer, the probes and the stored files included: by the hook below, and written
 * with a stored file's body, which Fastify does not send (src/server/routes/storage.ts).
 */
export const EVERY_ANSWER_HEADERS: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(EVERY_ANSWER_HEADERS);
    return payload;
  });
}

/** On every answer of the API's scope (/api/v1/…), errors included. */
export function registerApiHeaders(api: FastifyInstance): void {
  api.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    reply.header('X-Frame-Options', 'DENY');
    return payload;
  });
}
