// A real S3 endpoint for tests: Ceph's RADOS Gateway, one for the whole vitest run, started by
// scripts/rgw.sh the first time a test asks for it (test/support/rgw-global-setup.ts gives the
// run its folder and stops it at the end); or any S3 named by CONTENTLIB_TEST_S3_ENDPOINT with
// CONTENTLIB_TEST_S3_ACCESS_KEY_ID and CONTENTLIB_TEST_S3_SECRET_ACCESS_KEY (and
// CONTENTLIB_TEST_S3_REGION): a team's MinIO, R2 or AWS. Each `startS3()` gets buckets of its
// own (`bucket('media')` is its real name), and `stop()` empties and removes them, aborting any
// multipart upload left open, so a shared endpoint is left as it was found.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from './paths.js';
import { IN_CI } from './needs.js';
import type { StartServerOptions } from '../../src/server/index.js';

export interface S3Endpoint {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export interface TestS3 extends S3Endpoint {
  /** Environment for a `serve` process (the standard AWS variables) pointed at this endpoint. */
  env: Record<string, string>;
  /** The real name of this test's bucket `name` (unique to this startS3()). */
  bucket(name: string): string;
  /** Makes bucket(name); returns its real name. */
  createBucket(name: string): Promise<string>;
  /** Every object key in bucket(name) (tests check that nothing is left behind). */
  listKeys(name: string, prefix?: string): Promise<string[]>;
  /** The multipart uploads open in bucket(name), as their object keys. */
  openUploads(name: string, prefix?: string): Promise<string[]>;
  /** Empties and removes this test's buckets. */
  stop(): Promise<void>;
}

/**
 * A server's storage options for `storageUrl` (s3://BUCKET/PREFIX) on `store`, reached at
 * `endpoint`: the store itself, or a proxy in front of it.
 */
export function serverStorage(
  store: S3Endpoint,
  storageUrl: string,
  endpoint = store.endpoint,
): Pick<StartServerOptions, 'storageUrl' | 's3'> {
  return { storageUrl, s3: { endpoint, region: store.region, credentials: store.credentials } };
}

/** The RGW of this run: its folder (set by rgw-global-setup.ts for every worker). */
export const RGW_DIR_ENV = 'CONTENTLIB_TEST_RGW_DIR';

/** scripts/rgw.sh of the repository: above this file, also when the bench runs it compiled to bench/dist. */
const SCRIPT = ((): string => {
  for (let dir = ROOT; ; dir = dirname(dir)) {
    const script = join(dir, 'scripts', 'rgw.sh');
    if (existsSync(script) || dir === dirname(dir)) return script;
  }
})();

/** How long a test waits for the run's RGW to come up (another worker may be starting it). */
const START_WAIT_MS = 180_000;

function fromEnv(env: NodeJS.ProcessEnv): S3Endpoint | null {
  const endpoint = env.CONTENTLIB_TEST_S3_ENDPOINT;
  if (!endpoint) return null;
  const accessKeyId = env.CONTENTLIB_TEST_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.CONTENTLIB_TEST_S3_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey)
    throw new Error(
      'CONTENTLIB_TEST_S3_ENDPOINT is set without CONTENTLIB_TEST_S3_ACCESS_KEY_ID and CONTENTLIB_TEST_S3_SECRET_ACCESS_KEY',
    );
  return {
    endpoint: endpoint.replace(/\/+$/, ''),
    region: env.CONTENTLIB_TEST_S3_REGION ?? 'us-east-1',
    credentials: { accessKeyId, secretAccessKey },
  };
}

/** CONTENTLIB_TEST_S3_* as written to `DIR/env` by scripts/rgw.sh. */
async function readEnvFile(file: string): Promise<S3Endpoint | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const env = Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return fromEnv(env);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The run's RGW under `dir`, started by the first caller of any worker (an mkdir is the lock);
 * the others wait for its env file. A start that failed is written down, so every test that
 * needs it fails with the same reason instead of trying again.
 */
