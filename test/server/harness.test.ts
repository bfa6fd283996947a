// The test harnesses themselves: a PostgreSQL started on a temp folder and an s3rver answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { type TestS3, startS3 } from '../support/s3rver.js';

let postgres: TestPostgres;
let s3: TestS3;
beforeAll(async () => {
  [postgres, s3] = await Promise.all([startPostgres(), startS3()]);
}, 120_000);
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

  it('s3rver stores objects in buckets made for the test', async () => {
    await s3.createBucket('harness');
    const res = await fetch(`${s3.endpoint}/harness/a.txt`, { method: 'PUT', body: 'hello' });
    expect(res.status).toBe(200);
    expect(await s3.listKeys('harness')).toEqual(['a.txt']);
  });
});
