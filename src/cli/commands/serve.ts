// contentlib serve: runs the embedded Content Library server as a long-lived process for other
// clients. The first line on stdout is exactly the base URL (scripts read it); Ctrl-C or SIGTERM
// finish the requests in flight and close the database.
import { type Command, Option } from 'commander';
import type { StartServerOptions } from '../../server/index.js';
import type { CliContext } from '../context.js';
import { UsageError, dataDirError } from '../errors.js';
import { databaseError, databaseUrlOf, redactUrl } from './database-url.js';

export interface ServeFlags {
  host: string;
  port: string;
  dataDir?: string;
  db?: string;
  urlTtl?: string;
  quota?: string;
  rateLimit?: string;
  faultDropPutAfter?: string;
  faultCount?: string;
}

export interface ServeDeps {
  signal: AbortSignal;
  /** Told the base URL once the server listens. */
  onListening: (url: string, dataDir: string) => void;
  start?: (o: StartServerOptions) => Promise<{ url: string; close(): Promise<void> }>;
}

function wholeNumber(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}"`);
  return n;
}

/** Flags → server options (pure, so the table of flag mistakes is tested without a server). */
export function serveOptions(
  flags: ServeFlags,
  defaultDataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): StartServerOptions {
  const o: StartServerOptions = {
    dataDir: flags.dataDir ?? defaultDataDir,
    host: flags.host,
    port: wholeNumber('--port', flags.port, 0, 65535),
  };
  const databaseUrl = databaseUrlOf(flags.db, env);
  if (databaseUrl !== undefined) o.databaseUrl = databaseUrl;
  if (flags.urlTtl !== undefined) o.urlLifetimeSeconds = wholeNumber('--url-ttl', flags.urlTtl, 1);
  if (flags.quota !== undefined) o.quotaBytes = wholeNumber('--quota', flags.quota, 0);
  if (flags.rateLimit !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(flags.rateLimit);
    if (!m) throw new UsageError(`--rate-limit must look like N/WINDOW_MS (e.g. 100/60000), not "${flags.rateLimit}"`);
    o.rateLimit = {
      max: wholeNumber('--rate-limit N', m[1]!, 1),
      windowMs: wholeNumber('--rate-limit WINDOW_MS', m[2]!, 1),
    };
  }
  if (flags.faultDropPutAfter !== undefined) {
    o.faults = {
      dropPutAfterBytes: wholeNumber('--fault-drop-put-after', flags.faultDropPutAfter, 1),
      count: wholeNumber('--fault-count', flags.faultCount ?? '1', 1),
    };
  } else if (flags.faultCount !== undefined) {
    throw new UsageError('--fault-count needs --fault-drop-put-after');
  }
  return o;
}

/** Runs until `deps.signal` aborts; then closes cleanly. Returns the URL it served on. */
export async function runServe(options: StartServerOptions, deps: ServeDeps): Promise<{ url: string }> {
  const start = deps.start ?? (await import('../../server/index.js')).startServer;
  const server = await start(options).catch((err: unknown) => {
    if (options.databaseUrl !== undefined) throw databaseError(options.databaseUrl, err) ?? err;
    throw dataDirError(options.dataDir, err, 'data-dir') ?? err;
  });
  try {
    deps.onListening(server.url, options.dataDir);
    if (!deps.signal.aborted)
      await new Promise<void>((resolve) => deps.signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await server.close();
  }
  return { url: server.url };
}

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the embedded Content Library server for other clients (prints its base URL)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--data-dir <dir>', 'where the database and files live (default: the embedded library)')
    .option(
      '--db <url>',
      'postgres://… : metadata in PostgreSQL, shared by every instance (default: $CONTENTLIB_DATABASE_URL, else SQLite in the data dir)',
    )
    .addOption(new Option('--url-ttl <seconds>').hideHelp())
    .addOption(new Option('--quota <bytes>').hideHelp())
    .addOption(new Option('--rate-limit <n/windowMs>').hideHelp())
    .addOption(new Option('--fault-drop-put-after <bytes>').hideHelp())
    .addOption(new Option('--fault-count <n>').hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  contentlib serve
  contentlib serve --port 8080 --data-dir ./library
  contentlib serve --port 0 > server.url &   # scripts: the first stdout line is the URL
  contentlib serve --host 0.0.0.0 --port 8080 --db postgres://contentlib@db/contentlib   # one of N instances (docs/deploy.md)

Give clients a key with: contentlib keys create --brand NAME --data-dir <same dir>`,
    )
    .action(async (flags: ServeFlags) => {
      const options = serveOptions(flags, ctx.paths.data);
      if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
        ctx.io.stderr.write(
          `contentlib serve: listening on ${options.host} makes the library reachable from other machines over plain HTTP.\n`,
        );
      }
      await runServe(options, {
        signal: ctx.signal,
        onListening: (url, dataDir) => {
          ctx.io.stdout.write(`${url}\n`);
          const where = options.databaseUrl
            ? `database: ${redactUrl(options.databaseUrl)}, files: ${dataDir}`
            : `data: ${dataDir}`;
          ctx.io.stderr.write(`contentlib serve: ${url} (${where}); press Ctrl-C to stop\n`);
        },
      });
      ctx.io.stderr.write('contentlib serve: stopped\n');
    });
}
