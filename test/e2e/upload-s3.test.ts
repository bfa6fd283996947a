// The built CLI uploads a folder (two videos and a carousel folder, from fixtures/) to
// `contentlib serve --db postgres://… --storage s3://…`, and no media byte passes through
// serve: the CLI reaches serve, and serve and the CLI reach the store (RGW), through counting TCP
// proxies. The items, their files and their GET URLs are then checked byte for byte.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalParts } from '../support/journal-parts.js';
import { sparseVideo } from '../support/library.js';
import { libraryItems } from '../support/library-items.js';
import { box } from '../support/mp4-boxes.js';
import { BIN, ROOT } from '../support/paths.js';
import { type ServedOnS3, serveOnS3 } from '../support/serve-on-s3.js';
import { childEnv } from '../support/serve-process.js';
import { type Item, call, mp4 } from '../support/server.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';
import { type ThrottleProxy, startThrottleProxy } from '../support/throttle-proxy.js';

/** The fixtures are a few KiB, as small as the API's own requests: a trailing MP4 `free` box
 *  (skipped by every reader) makes each video 2 MiB, so the media dominate what is counted. */
const PADDING = 2 * 1024 * 1024;

let served: ServedOnS3<TcpProxy>;
let serveProxy: TcpProxy;
let dir: string;
/** What was uploaded: path under the tree → bytes. */
const media = new Map<string, Buffer>();

async function addFile(path: string, bytes: Buffer): Promise<void> {
  media.set(path, bytes);
  await writeFile(join(dir, 'tree', path), bytes);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-upload-s3-'));
  await mkdir(join(dir, 'tree', 'summer-carousel'), { recursive: true });
  const fixture = (p: string) => readFile(join(ROOT, 'fixtures', p));
  const pad = box('free', Buffer.alloc(PADDING - 8));
  await addFile('launch.mp4', Buffer.concat([await fixture('video/clip-5s.mp4'), pad]));
  await addFile('behind-the-scenes.mov', Buffer.concat([await fixture('video/clip-2s.mov'), pad]));
  for (const name of ['photo.jpg', 'photo.png', 'photo.webp'])
    await addFile(`summer-carousel/${name}`, await fixture(`image/${name}`));
  await copyFile(join(ROOT, 'fixtures/demo/carousel/carousel.json'), join(dir, 'tree/summer-carousel/carousel.json'));

  served = await serveOnS3(dir, 'uploads3', (endpoint) => startTcpProxy([endpoint]));
  serveProxy = await startTcpProxy([served.instance.url]);
}, 120_000);

