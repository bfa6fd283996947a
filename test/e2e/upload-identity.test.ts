// Re-runs that never duplicate, wherever they run: the built CLI uploads the same folder (two
// videos with a sidecar, a carousel folder with its sidecar) to one `contentlib serve` from two
// different empty CONTENTLIB_HOMEs, as two fresh CI runners would, and again after every file was
// touched (same bytes, new modification times, as `git checkout` leaves them): exactly one item
// per video and per folder. A photo added to the folder, uploaded from yet another empty home, is
// appended to the carousel, and only it. `show` proves each stored file by its SHA-256, and
// `upload --dry-run` says what the library has already.
import { createHash } from 'node:crypto';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { type RemoteLibrary, startServedLibrary } from '../support/remote-library.js';
import { layout } from '../support/tree.js';

let lib: RemoteLibrary;
/** Where the folder to upload is. */
let work: { dir: string; remove: () => Promise<void> };

beforeAll(async () => {
  lib = await startServedLibrary();
  work = await tempHome();
  await layout(join(work.dir, 'media'), {
    'launch_full.mp4': 'video/clip-5s.mp4',
    'launch_full.mp4.json': Buffer.from(JSON.stringify({ title: 'Launch teaser' })),
    'behind.mov': 'video/clip-5s.mov',
    'launch-carousel/1.jpg': 'image/photo.jpg',
    'launch-carousel/2.png': 'image/photo.png',
    'launch-carousel/3.webp': 'image/photo.webp',
    'launch-carousel/carousel.json': Buffer.from(JSON.stringify({ title: 'launch-carousel' })),
  });
}, 60_000);

afterAll(async () => {
  await lib?.dispose();
  await work?.remove();
});

/** A fresh runner: a CONTENTLIB_HOME nobody has used, pointed at the service. */
const freshHome = () => lib.freshHome();

const run = (home: string, args: string[]) =>
  cli(home, args, {
    env: { ...lib.env, CONTENTLIB_EMBEDDED: undefined },
  });

async function library() {
  const { items } = await lib.client.list({ limit: 100 });
  return Promise.all(
    items.map(async (i) => {
      const { item, files } = await lib.client.get(i.id);
      return { id: item.id, type: item.type, title: item.title, files: files.map((f) => f.fileName) };
    }),
  );
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('the same folder from fresh machines', () => {
  it('two empty homes, then every file touched: one item per video and per folder', async () => {
    const firstHome = await freshHome();
    const first = await run(firstHome, ['upload', join(work.dir, 'media')]);
    expect(first.exitCode, first.stderr).toBe(0);
    const made = await library();
    expect(made.map((i) => i.title).sort()).toEqual(['Launch teaser', 'behind', 'launch-carousel']);

    const second = await run(await freshHome(), ['upload', join(work.dir, 'media')]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain('Nothing new to upload: 3 items (5 files) already in the library');
    expect(second.stderr).toMatch(/skipped {2}launch_full\.mp4: already in the library as shortform \(/);

    // Same bytes, new modification times: the journal of the first home no longer knows them.
    const later = new Date(Date.now() + 3_600_000);
    for (const f of [
      'launch_full.mp4',
      'behind.mov',
      'launch-carousel/1.jpg',
      'launch-carousel/2.png',
      'launch-carousel/3.webp',
    ])
      await utimes(join(work.dir, 'media', f), later, later);
    const touched = await run(firstHome, ['upload', join(work.dir, 'media')]);
    expect(touched.exitCode, touched.stderr).toBe(0);
    expect(touched.stderr).toContain('already in the library');

    const after = await library();
    expect(after.map((i) => i.id).sort()).toEqual(made.map((i) => i.id).sort());
    // Every item's stdout row names the item it is: the same ids each time.
    for (const r of [second, touched])
      expect(
        r.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0])
          .sort(),
      ).toEqual(made.map((i) => i.id).sort());
  });

  it('a photo added to the folder, from another empty home: exactly that photo is appended', async () => {
    const carousel = (await library()).find((i) => i.type === 'carousel')!;
    const photo = await readFile(join(FIXTURES, 'image/photo.jpg'));
    await writeFile(join(work.dir, 'media/launch-carousel/4.jpg'), Buffer.concat([photo, Buffer.from('a new shot')]));
    const r = await run(await freshHome(), ['upload', join(work.dir, 'media')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Appended 1 image to ${carousel.id}.`);
    const after = await library();
    expect(after).toHaveLength(3);
    expect(after.find((i) => i.id === carousel.id)!.files).toEqual(['1.jpg', '2.png', '3.webp', '4.jpg']);
  });

  it('show prints each stored file’s SHA-256; --dry-run says which items the library has, as which', async () => {
    const home = await freshHome();
    const video = (await library()).find((i) => i.title === 'Launch teaser')!;
    const shown = await run(home, ['show', video.id]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`sha256\t${await sha256(join(work.dir, 'media/launch_full.mp4'))}`);
    const carousel = (await library()).find((i) => i.type === 'carousel')!;
    const images = await run(home, ['show', carousel.id]);
    expect(images.stdout).toContain(`files.3.sha256\t${await sha256(join(work.dir, 'media/launch-carousel/4.jpg'))}`);

    const dry = await run(home, ['upload', '--dry-run', join(work.dir, 'media')]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`already there: ${video.id}`);
    expect(dry.stdout).toContain(`already there: ${carousel.id}`);
    // A pipe: one tab-separated row per item, the library's answer before the source.
    expect(dry.stdout.split('\n').filter((l) => l.includes('\talready there: '))).toHaveLength(3);
    expect(await library()).toHaveLength(3);
  });
});
