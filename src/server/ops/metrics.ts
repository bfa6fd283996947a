// Prometheus metrics with prom-client: requests by route pattern and status, upload outcomes,
// bytes stored, items, sweeper runs and the database pool. Built only when `serve --metrics` or
// `--metrics-port` asks for them; each app has its own registry (tests start several servers).
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TYPE_RULES } from '../../rules/rules.js';
import { PROBE_ROUTES } from './health.js';

export interface PoolUse {
  /** Connections open. */
  total: number;
  /** Open and not in use. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/** What the metrics read when scraped; injected, so other back ends wire their own. */
export interface MetricsSources {
  itemsByType: () => Promise<Record<string, number>>;
  dbPool: () => PoolUse;
  inFlight: () => number;
}

const UPLOAD_STAGES: Record<string, string> = {
  'POST /api/v1/upload/presign': 'presign',
  'PUT /storage/*': 'put',
  'POST /api/v1/upload/complete': 'complete',
};

export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'contentlib_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status (probes and /metrics excluded)',
    labelNames,
    registers,
  });
  const duration = new Histogram({
    name: 'contentlib_http_request_duration_seconds',
    help: 'Time from the request to the end of the answer, by method, route pattern and status',
    labelNames,
    // API calls take milliseconds; storage PUTs and GETs of big files take minutes.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1200],
    registers,
  });
  new Gauge({
    name: 'contentlib_http_requests_in_flight',
    help: 'Requests being handled now',
    registers,
    collect() {
      this.set(sources.inFlight());
    },
  });
  const putBytes = new Counter({
    name: 'contentlib_storage_put_bytes_total',
    help: 'Bytes received and stored by successful storage PUTs',
    registers,
  });
  const completed = new Counter({
    name: 'contentlib_uploads_completed_total',
    help: 'Successful upload completes, by content type',
    labelNames: ['type'],
    registers,
  });
  const refused = new Counter({
    name: 'contentlib_uploads_refused_total',
    help: 'Uploads refused, by stage (presign, put, complete) and reason (the error code)',
    labelNames: ['stage', 'reason'],
    registers,
  });
  new Gauge({
    name: 'contentlib_items',
    help: 'Content items stored, by type',
    labelNames: ['type'],
    registers,
    async collect() {
      const counts = await sources.itemsByType();
      for (const type of Object.keys(TYPE_RULES)) this.set({ type }, counts[type] ?? 0);
    },
  });
  const sweeps = new Counter({
    name: 'contentlib_sweeper_runs_total',
    help: 'Sweeper runs, by outcome (ok, failed)',
    labelNames: ['outcome'],
    registers,
  });
  const swept = new Counter({
    name: 'contentlib_sweeper_deleted_total',
    help: 'What the sweeper removed: abandoned uploads, stray temp files, objects whose deletion was pending',
    labelNames: ['what'],
    registers,
  });
  new Gauge({
    name: 'contentlib_db_pool_connections',
    help: 'Database connections by state (total, idle, waiting callers)',
    labelNames: ['state'],
    registers,
    collect() {
      const use = sources.dbPool();
      this.set({ state: 'total' }, use.total);
      this.set({ state: 'idle' }, use.idle);
      this.set({ state: 'waiting' }, use.waiting);
    },
  });
  const draining = new Gauge({
    name: 'contentlib_draining',
    help: '1 while this instance drains before shutting down, else 0',
    registers,
  });
  draining.set(0);
  for (const what of ['uploads', 'temp_files', 'objects']) swept.inc({ what }, 0);
  for (const outcome of ['ok', 'failed']) sweeps.inc({ outcome }, 0);
  putBytes.inc(0);

  function observe(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url;
    if (route && (PROBE_ROUTES.has(route) || route === '/metrics')) return;
    const labels = { method: request.method, route: route ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    const stage = UPLOAD_STAGES[`${request.method} ${route ?? ''}`];
    if (!stage) return;
    const status = reply.statusCode;
    if (status >= 400) refused.inc({ stage, reason: request.errorCode ?? String(status) });
    else if (stage === 'put') putBytes.inc(Number(request.headers['content-length'] ?? 0) || 0);
    else if (stage === 'complete') completed.inc({ type: typeOf(request.body) });
  }

  return {
    registry,
    observe,
    /** What one sweep removed (src/server/sweeper.ts reports it). */
    done(report: Record<'uploads' | 'staging' | 'tempFiles' | 'objects', number>) {
      sweeps.inc({ outcome: 'ok' });
      swept.inc({ what: 'uploads' }, report.uploads);
      swept.inc({ what: 'staging' }, report.staging);
      swept.inc({ what: 'temp_files' }, report.tempFiles);
      swept.inc({ what: 'objects' }, report.objects);
    },
    failed() {
      sweeps.inc({ outcome: 'failed' });
    },
    setDraining(on: boolean) {
      draining.set(on ? 1 : 0);
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

function typeOf(body: unknown): string {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === 'string' && type in TYPE_RULES ? type : 'unknown';
}

/** Counts every answer; with `route`, also serves GET /metrics on the app itself. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, o: { route: boolean }): void {
  app.addHook('onResponse', async (request, reply) => metrics.observe(request, reply));
  if (!o.route) return;
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}

/** `--metrics-port`: GET /metrics on a listener of its own, apart from the API. */
export async function listenMetrics(
  metrics: Metrics,
  host: string,
  port: number,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      (err: unknown) =>
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${actual}/metrics`, server };
}