afterAll(async () => {
  await serveProxy?.close();
  await served?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const bytesOf = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

describe('contentlib upload against serve on PostgreSQL + S3', () => {
  it('uploads a folder: the bytes go to the store, not through serve; items, files and URLs are right', async () => {
    const { instance, key, s3, storeProxy: s3Proxy } = served;
    const env = childEnv({
      CONTENTLIB_HOME: join(dir, 'cli-home'),
      CONTENTLIB_BASE_URL: serveProxy.url,
      CONTENTLIB_API_KEY: key,
    });
    const r = await execa('node', [BIN, 'upload', join(dir, 'tree')], { env, extendEnv: false, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('3 items created');

    const mediaBytes = [...media.values()].reduce((n, b) => n + b.length, 0);
    // Every media byte reached the store; serve saw API requests only (a few KiB of JSON).
    expect(s3Proxy.bytesIn()).toBeGreaterThan(mediaBytes);
    expect(serveProxy.bytesIn()).toBeLessThan(mediaBytes / 50);
    expect(serveProxy.bytesIn()).toBeGreaterThan(0);

    const listed = await call<{ items: Item[] }>('GET', `${instance.url}/api/v1/content?limit=100`, { key });
    const byTitle = new Map(listed.body.items.map((i) => [i.title, i]));
    expect([...byTitle.keys()].sort()).toEqual(['Demo carousel', 'behind-the-scenes', 'launch']);

    for (const [title, path, type, seconds] of [
      ['launch', 'launch.mp4', 'shortform', 5],
      ['behind-the-scenes', 'behind-the-scenes.mov', 'longform', 2],
    ] as const) {
      const item = byTitle.get(title)!;
      expect(item).toMatchObject({ type, fileSize: media.get(path)!.length });
      // Read by serve from the object in the store, with ranged GETs.
      expect(item.durationSeconds).toBeCloseTo(seconds, 0);
      // GET URLs are presigned by the store, not served by serve.
      expect(item.fileUrl.startsWith(`${s3Proxy.url}/${s3.bucket('media')}/library/`)).toBe(true);
      expect((await bytesOf(item.fileUrl)).equals(media.get(path)!)).toBe(true);
    }

    const carousel = byTitle.get('Demo carousel')!;
    const got = await call<{ item: Item; files: Array<{ fileName: string; fileUrl: string }> }>(
      'GET',
      `${instance.url}/api/v1/content/${carousel.id}`,
      { key },
    );
    expect(got.body.item).toMatchObject({ type: 'carousel', fileCount: 3 });
    expect(got.body.files.map((f) => f.fileName).sort()).toEqual(['photo.jpg', 'photo.png', 'photo.webp']);
    for (const f of got.body.files) {
      expect(f.fileUrl.startsWith(`${s3Proxy.url}/${s3.bucket('media')}/library/`)).toBe(true);
      expect((await bytesOf(f.fileUrl)).equals(media.get(`summer-carousel/${f.fileName}`)!)).toBe(true);
    }

    // Everything promoted: five final objects, no staging leftovers.
    const keys = await s3.listKeys('media', 'library/');
    expect(keys).toHaveLength(5);
    expect(keys.filter((k) => k.startsWith('library/staging/'))).toEqual([]);
    expect(instance.stderr()).not.toMatch(/internal error/);
  });

  it('sends a large file as parts straight to the store, joined there and checked like any file', async () => {
    const { instance, key, s3, storeProxy: s3Proxy } = served;
    // Just over 40 MiB: five 8 MiB parts and a short sixth (the disk store's tests cover the rest).
    const big = Buffer.concat([
      await readFile(join(ROOT, 'fixtures/video/clip-2s.mov')),
      box('free', Buffer.alloc(40 * 1024 * 1024 - 8)),
    ]);
    await mkdir(join(dir, 'large'), { recursive: true });
    await writeFile(join(dir, 'large', 'keynote.mov'), big);
    const before = { store: s3Proxy.bytesIn(), serve: serveProxy.bytesIn() };
    const env = childEnv({
      CONTENTLIB_HOME: join(dir, 'cli-home'),
      CONTENTLIB_BASE_URL: serveProxy.url,
      CONTENTLIB_API_KEY: key,
    });
    const r = await execa('node', [BIN, 'upload', join(dir, 'large', 'keynote.mov'), '--json'], {
      env,
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = JSON.parse(String(r.stdout).trim().split('\n').at(-1)!) as { created: number; items: Item[] };
    expect(summary.created).toBe(1);

    // The bytes went to the store, then were copied to the item's key; serve saw JSON only.
    expect(s3Proxy.bytesIn() - before.store).toBeGreaterThan(big.length);
    expect(serveProxy.bytesIn() - before.serve).toBeLessThan(big.length / 50);

    const listed = await call<{ items: Item[] }>('GET', `${instance.url}/api/v1/content?search=keynote`, { key });
    const item = listed.body.items.find((i) => i.title === 'keynote')!;
    expect(item).toMatchObject({ fileSize: big.length, sha256: createHash('sha256').update(big).digest('hex') });
    expect((await bytesOf(item.fileUrl)).equals(big)).toBe(true);
    // As 8 MiB parts joined by the store: RGW's copy keeps the joined object's ETag, "…-6" (AWS
    // would give the copy one of its own).
    if (!process.env.CONTENTLIB_TEST_S3_ENDPOINT) {
      const first = await fetch(item.fileUrl, { headers: { range: 'bytes=0-0' } });
      await first.arrayBuffer();
      expect(first.headers.get('etag')).toMatch(new RegExp(`-${Math.ceil(big.length / (8 * 1024 * 1024))}"?$`));
    }
    // Nothing left behind: no staging object, no open multipart upload in the bucket.
    expect((await s3.listKeys('media', 'library/staging/')).length).toBe(0);
    expect(await s3.openUploads('media')).toEqual([]);
    expect(instance.stderr()).not.toMatch(/internal error/);
  });
});

// A library's whole life on PostgreSQL + RGW, by the built CLI, the store reached through a link
// that lets a client send 6 MiB/s per connection (so a large file can be stopped half-way).
describe('a library on PostgreSQL + RGW, end to end with the built CLI', () => {
  const MIB = 1024 * 1024;
  /** 120 MiB: 15 parts of 8 MiB. */
  const BIG = 120 * MIB;
  const PARTS = 15;
  let life: ServedOnS3<ThrottleProxy>;
  let home: string;
  let work: string;

  beforeAll(async () => {
    work = join(dir, 'life');
    home = join(work, 'cli-home');
    await mkdir(join(work, 'tree', 'beach'), { recursive: true });
    await writeFile(join(work, 'tree', 'clip.mp4'), mp4(6));
    for (const name of ['photo.jpg', 'photo.png', 'photo.webp'])
      await copyFile(join(ROOT, 'fixtures/image', name), join(work, 'tree', 'beach', name));
    const big = await sparseVideo(join(work, 'large', 'keynote.mp4'), BIG);
    // Bytes of its own in every part, so no part is like another.
    const handle = await open(big, 'r+');
    try {
      for (let at = 8 * MIB; at < BIG; at += 8 * MIB) await handle.write(randomBytes(4096), 0, 4096, at);
    } finally {
      await handle.close();
    }
    life = await serveOnS3(work, 'life', (endpoint) => startThrottleProxy(endpoint, 6 * MIB));
  }, 180_000);

  afterAll(async () => {
    await life?.stop();
  }, 60_000);

  const env = () =>
    childEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: life.instance.url, CONTENTLIB_API_KEY: life.key });
  const run = (args: string[]) =>
    execa('node', [BIN, ...args], { cwd: work, env: env(), extendEnv: false, reject: false });
  const sha256Of = async (path: string) =>
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  const idOf = async (title: string) =>
    (await libraryItems(life.instance.url, life.key)).find((i) => i.title === title)!.id;

  it('uploads, resumes parts after Ctrl-C, shows, edits, reorders and replaces, downloads, exports, verifies and removes; nothing is left staged or open', async () => {
    const { s3, storeProxy } = life;
    // A 6 s clip and a carousel of 3.
    const up = await run(['upload', join(work, 'tree')]);
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).toContain('2 items created');

    // 120 MiB as parts, Ctrl-C once half of them are stored, then a re-run that sends the rest.
    const path = join(work, 'large', 'keynote.mp4');
    const child = spawn('node', [BIN, 'upload', '--part-concurrency', '2', path], {
      cwd: work,
      env: env(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 120_000;
    while ((await journalParts(home)) < PARTS / 2) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`half the parts were not stored in 120 s: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    // The stopped run's last bytes may still be on their way through the link: count after them.
    for (let last = -1; storeProxy.received() !== last;) {
      last = storeProxy.received();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    storeProxy.resetCount();
    const again = await run(['upload', path]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(storeProxy.received()).toBeLessThanOrEqual(0.6 * BIG);

    // show's file URL gives the file's bytes (SHA-256).
    const keynote = await idOf('keynote');
    const shown = await run(['show', keynote, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const item = JSON.parse(shown.stdout) as { fileUrl: string; sha256: string; fileSize: number };
    expect(item.fileSize).toBe(BIG);
    const fetched = createHash('sha256')
      .update(Buffer.from(await (await fetch(item.fileUrl)).arrayBuffer()))
      .digest('hex');
    expect(fetched).toBe(await sha256Of(path));
    expect(item.sha256).toBe(fetched);

    // A thumbnail for the clip; the carousel reordered, then one image replaced.
    const clip = await idOf('clip');
    const thumb = await run(['edit', clip, '--thumbnail', join(ROOT, 'fixtures/image/photo.jpg'), '--json']);
    expect(thumb.exitCode, thumb.stderr).toBe(0);
    const thumbnailUrl = (JSON.parse(thumb.stdout) as { thumbnailUrl: string }).thumbnailUrl;
    expect((await bytesOf(thumbnailUrl)).equals(await readFile(join(ROOT, 'fixtures/image/photo.jpg')))).toBe(true);
    const beach = (await libraryItems(life.instance.url, life.key)).find((i) => i.type === 'carousel')!.id;
    const reordered = await run(['edit', beach, '--order', '3,1', '--jq', '.files[].fileName']);
    expect(reordered.exitCode, reordered.stderr).toBe(0);
    expect(reordered.stdout.trim().split('\n')).toEqual(['photo.webp', 'photo.jpg', 'photo.png']);
    await copyFile(join(ROOT, 'fixtures/image/photo.png'), join(work, 'sunset.png'));
    const replaced = await run([
      'edit',
      beach,
      '--replace-image',
      '2',
      join(work, 'sunset.png'),
      '--jq',
      '.files[].fileName',
    ]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(replaced.stdout.trim().split('\n')).toEqual(['photo.webp', 'sunset.png', 'photo.png']);

    // download, then export and export --verify.
    const down = await run(['download', clip, beach, '-o', join(work, 'out')]);
    expect(down.exitCode, down.stderr).toBe(0);
    const exported = await run(['export', join(work, 'export')]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const verified = await run(['export', join(work, 'export'), '--verify']);
    expect(verified.exitCode, `${verified.stdout}\n${verified.stderr}`).toBe(0);

    // rm: all three gone.
    const removed = await run(['rm', '--yes', clip, beach, keynote]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await libraryItems(life.instance.url, life.key)).toEqual([]);

    // Nothing staged, no multipart upload open in the bucket.
    expect(await s3.listKeys('media', 'library/staging/')).toEqual([]);
    expect(await s3.openUploads('media')).toEqual([]);
    expect(life.instance.stderr()).not.toMatch(/internal error/);
  }, 300_000);
});
