// `contentlib serve --db postgres://… --storage s3://<bucket>/library` as a process, on a PostgreSQL
// started for the test and a bucket of its own on the run's S3 (RGW), with the store reached through a proxy the test chooses (to
// count bytes, or to answer for the store), and an API key made by `contentlib keys create --db`.
import { join } from 'node:path';
import { execa } from 'execa';
import { BIN } from './paths.js';
import { startPostgres } from './postgres.js';
import { type TestS3, startS3 } from './s3.js';
import { childEnv, type ServeProcess, startServe } from './serve-process.js';

export interface ServedOnS3<Proxy> {
  instance: ServeProcess;
  key: string;
  s3: TestS3;
  /** What serve and the CLI reach the store through. */
  storeProxy: Proxy;
  /** Stops everything this started, last started first. */
  stop(): Promise<void>;
}

/** Starts it all under `dir` (serve's data and home); `database` names the PostgreSQL database. */
export async function serveOnS3<Proxy extends { url: string; close(): Promise<void> }>(
  dir: string,
  database: string,
  proxyTo: (s3Endpoint: string) => Promise<Proxy>,
): Promise<ServedOnS3<Proxy>> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    const postgres = await startPostgres();
    stops.push(() => postgres.stop());
    const databaseUrl = await postgres.createDatabase(database);
    const s3 = await startS3();
    stops.push(() => s3.stop());
    const bucket = await s3.createBucket('media');
    const storeProxy = await proxyTo(s3.endpoint);
    stops.push(() => storeProxy.close());
    const home = join(dir, 'serve-home');
    const created = await execa('node', [BIN, 'keys', 'create', '--brand', 'acme', '--db', databaseUrl], {
      env: childEnv({ CONTENTLIB_HOME: home }),
      extendEnv: false,
    });
    const instance = await startServe(join(dir, 'serve-data'), home, {
      args: ['--db', databaseUrl, '--storage', `s3://${bucket}/library`],
      env: { ...s3.env, AWS_ENDPOINT_URL_S3: storeProxy.url },
    });
    stops.push(() => instance.stop());
    return { instance, key: String(created.stdout).trim(), s3, storeProxy, stop };
  } catch (err) {
    // Nothing left running when set-up fails half-way.
    await stop();
    throw err;
  }
}
