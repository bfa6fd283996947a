// The browse server: a small web app in the CLI process (`contentlib browse`) on 127.0.0.1,
// showing one library through the same API client as every other command. The surface of
// src/browse/ (scripts/check-imports.js): the CLI starts it here and knows nothing else of it.
import Fastify from 'fastify';
import { loadAssets } from './assets.js';
import { type Guard, judge, launchUrl, makeGuard, securityHeaders } from './access-guard.js';
import type { BrowseOptions } from './options.js';
import { registerRoutes } from './routes.js';

export type { BrowseLibrary, BrowseOptions } from './options.js';

export interface RunningBrowse {
  /** http://127.0.0.1:PORT (no token). */
  origin: string;
  /** The URL to open: `path` of the pages with this launch's token. */
  launchUrl(path?: string): string;
  close(): Promise<void>;
}

export async function startBrowse(o: BrowseOptions): Promise<RunningBrowse> {
  const assets = await loadAssets();
  // forceCloseConnections: a browser's kept-alive connections must not hold the command after Ctrl-C.
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  const stopping = new AbortController();
  // Known once listening: the port is part of what the guard checks.
  const state: { guard?: Guard } = {};

  // Every request is judged first (Host, Origin, the token), whatever its route, 404s included.
  app.addHook('onRequest', async (request, reply) => {
    // Nothing is answered before the port, and so the token's guard, is known.
    if (!state.guard) return reply.code(503).send();
    const verdict = judge(state.guard, {
      method: request.method,
      url: request.url,
      host: request.headers.host,
      origin: request.headers.origin,
      fetchSite: oneHeader(request.headers['sec-fetch-site']),
      cookie: request.headers.cookie,
    });
    if (verdict.kind === 'pass') return;
    reply.headers(securityHeaders());
    if (verdict.kind === 'login')
      return reply.code(303).header('Set-Cookie', verdict.setCookie).header('Location', verdict.location).send();
    return reply.code(verdict.status).type('text/plain; charset=utf-8').send(`${verdict.message}\n`);
  });
  // Pages set their own CSP (with their file origins); anything else gets the strictest.
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(securityHeaders()))
      if (!reply.hasHeader(name)) reply.header(name, value);
    return payload;
  });

  registerRoutes(app, { ...o, assets, signal: stopping.signal });
  await app.listen({ host: '127.0.0.1', port: o.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (o.port ?? 0);
  const g = makeGuard(port, o.token);
  state.guard = g;
  return {
    origin: `http://127.0.0.1:${port}`,
    launchUrl: (path = '/') => launchUrl(g, path),
    close: async () => {
      stopping.abort(new Error('browse is stopping'));
      await app.close();
    },
  };
}

function oneHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
