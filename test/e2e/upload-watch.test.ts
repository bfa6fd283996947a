// `contentlib upload --watch` as people run it: the built binary watching folders, against a
// real `contentlib serve` in its own process. Files are written the ways that break naive
// watchers (slowly, in bursts, under a temporary name, with a sidecar after the video), the
// watcher is killed -9 mid-burst and the service is killed mid-watch; the library, read through
// the API, must hold every file exactly once, with the bytes that were written.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/server/admin.js';
import { cli } from '../support/cli.js';
import { ROOT } from '../support/paths.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import {
  type WatchProcess,
  completedOf,
  startWatch,
  uniquePng,
  uniqueVideo,
  writeSlowly,
} from '../support/watch-process.js';

/** Short, so the suite stays fast; the files below are written over several times this. */
const SETTLE = '1.5';

let root: string;
let dataDir: string;
let server: ServeProcess;
/** The outage test's own service, which it kills: the other tests run beside it on `server`. */
let outageServer: ServeProcess | undefined;
/** Where each brand's library is served. */
const urlOf = (brand: string) => (brand === 'outage' ? outageServer! : server).url;
const keys: Record<string, string> = {};
const watchers: WatchProcess[] = [];

// One brand per test: the library knows files by their bytes per brand, so tests cannot meet.
const BRANDS = ['slow', 'burst', 'crash', 'sidecar', 'part', 'outage', 'poll', 'skips'];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'contentlib-watch-'));
  dataDir = join(root, 'data');
  for (const brand of BRANDS)
    keys[brand] = (await createApiKey(brand === 'outage' ? join(root, 'outage-data') : dataDir, brand)).key;
  server = await startServe(dataDir, join(root, 'serve-home'));
  outageServer = await startServe(join(root, 'outage-data'), join(root, 'outage-home'));
}, 60_000);
afterAll(async () => {
  for (const w of watchers) await w.kill9();
  await server?.stop();
  await outageServer?.stop();
  await rm(root, { recursive: true, force: true });
});

/** A watch of `folder` for `brand`'s library, its own CLI home (journal) per name. */
function watch(brand: string, folder: string, extra: string[] = [], home = brand): WatchProcess {
  const w = startWatch([folder, '--settle', SETTLE, ...extra], {
    CONTENTLIB_HOME: join(root, `cli-${home}`),
    CONTENTLIB_BASE_URL: urlOf(brand),
    CONTENTLIB_API_KEY: keys[brand]!,
    CONTENTLIB_RETRY_BASE_MS: '0',
    CONTENTLIB_HEARTBEAT_MS: '1000',
  });
  watchers.push(w);
  return w;
}

