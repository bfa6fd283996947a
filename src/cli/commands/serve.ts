// contentlib serve: runs the embedded Content Library server as a long-lived process for other
// clients. The first line on stdout is exactly the base URL (scripts read it); logs go to stderr.
// SIGTERM drains (see docs/deploy.md): /readyz turns 503, the listener closes after a grace
// period, requests in flight finish; Ctrl-C does the same without the grace period.
import type { DrainOptions, LogFormat, StartServerOptions } from '../../server/index.js';
import { DEFAULT_PUT_LIMITS, TEAM_RATE_LIMIT } from '../../server/limits.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { dataDirError } from '../error-messages.js';
import { UsageError } from '../errors.js';
import { parseDuration } from '../flags.js';
import { databaseError, databaseUrlOf, redactUrl } from './database-url.js';

export interface ServeFlags {
  host: string;
  port: string;
  dataDir?: string;
  db?: string;
  storage?: string;
  publicUrl?: string;
  urlTtl?: string;
  quota?: string;
  rateLimit?: string;
  dbTimeout?: string;
  storageTimeout?: string;
  putMinRate?: string;
  putMaxTime?: string;
  logLevel?: string;
  logFormat?: string;
  metrics?: boolean;
  metricsPort?: string;
  drainGrace?: string;
  drainTimeout?: string;
  auditRetention?: string;
  ffmpeg?: string;
  /** false with --no-previews. */
  previews?: boolean;
}

/** Written here rather than imported, so that `serve --help` does not load pino. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];
export const DEFAULT_DRAIN: DrainOptions = { graceMs: 5000, timeoutMs: 60_000 };

export interface ServeDeps {
  signal: AbortSignal;
  /** Told the base URL once the server listens. */
  onListening: (url: string, dataDir: string, metricsUrl?: string) => void;
  start?: (
    o: StartServerOptions,
  ) => Promise<{ url: string; metricsUrl?: string; drain(o: DrainOptions): Promise<void> }>;
  /** How to stop once the signal aborts; SIGINT (a person at a terminal) skips the grace period. */
  drain?: DrainOptions;
}

function wholeNumber(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}"`);
  return n;
}

