// Headers every answer carries for safety (OWASP's REST security cheat sheet): no browser may
// guess a type other than the one sent (nosniff), and the API's JSON — which holds signed URLs
// that work for an hour without a key — is never stored by a cache, nor framed or run as a page.
import type { FastifyInstance } from 'fastify';

/** On every answer, the probes and the stored files included. */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
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