export async function runRgw(dir: string): Promise<S3Endpoint> {
  const cluster = join(dir, 'cluster');
  const failed = join(dir, 'failed');
  let mine = false;
  try {
    await mkdir(join(dir, 'lock'));
    mine = true;
  } catch {
    // Another worker is starting it.
  }
  if (mine) {
    const started = await execa('bash', [SCRIPT, 'start', cluster], { reject: false, all: true });
    if (started.exitCode !== 0) {
      await writeFile(failed, String(started.all));
      throw new Error(`scripts/rgw.sh could not start a RADOS Gateway:\n${started.all}`);
    }
  }
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    const ready = await readEnvFile(join(cluster, 'env'));
    if (ready) return ready;
    const why = await readFile(failed, 'utf8').catch(() => null);
    if (why !== null) throw new Error(`scripts/rgw.sh could not start a RADOS Gateway:\n${why}`);
    if (Date.now() > deadline) throw new Error(`no RADOS Gateway came up under ${cluster} in time`);
    await sleep(200);
  }
}

/** Whether Debian's radosgw is installed: without it, one clear message instead of the script's failure. */
async function rgwInstalled(): Promise<boolean> {
  return stat('/usr/bin/radosgw').then(
    () => true,
    () => false,
  );
}

let endpoint: Promise<S3Endpoint> | null = null;

/**
 * The endpoint the S3 tests use: CONTENTLIB_TEST_S3_ENDPOINT's, else the run's RGW (started on
 * first use). Outside a vitest run (a bench, a file run by hand without the config) a private
 * RGW is started in a temp folder, stopped when the process exits.
 */
export function testS3Endpoint(): Promise<S3Endpoint> {
  endpoint ??= (async () => {
    const given = fromEnv(process.env);
    if (given) return given;
    if (!(await rgwInstalled()))
      throw new Error(
        `the S3 tests need Ceph's RADOS Gateway (apt-get install ceph-mon ceph-osd radosgw ceph-common) or CONTENTLIB_TEST_S3_ENDPOINT and its keys${IN_CI ? ': CI does not skip them' : ''}`,
      );
    const shared = process.env[RGW_DIR_ENV];
    if (shared) return runRgw(shared);
    const dir = join(tmpdir(), `contentlib-rgw-${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(dir, { recursive: true });
    // Synchronous on exit: the daemons must not outlive the process that started them.
    process.once('exit', () => spawnSync('bash', [SCRIPT, 'stop', dir], { stdio: 'ignore' }));
    return runRgw(dir);
  })();
  return endpoint;
}

let made = 0;

/** Buckets of this test's own on the run's S3 endpoint. */
export async function startS3(): Promise<TestS3> {
  const base = await testS3Endpoint();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sdk = await import('@aws-sdk/client-s3');
  const client = new sdk.S3Client({
    endpoint: base.endpoint,
    region: base.region,
    forcePathStyle: true,
    credentials: base.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // Bucket names are global on a store: a random suffix per startS3() keeps tests apart.
  const suffix = `${process.pid.toString(36)}-${(++made).toString(36)}-${randomBytes(3).toString('hex')}`;
  const bucket = (name: string) => `${name}-${suffix}`.slice(0, 63);
  const created = new Set<string>();

  async function keysOf(real: string, prefix?: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: real, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  // The server's own paging of ListMultipartUploads (src/server/storage/s3.ts).
  const { multipartUploadsOf } = await import('../../src/server/storage/s3.js');
  const uploadsOf = (real: string, prefix?: string) => multipartUploadsOf(client.send.bind(client), real, prefix);

  return {
    ...base,
    env: {
      AWS_ENDPOINT_URL_S3: base.endpoint,
      AWS_REGION: base.region,
      AWS_ACCESS_KEY_ID: base.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: base.credentials.secretAccessKey,
    },
    bucket,
    async createBucket(name) {
      const real = bucket(name);
      await client.send(new sdk.CreateBucketCommand({ Bucket: real }));
      created.add(real);
      return real;
    },
    listKeys: (name, prefix) => keysOf(bucket(name), prefix),
    openUploads: async (name, prefix) => (await uploadsOf(bucket(name), prefix)).map((u) => u.key),
    async stop() {
      try {
        for (const real of created) {
          for (const u of await uploadsOf(real))
            await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: real, Key: u.key, UploadId: u.uploadId }));
          for (const Key of await keysOf(real)) await client.send(new sdk.DeleteObjectCommand({ Bucket: real, Key }));
          await client.send(new sdk.DeleteBucketCommand({ Bucket: real }));
        }
      } finally {
        created.clear();
        client.destroy();
      }
    },
  };
}
