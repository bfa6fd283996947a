// The built CLI uploads one video to `contentlib serve --db postgres://… --storage s3://…`
// whose store refuses the presigned PUT as AWS S3 refuses a tampered one: 403
// SignatureDoesNotMatch (test/support/s3-refusing-proxy.ts answers with AWS's own document, which
// RGW's differs from). The upload must fail at once with a clear message: one PUT, no retry loop, no
// item.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../support/paths.js';
import { type RefusingProxy, startRefusingProxy } from '../support/s3-refusing-proxy.js';
import { type ServedOnS3, serveOnS3 } from '../support/serve-on-s3.js';
import { childEnv } from '../support/serve-process.js';
import { type Item, call } from '../support/server.js';

let served: ServedOnS3<RefusingProxy>;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-upload-s3-refusal-'));
  await mkdir(join(dir, 'tree'));
  await writeFile(join(dir, 'tree', 'launch.mp4'), await readFile(join(ROOT, 'fixtures/video/clip-5s.mp4')));
  served = await serveOnS3(dir, 'uploads3refusal', startRefusingProxy);
}, 120_000);

afterAll(async () => {
  await served?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('contentlib upload when the store answers 403 SignatureDoesNotMatch', () => {
  it('fails at once (exit 1) naming the PUT and the store code, after exactly one PUT; no item', async () => {
    const { instance, key, s3, storeProxy: proxy } = served;
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
    expect(proxy.puts[0]).toMatch(new RegExp(`^/${s3.bucket('media')}/library/staging/[0-9a-f-]{36}$`));

    const listed = await call<{ items: Item[] }>('GET', `${instance.url}/api/v1/content?limit=100`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([]);
    expect(await s3.listKeys('media')).toEqual([]);
    expect(instance.stderr()).not.toMatch(/internal error/);
  });
});
