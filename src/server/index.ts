// Starting and stopping the embedded server: `contentlib serve`, the CLI's embedded mode and the
// tests all come through here. How the server is assembled: docs/design.md.
import type { Server } from 'node:http';
import { DEFAULT_QUOTA_BYTES, URL_LIFETIME_SECONDS } from '../rules/rules.js';
import { buildApp } from './app.js';
import { outageGuard } from './outage-guard.js';
import { DEFAULT_TIMEOUTS, type PutLimits, type RateLimit, type ReservationLimits, type Timeouts } from './limits.js';
import { openRepo } from './open-repo.js';
import { createOutageLog } from './ops/outages.js';
import { type DrainOptions, drainApp } from './ops/drain.js';
import { type LogOptions, createLogger } from './ops/logging.js';
import { createMetrics, listenMetrics } from './ops/metrics.js';
import { createReserve } from './reserve.js';
import { openStorage } from './open-storage.js';
import type { DiskStorage } from './storage/disk.js';
import type { Storage } from './storage/interface.js';
import { type SweepReport, startSweeper, sweep } from './sweeper.js';
import { isUnavailable } from './unavailable.js';
import { findFfmpeg, isExecutable } from './previews/video.js';
import { startPreviews } from './previews/worker.js';

export type { DrainOptions } from './ops/drain.js';

/** Audit entries are kept this long by default: one year (365 days). */
export const AUDIT_RETENTION_SECONDS = 365 * 24 * 3600;
export type { LogFormat } from './ops/logging.js';

