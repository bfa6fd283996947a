// The Fastify app, built from its dependencies (fastify/demo's shape): no listening here, so
// tests and `startServer` decide where it runs, and a test can inject the clock.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { BRAND_HEADER } from '../api/headers.js';
import { authenticate } from './auth.js';
import { type AppDeps, type Services, createServices } from './context.js';
import { HttpError, apiError, clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './errors.js';
import { registerEdgeText } from './edge-text.js';
import { installJsonParser } from './json-body.js';
import type { Check, Unavailable } from './ops/health.js';
import { type DrainState, createDrainState, drainHeaders, registerDrainGuard } from './ops/drain.js';
import { EVERY_ANSWER_HEADERS, registerApiHeaders, registerSecurityHeaders } from './ops/headers.js';
import { registerHealth } from './ops/health.js';
import { registerRequestLog } from './ops/logging.js';
import { type Metrics, registerMetrics } from './ops/metrics.js';
import { requestIdOf } from './ops/request-id.js';
import { checkRouteHasScope, checkScope } from './scopes.js';
import { registerAudit } from './routes/audit.js';
import { registerCarousel } from './routes/carousel.js';
import { registerCheck } from './routes/check.js';
import { registerComplete } from './routes/complete.js';
import { registerPartsApi } from './routes/multipart.js';
import { registerContent } from './routes/content.js';
import { registerKeys } from './routes/keys.js';
import { registerPresign } from './routes/presign.js';
import { registerStorage } from './routes/storage.js';
import { createRateLimiter } from './rate-limit.js';
import { DEFAULT_PUT_LIMITS, FD_RESERVE } from './limits.js';
import { countConnections, createPutGate, openFileLimit } from './put-gate.js';

/** A connection silent this long is closed (Node's socket timeout). */
export const IDLE_TIMEOUT_MS = 120_000;
/** All request headers must have arrived within this time. */
export const HEADERS_TIMEOUT_MS = 30_000;

function noRouteSchemas(): never {
  throw new Error('Fastify route schemas are not used here: validate with the zod schemas of src/api/schemas.ts');
}

/** What operating the server adds (serve's flags); the embedded library runs with none of it. */
export interface OpsOptions {
  /** Fastify's logger (pino); without one the server is silent. */
  logger?: FastifyBaseLogger;
  /** What GET /readyz checks, by name (e.g. database, storage). */
  checks?: Record<string, Check>;
  metrics?: Metrics;
  /** GET /metrics on the app itself (serve --metrics); false when metrics have their own port. */
  metricsRoute?: boolean;
}

export function buildApp(
  deps: AppDeps,
  ops: OpsOptions = {},
): { app: FastifyInstance; services: Services; drain: DrainState } {
  const services = createServices(deps);
  const drain = createDrainState();
  const app = Fastify({
    ...(ops.logger ? { loggerInstance: ops.logger } : { logger: false }),
    // One line per request of our own (ops/logging.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: requestIdOf,
    requestIdHeader: false,
    // Requests arriving while the server closes get our 503 (ops/drain.ts), not Fastify's.
    return503OnClosing: false,
    // Big uploads take as long as they take, but a connection that sends nothing for this long
    // (headers never finished, a body that stalls) is closed: no client or socket waits forever.
    requestTimeout: 0,
    connectionTimeout: deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    // Idle keep-alive sockets are closed on shutdown.
    forceCloseConnections: 'idle',
    // Requests refused before routing still get the documented error body (see errors.ts).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    http: { requireHostHeader: false, headersTimeout: HEADERS_TIMEOUT_MS },
    // An id longer than find-my-way's default 100 characters must still reach the route and
    // answer 404 not_found like any unknown id, not a 400 naming a Fastify error code. Node's
    // 16 KB header limit bounds the URL anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    // Routes validate with zod (src/api/schemas.ts) and reply with JSON.stringify, never with
    // Fastify route schemas: these stand-ins keep Fastify from loading ajv and
    // fast-json-stringify (~130 modules) into every start of the embedded server.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  });
  installErrorHandling(app, deps.onInternalError ?? (() => undefined));
  registerSecurityHeaders(app);
  const unavailable: Unavailable = (message, details, headers) => apiError('unavailable', message, details, headers);
  registerDrainGuard(app, drain, unavailable);
  if (ops.logger) registerRequestLog(app);
  if (ops.metrics) registerMetrics(app, ops.metrics, { route: ops.metricsRoute ?? true });
  registerHealth(app, { checks: ops.checks ?? {}, draining: () => drain.draining, log: ops.logger, unavailable });
  // Every handler's work is tracked, so closing waits for it (see Services.drain).
  app.addHook('onRoute', (route) => {
    checkRouteHasScope(route.method, route.url);
    const handler = route.handler;
    route.handler = function tracked(this: FastifyInstance, request, reply) {
      return services.track(Promise.resolve(handler.call(this, request, reply)));
    };
  });
  const fileLimit = deps.fileLimit ?? openFileLimit();
  // Connections beyond this are dropped as they come, leaving descriptors for the database,
  // files being received and logs: a flood of connections cannot make them fail with EMFILE.
  if (Number.isFinite(fileLimit)) app.server.maxConnections = Math.max(16, fileLimit - FD_RESERVE / 2);
  if (deps.disk && deps.receiver) {
    const gate = createPutGate({
      limits: { ...DEFAULT_PUT_LIMITS, ...deps.putLimits },
      fileLimit,
      connections: countConnections(app.server),
    });
    registerStorage(app, services, deps.disk, deps.receiver, gate, () => ({
      ...EVERY_ANSWER_HEADERS,
      ...drainHeaders(drain),
    }));
  }

  const limit = deps.rateLimit ? createRateLimiter(deps.rateLimit, deps.now) : null;
  app.register(async (api) => {
    // The API speaks JSON only: any other body type is a 415, not a string handed to validation.
    api.removeContentTypeParser('text/plain');
    installJsonParser(api);
    // NUL and what is not UTF-8, in the path, the query or the body: 400 before any query.
    registerEdgeText(api);
    registerApiHeaders(api);
    api.addHook('onRequest', async (request, reply) => {
      try {
        request.caller = await authenticate(request, services.repo, deps.now);
      } catch (err) {
        // Requests without a valid key count against their address; valid keys are not held back.
        if (limit && err instanceof HttpError && err.status === 401) limit.unauthenticated(request.ip);
        throw err;
      }
      // Extension (docs/api.md): which brand the key is of, on every answer to an accepted key,
      // so that a client can say it (contentlib auth status). The spec's answers are unchanged.
      reply.header(BRAND_HEADER, encodeURIComponent(request.caller.brandName));
      limit?.checkKey(request.caller.keyId);
      checkScope(request.caller, request.method, request.routeOptions.url);
    });
    registerPresign(api, services);
    registerComplete(api, services);
    registerCheck(api, services);
    registerPartsApi(api, services);
    registerContent(api, services);
    registerCarousel(api, services);
    registerKeys(api, services);
    registerAudit(api, services);
  });
  return { app, services, drain };
}
