// Starting and stopping the embedded server: `contentlib serve`, the CLI's embedded mode and the
// tests all come through here (the contract in the team brief).
import { DEFAULT_QUOTA_BYTES, URL_LIFETIME_SECONDS } from '../rules/rules.js';
import { buildApp } from './app.js';
import { openDatabase } from './db.js';
import { loadSecret } from './signing.js';
import { createReserve } from './reserve.js';
import { type DiskStorage, createDiskStorage } from './storage/disk.js';
import { type SweepReport, startSweeper, sweep } from './sweeper.js';

export interface StartServerOptions {
  dataDir: string;
  host?: string;
  port?: number;
  now?: () => Date;
  quotaBytes?: number;
  rateLimit?: { max: number; windowMs: number };
  urlLifetimeSeconds?: number;
  /**
   * The base URL clients reach this server at (behind a proxy, say), used in every signed URL.
   * Default: the address it listens on. Never taken from a request's Host header.
   */
  publicUrl?: string;
  /** Milliseconds a connection may stay silent before it is closed. */
  idleTimeoutMs?: number;
  faults?: { dropPutAfterBytes: number; count: number };
  /** Test only: every storage PUT fails with this errno code (e.g. ENOSPC), as on a full disk. */
  writeError?: string;
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
  storage: DiskStorage;
}

export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const now = opts.now ?? (() => new Date());
  const onInternalError =
    opts.onInternalError ??
    ((err: unknown) =>
      process.stderr.write(
        `contentlib server: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      ));
  const db = openDatabase(opts.dataDir);
  try {
    const secret = await loadSecret(opts.dataDir);
    let publicUrl = opts.publicUrl ?? '';
    const storage = createDiskStorage({
      dataDir: opts.dataDir,
      secret,
      publicUrl: () => publicUrl,
      writeError: opts.writeError,
    });
    const { app, services } = buildApp({
      db,
      storage,
      disk: storage,
      reserve: createReserve(opts.dataDir),
      secret,
      idleTimeoutMs: opts.idleTimeoutMs,
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
    publicUrl ||= address;
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
          db.close();
        })()),
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