export interface StartServerOptions {
  dataDir: string;
  /** postgres://… : metadata in PostgreSQL, shared by every instance (default: SQLite in dataDir). */
  databaseUrl?: string;
  host?: string;
  port?: number;
  now?: () => Date;
  quotaBytes?: number;
  /** What one key may hold reserved, and the thumbnails' own quota (defaults: reservationLimits). */
  reservations?: Partial<Omit<ReservationLimits, 'quotaBytes'>>;
  /** Per key, and per client address for requests without a valid key; none when unset. */
  rateLimit?: RateLimit;
  /** Time limits on the database and the object store (default DEFAULT_TIMEOUTS). */
  timeouts?: Partial<Timeouts>;
  /** Slow and concurrent storage PUTs on the built-in disk store (default DEFAULT_PUT_LIMITS). */
  putLimits?: Partial<PutLimits>;
  /** The process's open-file limit, when known better than /proc/self/limits says (tests). */
  fileLimit?: number;
  urlLifetimeSeconds?: number;
  /** How long audit entries are kept, in seconds (default AUDIT_RETENTION_SECONDS: one year). */
  auditRetentionSeconds?: number;
  /**
   * The base URL clients reach this server at (behind a proxy, say), used in every signed URL.
   * Default: the address it listens on. Never taken from a request's Host header.
   */
  publicUrl?: string;
  /**
   * s3://bucket[/prefix]: objects in an S3-compatible store (endpoint, region and credentials from
   * the standard AWS environment, or `s3`). Default: the data dir, served by this server itself.
   */
  storageUrl?: string;
  /** Overrides for the S3 client (tests point it at a local endpoint). */
  s3?: { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Milliseconds a connection may stay silent before it is closed. */
  idleTimeoutMs?: number;
  /** Test only: every storage PUT, single or part, fails with this errno code (e.g. ENOSPC), as on a full disk. */
  writeError?: string;
  onInternalError?: (err: unknown, requestId?: string) => void;
  /** serve: logs (pino); without it the server writes nothing (the CLI's embedded library). */
  log?: LogOptions;
  /**
   * Posters and previews (issue 39), made in the background after complete. `ffmpeg`: the
   * program that takes video frames; undefined looks for `ffmpeg` on PATH, null means none
   * (videos then get no poster). `enabled: false` makes none at all.
   */
  previews?: { enabled?: boolean; ffmpeg?: string | null; concurrency?: number; timeoutMs?: number };
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
  /** Resolves when the posters and previews asked for so far are made (tests). */
  previewsDone(): Promise<void>;
  /** Where objects live on disk (tests check that nothing is left behind). */
  storage: Storage;
  /** Set when the objects are on this server's disk (no --storage). */
  disk?: DiskStorage;
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
  const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  // One log line per outage of a dependency, not one per failed request (ops/outages.ts).
  const outages = createOutageLog(logger, Math.max(timeouts.databaseMs + 1000, timeouts.storageMs));
  const rawRepo = await openRepo({ ...opts, timeouts });
  const repo = outageGuard(rawRepo, { part: 'database', outages, passThrough: ['kind', 'poolUse', 'close'] });
  let metricsServer: Server | undefined;
  try {
    // Every instance must sign and check URLs alike: on PostgreSQL the secret lives in the database.
    const secret = await repo.sharedSecret('signing');
    let publicUrl = opts.publicUrl ?? '';
    const opened = await openStorage({ ...opts, secret, publicUrl: () => publicUrl, timeouts, now, outages });
    const { storage, disk, receiver, multipart } = opened;
    const ffmpeg = opts.previews?.enabled === false ? null : await chooseFfmpeg(opts.previews?.ffmpeg);
    // Told after each complete; the worker starts once the server listens.
    const previewHook = { nudge: () => {} };
    let inFlight = () => 0;
    const metrics = opts.metrics
      ? createMetrics({
          itemsByType: () => repo.itemsByType(),
          dbPool: () => repo.poolUse(),
          inFlight: () => inFlight(),
        })
      : undefined;
    const { app, services, drain } = buildApp(
      {
        repo,
        storage,
        ...(disk && receiver ? { disk, receiver } : {}),
        ...(multipart ? { multipart } : {}),
        // The reserve is for SQLite's log on a full disk; PostgreSQL keeps no file in the data dir.
        ...(opts.databaseUrl === undefined ? { reserve: createReserve(opts.dataDir) } : {}),
        secret,
        idleTimeoutMs: opts.idleTimeoutMs,
        now,
        quotaBytes: opts.quotaBytes ?? DEFAULT_QUOTA_BYTES,
        ...(opts.reservations ? { reservations: opts.reservations } : {}),
        ...(opts.putLimits ? { putLimits: opts.putLimits } : {}),
        ...(opts.fileLimit ? { fileLimit: opts.fileLimit } : {}),
        urlLifetimeSeconds: opts.urlLifetimeSeconds ?? URL_LIFETIME_SECONDS,
        auditRetentionMs: (opts.auditRetentionSeconds ?? AUDIT_RETENTION_SECONDS) * 1000,
        rateLimit: opts.rateLimit,
        previews: { nudge: () => previewHook.nudge() },
        onInternalError,
      },
      {
        logger,
        // Readiness asks the dependencies directly: probes are not requests that failed.
        checks: {
          database: () => rawRepo.check(),
          storage: () => opened.check(),
        },
        metrics,
        metricsRoute: opts.metrics?.port === undefined,
      },
    );
    inFlight = services.inFlight;
    // A sweep that meets an outage is in the outage's log line already (the guards said it).
    const onSweepError = (err: unknown) => {
      if (!isUnavailable(err)) onInternalError(err);
    };
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
      throw err;
    }
    // Only a server that listens sweeps: one that cannot (its port taken, by another instance
    // perhaps) must change nothing, not free that instance's open uploads on its way out.
    const stopSweeper = startSweeper(services, onSweepError, undefined, metrics);
    const previews =
      opts.previews?.enabled === false
        ? null
        : startPreviews(
            services,
            {
              ffmpeg,
              concurrency: opts.previews?.concurrency ?? 1,
              ...(opts.previews?.timeoutMs ? { timeoutMs: opts.previews.timeoutMs } : {}),
            },
            onSweepError,
          );
    if (previews) previewHook.nudge = previews.nudge;
    publicUrl ||= address;
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
        await previews?.stop();
        await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
        opened.close();
        await repo.close();
        app.log.info('stopped');
      })());
    return {
      url: address,
      ...(metricsUrl ? { metricsUrl } : {}),
      storage,
      ...(disk ? { disk } : {}),
      sweep: () => sweep(services),
      previewsDone: async () => previews?.idle(),
      close: () => shutDown({ graceMs: 0, timeoutMs: Infinity }),
      drain: shutDown,
    };
  } catch (err) {
    metricsServer?.close();
    await repo.close();
    throw err;
  }
}

/** The ffmpeg asked for (refused when it is not a program), or the one on PATH, or none. */
async function chooseFfmpeg(asked: string | null | undefined): Promise<string | null> {
  if (asked === null) return null;
  if (asked === undefined) return findFfmpeg();
  if (!(await isExecutable(asked))) throw new Error(`--ffmpeg ${asked}: no such program (or not executable)`);
  return asked;
}
