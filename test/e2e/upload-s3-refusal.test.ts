// The built CLI uploads one video to `contentlib serve --db postgres://… --storage s3://…`
// whose store refuses the presigned PUT as AWS S3 refuses a tampered one: 403
// SignatureDoesNotMatch (test/support/s3-refusing-proxy.ts answers for the store; s3rver checks
// no signature). The upload must fail at once with a clear message: one PUT, no retry loop, no
// item.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/paths.js';
import { type TestPostgres, startPostgres } from '../support/postgres.js';
import { type RefusingProxy, startRefusingProxy } from '../support/s3-refusing-proxy.js';
import { type TestS3, startS3 } from '../support/s3rver.js';
import { childEnv, type ServeProcess, startServe } from '../support/serve-process.js';
import { type Item, call } from '../support/server.js';

let postgres: TestPostgres;
let s3: TestS3;
let proxy: RefusingProxy;
let instance: ServeProcess;
let dir: string;
let key: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-upload-s3-refusal-'));
  await mkdir(join(dir, 'tree'));
  await writeFile(join(dir, 'tree', 'launch.mp4'), await readFile(join(ROOT, 'fixtures/video/clip-5s.mp4')));

  postgres = await startPostgres();
  const databaseUrl = await postgres.createDatabase('uploads3refusal');
  s3 = await startS3();
  await s3.createBucket('media');
  proxy = await startRefusingProxy(s3.endpoint);
  const home = join(dir, 'serve-home');
  const created = await execa('node', [BIN, 'keys', 'create', '--brand', 'acme', '--db', databaseUrl], {
    env: childEnv({ CONTENTLIB_HOME: home }),
    extendEnv: false,
  });
  key = created.stdout.trim();
  instance = await startServe(join(dir, 'serve-data'), home, {
    args: ['--db', databaseUrl, '--storage', 's3://media/library'],
    env: { ...s3.env, AWS_ENDPOINT_URL_S3: proxy.url },
  });
}, 120_000);

afterAll(async () => {
  await instance?.stop();
  await proxy?.close();
  await s3?.stop();
  await postgres?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('contentlib upload when the store answers 403 SignatureDoesNotMatch', () => {
  it('fails at once (exit 1) naming the PUT and the store code, after exactly one PUT; no item', async () => {
    const env = childEnv({
      CONTENTLIB_HOME: join(dir, 'cli-home'),
      CONTENTLIB_BASE_URL: instance.url,
      CONTENTLIB_API_KEY: key,
    });
    const r = await execa('node', [BIN, 'upload', join(dir, 'tree')], { env, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('launch.mp4: PUT failed: storage refused the upload');
    expect(r.stderr).toContain('403 SignatureDoesNotMatch');
    expect(r.stderr).toContain('The request signature we calculated does not match the signature you provided');
    expect(r.stderr).toContain("the upload's headers did not match what was signed");
    expect(r.stderr).toContain('not retried');
    // One PUT, to the staging object the presign named: no retry loop, no second presign.
    expect(proxy.puts).toHaveLength(1);
    expect(proxy.puts[0]).toMatch(/^\/media\/library\/staging\/[0-9a-f-]{36}$/);

    const listed = await call<{ items: Item[] }>('GET', `${instance.url}/api/v1/content?limit=100`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    expect(await s3.listKeys('media')).toEqual([]);
    expect(instance.stderr()).not.toMatch(/internal error/);
  });
});
