// Starting and stopping the embedded server: `contentlib serve`, the CLI's embedded mode and the
// tests all come through here (the contract in the team brief).
import type { Server } from 'node:http';
import { DEFAULT_QUOTA_BYTES, URL_LIFETIME_SECONDS } from '../rules/rules.js';
import { buildApp } from './app.js';
import { databasePath, openDatabase } from './db.js';
import { type DrainOptions, drainApp } from './ops/drain.js';
import { diskCheck, sqliteCheck, sqliteItemsByType, sqlitePool } from './ops/embedded.js';
import { type LogOptions, createLogger } from './ops/logging.js';
import { createMetrics, listenMetrics } from './ops/metrics.js';
import { loadSecret } from './signing.js';
import { type Storage, createStorage } from './storage.js';
import { type SweepReport, startSweeper, sweep } from './sweeper.js';

export interface StartServerOptions {
  dataDir: string;
  host?: string;
  port?: number;
  now?: () => Date;
  quotaBytes?: number;
  rateLimit?: { max: number; windowMs: number };
  urlLifetimeSeconds?: number;
  faults?: { dropPutAfterBytes: number; count: number };
  onInternalError?: (err: unknown, requestId?: string) => void;
  /** serve: logs (pino); without it the server writes nothing (the CLI's embedded library). */
  log?: LogOptions;
  /** serve: Prometheus metrics at GET /metrics, on the API's port or on a `port` of their own. */
  metrics?: { port?: number };
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Where metrics are served, when they are. */
  metricsUrl?: string;
  /** Finishes in-flight requests, stops the sweeper, closes the database. */
  close(): Promise<void>;
  /** close() for a service behind a load balancer: /readyz 503 first, then a grace period, then a time limit. */
  drain(o: DrainOptions): Promise<void>;
  /** Runs the sweeper once now (tests, after moving the injected clock). */
  sweep(): Promise<SweepReport>;
  /** Where objects live on disk (tests check that nothing is left behind). */
  storage: Storage;
}

function writeInternalError(err: unknown): void {
  process.stderr.write(
    `contentlib server: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
}

export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const now = opts.now ?? (() => new Date());
  const logger = opts.log ? createLogger(opts.log) : undefined;
  const onInternalError =
    opts.onInternalError ??
    (logger
      ? (err: unknown, requestId?: string) => logger.error({ err, requestId }, 'internal error')
      : writeInternalError);
  const db = openDatabase(opts.dataDir);
  let metricsServer: Server | undefined;
  try {
    const secret = await loadSecret(opts.dataDir);
    const storage = createStorage(opts.dataDir);
    let inFlight = () => 0;
    const metrics = opts.metrics
      ? createMetrics({ itemsByType: sqliteItemsByType(db), dbPool: sqlitePool, inFlight: () => inFlight() })
      : undefined;
    const { app, services, drain } = buildApp(
      {
        db,
        storage,
        secret,
        now,
        quotaBytes: opts.quotaBytes ?? DEFAULT_QUOTA_BYTES,
        urlLifetimeSeconds: opts.urlLifetimeSeconds ?? URL_LIFETIME_SECONDS,
        rateLimit: opts.rateLimit,
        faults: opts.faults,
        onInternalError,
      },
      {
        logger,
        checks: { database: sqliteCheck(db, databasePath(opts.dataDir)), storage: diskCheck(opts.dataDir) },
        metrics,
        metricsRoute: opts.metrics?.port === undefined,
      },
    );
    inFlight = services.inFlight;
    const stopSweeper = startSweeper(services, onInternalError, undefined, metrics);
    const host = opts.host ?? '127.0.0.1';
    let address: string;
    let metricsUrl: string | undefined;
    try {
      address = await app.listen({ host, port: opts.port ?? 0 });
      if (metrics && opts.metrics?.port !== undefined) {
        const served = await listenMetrics(metrics, host, opts.metrics.port);
        metricsServer = served.server;
        metricsUrl = served.url;
      } else if (metrics) {
        metricsUrl = `${address}/metrics`;
      }
    } catch (err) {
      await app.close();
      await stopSweeper();
      throw err;
    }
    if (metricsUrl) app.log.info({ metricsUrl }, 'metrics served');
    let closing: Promise<void> | null = null;
    const shutDown = (o: DrainOptions) =>
      (closing ??= (async () => {
        await drainApp(
          {
            app,
            state: drain,
            inFlight: services.inFlight,
            log: app.log,
            onDraining: () => metrics?.setDraining(true),
          },
          o,
        );
        // Connections are closed; handlers of clients that went away may still be finishing.
        await services.drain();
        await stopSweeper();
        await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
        db.close();
        app.log.info('stopped');
      })());
    return {
      url: address,
      ...(metricsUrl ? { metricsUrl } : {}),
      storage,
      sweep: () => sweep(services),
      close: () => shutDown({ graceMs: 0, timeoutMs: Infinity }),
      drain: shutDown,
    };
  } catch (err) {
    metricsServer?.close();
    db.close();
    throw err;
  }
}