/** --public-url: an http(s) origin, optionally with a path prefix; no query, no fragment, no trailing slash. */
function publicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--public-url must be a URL such as https://media.example.com, not "${text}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username)
    throw new UsageError(`--public-url must be an http(s) URL without query, fragment or credentials, not "${text}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Flags → server options (pure, so the table of flag mistakes is tested without a server).
 * Logs are pretty on a terminal and JSON otherwise, unless --log-format says.
 */
export function serveOptions(
  flags: ServeFlags,
  defaultDataDir: string,
  stderrIsTTY = false,
  env: NodeJS.ProcessEnv = process.env,
): StartServerOptions {
  const o: StartServerOptions = {
    dataDir: flags.dataDir ?? defaultDataDir,
    host: flags.host,
    port: wholeNumber('--port', flags.port, 0, 65535),
  };
  const databaseUrl = databaseUrlOf(flags.db, env);
  if (databaseUrl !== undefined) o.databaseUrl = databaseUrl;
  const storageUrl = flags.storage ?? env.CONTENTLIB_STORAGE_URL;
  if (storageUrl !== undefined && storageUrl !== '') {
    const from = flags.storage !== undefined ? '--storage' : 'CONTENTLIB_STORAGE_URL';
    if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^?#]*)?$/.test(storageUrl))
      throw new UsageError(`${from} must be an s3://bucket[/prefix] URL, not "${storageUrl}"`);
    o.storageUrl = storageUrl;
  }
  if (flags.publicUrl !== undefined) o.publicUrl = publicUrl(flags.publicUrl);
  if (flags.auditRetention !== undefined)
    o.auditRetentionSeconds = parseDuration('--audit-retention')(flags.auditRetention);
  if (flags.urlTtl !== undefined) o.urlLifetimeSeconds = wholeNumber('--url-ttl', flags.urlTtl, 1);
  if (flags.quota !== undefined) o.quotaBytes = wholeNumber('--quota', flags.quota, 0);
  const rateLimit = rateLimitOf(flags.rateLimit, databaseUrl !== undefined);
  if (rateLimit) o.rateLimit = rateLimit;
  Object.assign(o, limitOptions(flags));
  const level = flags.logLevel ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${level}"`);
  const format = flags.logFormat ?? (stderrIsTTY ? 'pretty' : 'json');
  if (!(LOG_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--log-format must be pretty or json, not "${format}"`);
  o.log = { level: level as (typeof LOG_LEVELS)[number], format: format as LogFormat, color: stderrIsTTY };
  if (flags.metricsPort !== undefined) o.metrics = { port: wholeNumber('--metrics-port', flags.metricsPort, 0, 65535) };
  else if (flags.metrics) o.metrics = {};
  // Posters of videos: the ffmpeg named (`none`: no posters), else the one on PATH (docs/deploy.md).
  if (flags.ffmpeg !== undefined) o.previews = { ffmpeg: flags.ffmpeg === 'none' ? null : flags.ffmpeg };
  if (flags.previews === false) o.previews = { enabled: false };
  return o;
}

/**
 * --rate-limit N/WINDOW_MS, or off. Unset, it is on for a team's service (PostgreSQL, several
 * instances behind one address) and off for one person's (SQLite), which a bulk upload of
 * hundreds of files a second must not slow down.
 */
function rateLimitOf(flag: string | undefined, team: boolean): StartServerOptions['rateLimit'] {
  if (flag === undefined) return team ? TEAM_RATE_LIMIT : undefined;
  if (flag === 'off') return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(flag);
  if (!m) throw new UsageError(`--rate-limit must look like N/WINDOW_MS (e.g. 100/60000) or be off, not "${flag}"`);
  return {
    max: wholeNumber('--rate-limit N', m[1]!, 1),
    windowMs: wholeNumber('--rate-limit WINDOW_MS', m[2]!, 1),
  };
}

/** --db-timeout, --storage-timeout, --put-min-rate N[/WINDOW_SECONDS] and --put-max-time, in seconds. */
function limitOptions(flags: ServeFlags): Pick<StartServerOptions, 'timeouts' | 'putLimits'> {
  const o: Pick<StartServerOptions, 'timeouts' | 'putLimits'> = {};
  const seconds = (flag: string, text: string) => wholeNumber(flag, text, 1, 24 * 3600) * 1000;
  if (flags.dbTimeout !== undefined) o.timeouts = { databaseMs: seconds('--db-timeout', flags.dbTimeout) };
  if (flags.storageTimeout !== undefined)
    o.timeouts = { ...o.timeouts, storageMs: seconds('--storage-timeout', flags.storageTimeout) };
  if (flags.putMinRate !== undefined) {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(flags.putMinRate);
    if (!m)
      throw new UsageError(
        `--put-min-rate must look like BYTES_PER_SECOND[/WINDOW_SECONDS] (e.g. ${DEFAULT_PUT_LIMITS.minBytesPerSecond}/${DEFAULT_PUT_LIMITS.rateWindowMs / 1000}), not "${flags.putMinRate}"`,
      );
    o.putLimits = {
      minBytesPerSecond: wholeNumber('--put-min-rate', m[1]!, 0),
      ...(m[2] === undefined ? {} : { rateWindowMs: seconds('--put-min-rate WINDOW_SECONDS', m[2]) }),
    };
  }
  if (flags.putMaxTime !== undefined)
    o.putLimits = { ...o.putLimits, maxMs: seconds('--put-max-time', flags.putMaxTime) };
  return o;
}

/** --drain-grace and --drain-timeout, in seconds on the command line. */
export function drainOptions(flags: ServeFlags): DrainOptions {
  return {
    graceMs:
      flags.drainGrace === undefined
        ? DEFAULT_DRAIN.graceMs
        : wholeNumber('--drain-grace', flags.drainGrace, 0, 3600) * 1000,
    timeoutMs:
      flags.drainTimeout === undefined
        ? DEFAULT_DRAIN.timeoutMs
        : wholeNumber('--drain-timeout', flags.drainTimeout, 0, 24 * 3600) * 1000,
  };
}

/** Runs until `deps.signal` aborts; then drains and closes. Returns the URL it served on. */
export async function runServe(options: StartServerOptions, deps: ServeDeps): Promise<{ url: string }> {
  const start = deps.start ?? (await import('../../server/index.js')).startServer;
  const server = await start(options).catch((err: unknown) => {
    if (options.databaseUrl !== undefined) throw databaseError(options.databaseUrl, err) ?? err;
    throw dataDirError(options.dataDir, err, 'data-dir') ?? err;
  });
  let drain: DrainOptions = { graceMs: 0, timeoutMs: (deps.drain ?? DEFAULT_DRAIN).timeoutMs };
  try {
    deps.onListening(server.url, options.dataDir, server.metricsUrl);
    if (!deps.signal.aborted)
      await new Promise<void>((resolve) => deps.signal.addEventListener('abort', () => resolve(), { once: true }));
    // main.ts aborts with the signal's name: an orchestrator's SIGTERM gets the grace period.
    if ((deps.signal.reason as Error | undefined)?.message === 'SIGTERM') drain = deps.drain ?? DEFAULT_DRAIN;
  } finally {
    await server.drain(drain);
  }
  return { url: server.url };
}

/** `contentlib serve`: prints the URL first, serves until a signal, then drains. */
export async function serveCommand(ctx: CliContext, _globals: GlobalOptions, flags: ServeFlags): Promise<void> {
  const options = serveOptions(flags, ctx.paths.data, ctx.io.stderrIsTTY);
  if (options.log) options.log.color = ctx.io.color && ctx.io.stderrIsTTY;
  const drain = drainOptions(flags);
  const pretty = options.log?.format === 'pretty';
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
    ctx.io.stderr.write(
      `contentlib serve: listening on ${options.host} makes the library reachable from other machines over plain HTTP.\n`,
    );
  }
  await runServe(options, {
    signal: ctx.signal,
    drain,
    onListening: (url, dataDir, metricsUrl) => {
      ctx.io.stdout.write(`${url}\n`);
      // JSON logs stay parseable: the logger says the same in its own lines.
      if (!pretty) return;
      const where = options.databaseUrl
        ? `database: ${redactUrl(options.databaseUrl)}, files: ${dataDir}`
        : `data: ${dataDir}`;
      ctx.io.stderr.write(`contentlib serve: ${url} (${where}); press Ctrl-C to stop\n`);
      if (metricsUrl) ctx.io.stderr.write(`contentlib serve: metrics at ${metricsUrl}\n`);
    },
  });
  if (pretty) ctx.io.stderr.write('contentlib serve: stopped\n');
}
