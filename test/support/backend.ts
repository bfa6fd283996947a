// Which stores the server conformance suite (test/server/upload.test.ts, content.test.ts) runs
// against. The default vitest project: SQLite in the data dir and objects on the server's own
// disk. The "postgres-s3" project (CONTENTLIB_TEST_BACKEND=postgres-s3): a real PostgreSQL,
// started once for the test file on first use and stopped after it, and the run's S3 (Ceph's
// RADOS Gateway, test/support/s3.ts); every server gets a fresh database and a fresh bucket.
import { afterAll } from 'vitest';
import type { StartServerOptions } from '../../src/server/index.js';
import { type TestPostgres, startPostgres } from './postgres.js';
import { type TestS3, serverStorage, startS3 } from './s3.js';

export type Backend = 'sqlite' | 'postgres-s3';

export const backend: Backend = process.env.CONTENTLIB_TEST_BACKEND === 'postgres-s3' ? 'postgres-s3' : 'sqlite';

/** Objects in an S3 store (RGW) rather than on the server's disk: `it.skipIf(onS3)` for disk-only tests. */
export const onS3 = backend === 'postgres-s3';

let postgres: Promise<TestPostgres> | null = null;
let s3: Promise<TestS3> | null = null;
let buckets = 0;

/** A fresh database's URL on PostgreSQL; undefined (SQLite in the data dir) otherwise. */
export async function testDatabaseUrl(): Promise<string | undefined> {
  if (backend === 'sqlite') return undefined;
  postgres ??= startPostgres();
  return (await postgres).createDatabase('conformance');
}

/** startServer's storage options: a fresh bucket on the run's S3, or nothing (the data dir). */
export async function testStorage(): Promise<Pick<StartServerOptions, 'storageUrl' | 's3'>> {
  if (!onS3) return {};
  s3 ??= startS3();
  const store = await s3;
  const bucket = await store.createBucket(`conformance-${++buckets}`);
  return serverStorage(store, `s3://${bucket}/library`);
}

/**
 * Where a test server's fixed clock starts. On disk our own route checks URL expiries against
 * that clock, so any instant works: 2026-01-01. A store checks them against the real time, which
 * tests cannot move, so on S3 the clock starts now (whole seconds, as URLs carry them).
 */
export function fixedClockStart(): number {
  return onS3 ? Math.floor(Date.now() / 1000) * 1000 : new Date('2026-01-01T00:00:00.000Z').getTime();
}

afterAll(async () => {
  const stops = [postgres, s3].map(async (p) => {
    if (p) await (await p).stop();
  });
  await Promise.all(stops);
}, 60_000);