async function folderOf(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Held {
  id: string;
  type: string;
  title: string;
  /** A video's file name, or a carousel's images in order. */
  files: string[];
  /** A video's size and SHA-256, as the service recorded them. */
  fileSize?: number | null;
  sha256?: string | null;
}

async function get<T>(path: string, brand: string): Promise<T> {
  const res = await fetch(`${urlOf(brand)}${path}`, { headers: { authorization: `Bearer ${keys[brand]}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every item of the brand's library, read through the API: the ground truth of "exactly once". */
async function libraryItems(brand: string): Promise<Held[]> {
  const page = await get<{ items: Array<{ id: string }> }>('/api/v1/content?limit=100', brand);
  const out: Held[] = [];
  for (const { id } of page.items) {
    const { item, files } = await get<{
      item: {
        id: string;
        type: string;
        title: string;
        fileName?: string | null;
        fileSize?: number | null;
        sha256?: string | null;
      };
      files: Array<{ fileName?: string | null; sortOrder: number }>;
    }>(`/api/v1/content/${id}`, brand);
    const names =
      item.type === 'carousel'
        ? [...files].sort((a, b) => a.sortOrder - b.sortOrder).map((f) => f.fileName ?? '?')
        : [item.fileName ?? '?'];
    out.push({ id, type: item.type, title: item.title, files: names, fileSize: item.fileSize, sha256: item.sha256 });
  }
  return out.sort((a, b) => a.files.join().localeCompare(b.files.join()) || a.id.localeCompare(b.id));
}

/** Waits until the library holds `n` items, then a settle time more, so that a late duplicate would show. */
/**
 * The library once it holds `n` items and, when given, `files` files in all (images appended to a
 * carousel later than its first ones arrive in a batch of their own), then a little longer to
 * show that nothing more comes.
 */
async function itemsWhenThere(brand: string, n: number, w: WatchProcess, files?: number) {
  await w.until(() => true);
  const end = Date.now() + 30_000;
  for (;;) {
    const items = await libraryItems(brand);
    const count = items.reduce((sum, i) => sum + i.files.length, 0);
    if (items.length >= n && (files === undefined || count >= files)) break;
    if (Date.now() > end)
      throw new Error(`${items.length} of ${n} items (${count} of ${files ?? '?'} files) after 30 s:\n${w.stderr()}`);
    await sleep(200);
  }
  await sleep(1600);
  return libraryItems(brand);
}

describe('upload --watch refuses what it cannot watch (exit 2, before any library is opened)', () => {
  it.each([
    [[join(ROOT, 'fixtures/video/clip-5s.mp4')], 'is not a folder: --watch watches folders'],
    [[join(ROOT, 'fixtures/demo'), '--title', 'One'], '--title does not combine with --watch'],
    [[join(ROOT, 'fixtures/demo'), '--manifest', 'm.json'], '--manifest does not combine with --watch'],
    [[join(ROOT, 'fixtures/demo'), '--settle', '0'], '--settle 0 is not a number of seconds'],
    [[], '--watch needs the folders to watch'],
  ])('%j', async (args, message) => {
    const r = await cli(join(root, 'cli-usage'), ['upload', '--watch', ...args]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('--settle without --watch', async () => {
    const r = await cli(join(root, 'cli-usage'), ['upload', join(ROOT, 'fixtures/demo'), '--settle', '2']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('--settle goes with --watch');
  });
});

// Concurrently: each test waits on settle times and its own watch, with its own brand, folder and
// journal (the outage test on its own service), so together they take about as long as the longest.
describe.concurrent('upload --watch', () => {
  it(
    'a 200 MB video written slowly over 20 s is sent once, after it is complete, with its SHA-256',
    { timeout: 120_000 },
    async () => {
      const folder = await folderOf('slow');
      // A longer settle time than the others: a slow machine must not stall the writer past it.
      const w = watch('slow', folder, ['--settle', '2.5']);
      await w.until((l) => l.some((x) => x.type === 'watching'));
      const video = uniqueVideo(200 * 1024 * 1024);
      // 40 writes of 5 MiB 500 ms apart, each synced: about 20 s of writing, eight settle times.
      await writeSlowly(join(folder, 'export.mp4'), video, 40, 500);
      await w.until((l) => completedOf(l, 'export.mp4').length > 0);
      const items = await itemsWhenThere('slow', 1, w);
      expect(items).toHaveLength(1);
      expect(items[0]!.files).toEqual(['export.mp4']);
      expect([items[0]!.fileSize, items[0]!.sha256]).toEqual([video.length, sha256(video)]);
      // Never tried while incomplete: no partial upload, no file left out as truncated.
      expect(completedOf(w.lines(), 'export.mp4')).toHaveLength(1);
      expect(w.lines().filter((l) => l.type === 'left-out')).toEqual([]);
      expect(w.lines().some((l) => l.type === 'heartbeat')).toBe(true);
      expect(await w.stop()).toBe(0);
      const summary = w.lines().at(-1)!;
      expect(summary).toMatchObject({ type: 'summary', watch: true, exitCode: 0, files: 1, created: 1 });
    },
  );

  it(
    'a burst of images in three folders: one carousel per folder, each image once; later images are appended; a folder moved in is seen',
    { timeout: 60_000 },
    async () => {
      const top = await folderOf('burst');
      const w = watch('burst', top);
      await w.until((l) => l.some((x) => x.type === 'watching'));
      for (const name of ['a', 'b', 'c']) await mkdir(join(top, name));
      for (let i = 1; i <= 4; i++)
        for (const name of ['a', 'b', 'c']) await writeFile(join(top, name, `${i}.png`), uniquePng());
      let items = await itemsWhenThere('burst', 3, w);
      expect(items.map((i) => [i.type, i.files])).toEqual([
        ['carousel', ['1.png', '2.png', '3.png', '4.png']],
        ['carousel', ['1.png', '2.png', '3.png', '4.png']],
        ['carousel', ['1.png', '2.png', '3.png', '4.png']],
      ]);
      const ids = items.map((i) => i.id).sort();
      // Two more photos in a: appended to its carousel, not a new one.
      await writeFile(join(top, 'a', '5.png'), uniquePng());
      await writeFile(join(top, 'a', '6.png'), uniquePng());
      await w.until((l) => completedOf(l).length >= 14);
      items = await itemsWhenThere('burst', 3, w);
      expect(items).toHaveLength(3);
      const grown = items.filter((i) => i.files.length === 6);
      expect(grown.map((i) => i.files)).toEqual([['1.png', '2.png', '3.png', '4.png', '5.png', '6.png']]);
      // The same three items as before: a's carousel grew.
      expect(items.map((i) => i.id).sort()).toEqual(ids);
      expect(completedOf(w.lines())).toHaveLength(14);
      // A folder moved in whole (made elsewhere, then renamed into the watched tree): a carousel too.
      const outside = join(root, 'burst-outside');
      await mkdir(join(outside, 'd', 'e'), { recursive: true });
      for (let i = 1; i <= 2; i++) await writeFile(join(outside, 'd', `${i}.png`), uniquePng());
      for (let i = 1; i <= 2; i++) await writeFile(join(outside, 'd', 'e', `${i}.png`), uniquePng());
      await rename(join(outside, 'd'), join(top, 'd'));
      items = await itemsWhenThere('burst', 5, w);
      expect(items.map((i) => i.files.length).sort()).toEqual([2, 2, 4, 4, 6]);
      expect(completedOf(w.lines())).toHaveLength(18);
      expect(await w.stop()).toBe(0);
    },
  );

  it('killed -9 during a burst and started again: every file exactly once', { timeout: 90_000 }, async () => {
    const top = await folderOf('crash');
    const w = watch('crash', top);
    await w.until((l) => l.some((x) => x.type === 'watching'));
    const videos = 12;
    const burst = (async () => {
      for (let i = 0; i < videos; i++) {
        await writeFile(join(top, `clip-${String(i).padStart(2, '0')}.mp4`), uniqueVideo(64 * 1024 + i));
        if (i < 6) await sleep(150);
      }
      await mkdir(join(top, 'photos'));
      for (let i = 1; i <= 5; i++) await writeFile(join(top, 'photos', `${i}.png`), uniquePng());
    })();
    await w.until((l) => completedOf(l).length >= 2);
    await w.kill9();
    await burst;
    const again = watch('crash', top);
    // The carousel may be made of the images sent before the kill and get the rest appended.
    const items = await itemsWhenThere('crash', videos + 1, again, videos + 5);
    expect(await again.stop()).toBe(0);
    expect(
      items
        .filter((i) => i.type !== 'carousel')
        .map((i) => i.files[0])
        .sort(),
    ).toEqual(Array.from({ length: videos }, (_, i) => `clip-${String(i).padStart(2, '0')}.mp4`));
    expect(items.filter((i) => i.type === 'carousel').map((i) => i.files)).toEqual([
      ['1.png', '2.png', '3.png', '4.png', '5.png'],
    ]);
  });

  it('--poll: files are found by looking, in folders made since too', { timeout: 60_000 }, async () => {
    const folder = await folderOf('poll');
    const w = watch('poll', folder, ['--poll', '0.5']);
    await w.until((l) => l.some((x) => x.type === 'watching' && x.poll === true));
    await writeFile(join(folder, 'polled.mp4'), uniqueVideo(60_000));
    await mkdir(join(folder, 'later'));
    await writeFile(join(folder, 'later', 'deep.mp4'), uniqueVideo(60_001));
    const items = await itemsWhenThere('poll', 2, w);
    expect(items.map((i) => i.files)).toEqual([['deep.mp4'], ['polled.mp4']]);
    expect(await w.stop()).toBe(0);
  });

  it('a sidecar written just after its video applies', { timeout: 60_000 }, async () => {
    const folder = await folderOf('sidecar');
    // The sidecar comes 0.4 s after the video: well within this settle time, on a slow machine too.
    const w = watch('sidecar', folder, ['--settle', '2.5']);
    await w.until((l) => l.some((x) => x.type === 'watching'));
    await writeFile(join(folder, 'talk.mp4'), uniqueVideo(100_000));
    await sleep(400);
    await writeFile(join(folder, 'talk.mp4.json'), JSON.stringify({ title: 'From the sidecar', hashtags: ['watch'] }));
    const items = await itemsWhenThere('sidecar', 1, w);
    expect(items.map((i) => i.title)).toEqual(['From the sidecar']);
    expect(await w.stop()).toBe(0);
  });

  it('a file that will never be uploaded is said once, not passed over in silence', { timeout: 60_000 }, async () => {
    const folder = await folderOf('skips');
    const w = watch('skips', folder);
    await w.until((l) => l.some((x) => x.type === 'watching'));
    // Replaced by itself with one malloc arena, so that a day of uploads keeps RSS flat (bin/contentlib.js).
    expect((await readFile(`/proc/${w.child.pid}/environ`, 'utf8')).split('\0')).toContain('MALLOC_ARENA_MAX=1');
    // And with --liftoff-only where V8 reads it at its start: set only at run time, a long run
    // still had undici's llhttp recompiled, optimised, once it was hot (~22 MB at once).
    const cmdline = (await readFile(`/proc/${w.child.pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline).toContain('--liftoff-only');
    // upload's young generation, also read only as V8 starts.
    expect(cmdline).toContain('--min-semi-space-size=2');
    await writeFile(join(folder, 'notes.txt'), 'call the client');
    await writeFile(join(folder, 'clip.mkv'), uniqueVideo(40_000));
    await writeFile(join(folder, 'partial.mp4.part'), uniqueVideo(40_001));
    await writeFile(join(folder, 'real.mp4'), uniqueVideo(40_002));
    await itemsWhenThere('skips', 1, w);
    // The folder looked at again after a change: the same files are not news twice.
    await writeFile(join(folder, 'other.mp4'), uniqueVideo(40_003));
    await itemsWhenThere('skips', 2, w);
    const skipped = w.lines().filter((l) => l.type === 'skipped' && l.kind !== undefined);
    expect(skipped.map((l) => (l.file as { name: string }).name).sort()).toEqual(['clip.mkv', 'notes.txt']);
    expect(skipped.find((l) => (l.file as { name: string }).name === 'clip.mkv')).toMatchObject({
      kind: 'unsupported',
    });
    expect(await w.stop()).toBe(0);
    expect(w.lines().at(-1)).toMatchObject({ type: 'summary', skipped: 2, files: 2 });
  });

  it('a .part file renamed to .mp4 is sent once, under its final name', { timeout: 60_000 }, async () => {
    const folder = await folderOf('part');
    const w = watch('part', folder);
    await w.until((l) => l.some((x) => x.type === 'watching'));
    const video = uniqueVideo(2 * 1024 * 1024);
    await writeSlowly(join(folder, 'download.mp4.part'), video, 4, 200);
    // Settled under its temporary name for longer than the settle time: still not sent.
    await sleep(2500);
    expect(completedOf(w.lines())).toEqual([]);
    await rename(join(folder, 'download.mp4.part'), join(folder, 'download.mp4'));
    const items = await itemsWhenThere('part', 1, w);
    expect(items.map((i) => i.files)).toEqual([['download.mp4']]);
    expect(completedOf(w.lines())).toHaveLength(1);
    expect(await w.stop()).toBe(0);
  });

  it(
    'the service killed and started again mid-watch: nothing written meanwhile is lost',
    { timeout: 90_000 },
    async () => {
      const folder = await folderOf('outage');
      const w = watch('outage', folder);
      await w.until((l) => l.some((x) => x.type === 'watching'));
      await writeFile(join(folder, 'before.mp4'), uniqueVideo(50_000));
      await w.until((l) => completedOf(l, 'before.mp4').length === 1);
      const port = outageServer!.port;
      await outageServer!.kill9();
      for (let i = 1; i <= 3; i++) await writeFile(join(folder, `during-${i}.mp4`), uniqueVideo(50_000 + i));
      await mkdir(join(folder, 'album'));
      for (let i = 1; i <= 3; i++) await writeFile(join(folder, 'album', `${i}.png`), uniquePng());
      // Down for longer than the settle time: the watch tries, fails, and keeps the files queued.
      await w.until((l) => l.some((x) => x.type === 'failed'), 20_000);
      outageServer = await startServe(join(root, 'outage-data'), join(root, 'outage-home'), { port });
      const items = await itemsWhenThere('outage', 5, w);
      expect(
        items
          .filter((i) => i.type !== 'carousel')
          .map((i) => i.files[0])
          .sort(),
      ).toEqual(['before.mp4', 'during-1.mp4', 'during-2.mp4', 'during-3.mp4']);
      expect(items.filter((i) => i.type === 'carousel').map((i) => i.files)).toEqual([['1.png', '2.png', '3.png']]);
      expect(await w.stop()).toBe(0);
    },
  );
});
