// The test harnesses themselves: a PostgreSQL started on a temp folder, and the run's S3 (Ceph's
// RADOS Gateway, test/support/s3.ts), which checks signatures and keeps each test's buckets apart.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ROOT } from '../support/paths.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { createS3Storage } from '../../src/server/storage/s3.js';
import { type TestS3, startS3 } from '../support/s3.js';

let postgres: TestPostgres;
let s3: TestS3;
beforeAll(async () => {
  [postgres, s3] = await Promise.all([startPostgres(), startS3()]);
}, 200_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), s3?.stop()]);
});

describe('test harnesses', () => {
  it('PostgreSQL answers on 127.0.0.1 and gives each test its own database', async () => {
    const a = await postgres.createDatabase();
    const b = await postgres.createDatabase();
    expect(a).not.toBe(b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      expect(rows[0]?.db).toBe(new URL(a).pathname.slice(1));
    } finally {
      await client.end();
    }
  });

  it('scripts/rgw.sh names the Debian package that is missing, installs nothing and starts nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'contentlib-rgw-missing-'));
    try {
      // No ceph tool on this PATH: the first one it needs is named with its package.
      const r = await execa('/bin/bash', [join(ROOT, 'scripts', 'rgw.sh'), 'start', join(dir, 'cluster')], {
        env: { PATH: dir },
        reject: false,
      });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain("ceph-mon is missing: install Debian's ceph-mon (apt-get install ceph-mon)");
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('S3 refuses an unsigned PUT and stores a signed one, in a bucket made for this test only', async () => {
    const bucket = await s3.createBucket('harness');
    expect(bucket).not.toBe('harness');
    const unsigned = await fetch(`${s3.endpoint}/${bucket}/a.txt`, { method: 'PUT', body: 'hello' });
    expect(unsigned.status).toBe(403);
    const storage = createS3Storage({
      location: { bucket, prefix: '' },
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    });
    try {
      const p = await storage.presignPut({
        key: 'staging/a',
        contentType: 'text/plain',
        contentLength: 5,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const signed = await fetch(p.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(signed.status).toBe(200);
    } finally {
      storage.close();
    }
    expect(await s3.listKeys('harness')).toEqual(['staging/a']);
    const other = await startS3();
    try {
      expect(other.bucket('harness')).not.toBe(bucket);
    } finally {
      await other.stop();
    }
  });
});
