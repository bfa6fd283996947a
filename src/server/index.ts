// Starting and stopping the embedded server: `contentlib serve`, the CLI's embedded mode and the
// tests all come through here (the contract in the team brief).
import { DEFAULT_QUOTA_BYTES, URL_LIFETIME_SECONDS } from '../rules/rules.js';
import { buildApp } from './app.js';
import { openRepo } from './open-repo.js';
import { type Storage, createStorage } from './storage.js';
import { type SweepReport, startSweeper, sweep } from './sweeper.js';

export interface StartServerOptions {
  dataDir: string;
  /** postgres://… : metadata in PostgreSQL, shared by every instance (default: SQLite in dataDir). */
  databaseUrl?: string;
  host?: string;
  port?: number;
  now?: () => Date;
  quotaBytes?: number;
  rateLimit?: { max: number; windowMs: number };
  urlLifetimeSeconds?: number;
  faults?: { dropPutAfterBytes: number; count: number };
  onInternalError?: (err: unknown) => void;
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Finishes in-flight requests, stops the sweeper, closes the database. */
  close(): Promise<void>;
  /** Runs the sweeper once now (tests, after moving the injected clock). */
  sweep(): Promise<SweepReport>;
  /** Where objects live on disk (tests check that nothing is left behind). */
  storage: Storage;
}

export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const now = opts.now ?? (() => new Date());
  const onInternalError =
    opts.onInternalError ??
    ((err: unknown) =>
      process.stderr.write(
        `contentlib server: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      ));
  const repo = await openRepo(opts);
  try {
    // Every instance must sign and check URLs alike: on PostgreSQL the secret lives in the database.
    const secret = await repo.sharedSecret('signing');
    const storage = createStorage(opts.dataDir);
    const { app, services } = buildApp({
      repo,
      storage,
      secret,
      now,
      quotaBytes: opts.quotaBytes ?? DEFAULT_QUOTA_BYTES,
      urlLifetimeSeconds: opts.urlLifetimeSeconds ?? URL_LIFETIME_SECONDS,
      rateLimit: opts.rateLimit,
      faults: opts.faults,
      onInternalError,
    });
    const stopSweeper = startSweeper(services, onInternalError);
    let address: string;
    try {
      address = await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
    } catch (err) {
      await stopSweeper();
      throw err;
    }
    let closing: Promise<void> | null = null;
    return {
      url: address,
      storage,
      sweep: () => sweep(services),
      close: () =>
        (closing ??= (async () => {
          await app.close();
          // Connections are closed; handlers of clients that went away may still be finishing.
          await services.drain();
          await stopSweeper();
          await repo.close();
        })()),
    };
  } catch (err) {
    await repo.close();
    throw err;
  }
}
