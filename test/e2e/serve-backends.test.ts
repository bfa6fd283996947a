// The built binary's `serve --storage s3://…` against the run's S3 (RGW), and `--db postgres://…` against a
// real PostgreSQL: the AWS SDK and pg live in files of their own beside the CLI bundle
// (scripts/build.js), required only when configured, so only a process run from dist/ shows that
// they load there. An upload and an ls through each, end to end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { type TestS3, startS3 } from '../support/s3.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';

let s3: TestS3;
let postgres: TestPostgres;
let home: { dir: string; remove: () => Promise<void> };
let dataDir: string;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  [s3, postgres] = await Promise.all([startS3(), startPostgres()]);
  await s3.createBucket('media');
  home = await tempHome();
  dataDir = await mkdtemp(join(tmpdir(), 'contentlib-s3-data-'));
}, 200_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await s3?.stop();
  await postgres?.stop();
  await home?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function uploadAndList(args: string[], keyArgs: string[], env: Record<string, string>): Promise<ServeProcess> {
  const server = await startServe(dataDir, home.dir, { args, env });
  servers.push(server);
  const keyRun = await cli(home.dir, ['keys', 'create', '--brand', 'acme', '--data-dir', dataDir, ...keyArgs]);
  expect(keyRun.exitCode, keyRun.stderr).toBe(0);
  const key = /cl_[A-Za-z0-9_-]{20,}/.exec(keyRun.stdout)![0];
  const remote = { CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: key };
  const up = await cli(home.dir, ['upload', join(FIXTURES, 'video/clip-5s.mp4'), '--json'], { env: remote });
  expect(up.exitCode, up.stderr).toBe(0);
  const ls = await cli(home.dir, ['ls', '--json'], { env: remote });
  expect(ls.exitCode, ls.stderr).toBe(0);
  expect((JSON.parse(ls.stdout) as Array<{ title: string }>).map((i) => i.title)).toEqual(['clip-5s']);
  return server;
}

describe('serve from dist/ with optional back ends', () => {
  it('stores objects in S3 (--storage s3://)', async () => {
    await uploadAndList(['--storage', `s3://${s3.bucket('media')}/lib`], [], s3.env);
    expect((await s3.listKeys('media', 'lib/')).length).toBeGreaterThan(0);
  }, 60_000);

  it('keeps metadata in PostgreSQL (--db postgres://)', async () => {
    const db = await postgres.createDatabase('vendored');
    await uploadAndList(['--db', db], ['--db', db], {});
  }, 60_000);
});
