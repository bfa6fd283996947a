// A download from `contentlib serve` on PostgreSQL + S3 (RGW) whose transfer the network cuts
// mid-body: the built CLI asks the store for the rest with Range and ends byte for byte. The
// store is reached through a proxy that resets the first answer passing 256 KiB.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { type CuttingProxy, startCuttingProxy } from '../support/cutting-proxy.js';
import { type ServedOnS3, serveOnS3 } from '../support/serve-on-s3.js';
import { mp4 } from '../support/server.js';

let dir: string;
let served: ServedOnS3<CuttingProxy>;
const clip = mp4(10, { size: 2 * 1024 * 1024 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-download-s3-'));
  await writeFile(join(dir, 'clip.mp4'), clip);
  served = await serveOnS3(dir, 'downloadresume', (endpoint) =>
    startCuttingProxy(endpoint, { cutAfter: 256 * 1024, cuts: 0 }),
  );
}, 120_000);

afterAll(async () => {
  await served?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('contentlib download from S3, cut mid-transfer', () => {
  it('resumes with Range and ends byte-identical', async () => {
    const env = {
      CONTENTLIB_BASE_URL: served.instance.url,
      CONTENTLIB_API_KEY: served.key,
      CONTENTLIB_EMBEDDED: undefined,
    };
    const home = join(dir, 'cli-home');
    const up = await cli(home, ['upload', join(dir, 'clip.mp4')], { env });
    expect(up.exitCode, up.stderr).toBe(0);
    const id = (await cli(home, ['ls', '--jq', '.[0].id'], { env })).stdout.trim();
    // Armed only now: complete reads the object back through the same proxy for its checksum.
    served.storeProxy.cutNext(1);
    const r = await cli(home, ['download', id, '-o', join(dir, 'out'), '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(served.storeProxy.cut()).toBe(1);
    const events = r.stdout.split('\n').map((l) => JSON.parse(l) as { type: string; from?: number });
    const retry = events.find((e) => e.type === 'retrying')!;
    expect(retry.from).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'started').map((e) => e.from)).toEqual([0, retry.from]);
    expect((await readFile(join(dir, 'out', 'clip.mp4'))).equals(clip)).toBe(true);
  });
});
