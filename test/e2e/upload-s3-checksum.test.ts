// The built CLI uploads a video to `contentlib serve --db postgres://… --storage s3://…` through a
// link that flips one byte of the PUT body (test/support/flip-proxy.ts in front of RGW, which
// verifies no checksum: complete hashes the object itself there). The changed bytes are refused at
// complete, nothing is promoted, and the CLI says so and sends the file again from disk, once;
// changed twice, the file fails with a message that says what happened. (SQLite + disk:
// test/upload/identity.test.ts.)
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlipProxy, startFlipProxy } from '../support/flip-proxy.js';
import { BIN, ROOT } from '../support/paths.js';
import { type ServedOnS3, serveOnS3 } from '../support/serve-on-s3.js';
import { childEnv } from '../support/serve-process.js';
import { type Item, call } from '../support/server.js';

let served: ServedOnS3<FlipProxy>;
let dir: string;
let video: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-upload-s3-checksum-'));
  video = await readFile(join(ROOT, 'fixtures/video/clip-5s.mp4'));
  served = await serveOnS3(dir, 'uploads3checksum', (endpoint) =>
    startFlipProxy(() => endpoint, { at: 300, count: 0 }),
  );
}, 120_000);

afterAll(async () => {
  await served?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function upload(name: string, bytes: Buffer) {
  const tree = join(dir, name);
  await mkdir(tree, { recursive: true });
  await writeFile(join(tree, `${name}.mp4`), bytes);
  const env = childEnv({
    CONTENTLIB_HOME: join(dir, `home-${name}`),
    CONTENTLIB_BASE_URL: served.instance.url,
    CONTENTLIB_API_KEY: served.key,
    CONTENTLIB_RETRY_BASE_MS: '0',
  });
  return execa('node', [BIN, 'upload', tree], { env, extendEnv: false, reject: false });
}

async function items(): Promise<Item[]> {
  const listed = await call<{ items: Item[] }>('GET', `${served.instance.url}/api/v1/content?limit=100`, {
    key: served.key,
  });
  return listed.body.items;
}

describe('a byte flipped in flight on PostgreSQL + S3 (RGW)', () => {
  it('is refused at complete, nothing promoted; the CLI says so and sends the file again from disk once', async () => {
    const proxy = served.storeProxy;
    proxy.arm(1);
    const before = proxy.puts();
    const r = await upload('once', video);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.flipped()).toBe(1);
    expect(proxy.puts() - before).toBe(2);
    expect(r.stderr).toMatch(/retry +once\.mp4: .*SHA-256 mismatch.*sending it again from disk/);
    const made = await items();
    expect(made).toHaveLength(1);
    expect(made[0]!.sha256).toBe(createHash('sha256').update(video).digest('hex'));
    // The refused object is gone from staging; only the promoted one is left.
    const keys = await served.s3.listKeys('media');
    expect(keys.filter((k) => k.includes('/staging/'))).toEqual([]);
    expect(keys).toHaveLength(1);
    expect(served.instance.stderr()).not.toMatch(/internal error/);
  });

  it('changed again on the second try: exit 1, a message saying what happened, no item, nothing stored', async () => {
    const proxy = served.storeProxy;
    proxy.arm(2);
    // Other bytes: the first test's are in the library now, and would not be sent at all.
    const r = await upload('twice', await readFile(join(ROOT, 'fixtures/video/moov-at-end.mp4')));
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      'twice.mp4: complete failed: the bytes that reached the store differ from the file on disk',
    );
    expect(r.stderr).toContain('sent again from disk, they differed again');
    expect(r.stderr).toContain('400 bad_digest');
    expect(await items()).toHaveLength(1); // the first test's
    const keys = await served.s3.listKeys('media');
    expect(keys.filter((k) => k.includes('/staging/'))).toEqual([]);
    expect(keys).toHaveLength(1);
  });
});
