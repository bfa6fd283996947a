// buildPlan on the real fixtures and on temp folders laid out per test; big files are sparse
// (a valid header, then fs.truncate), so the 300 MB / 1 GB limits cost no disk.
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GB, MB } from '../../src/rules/rules.js';
import { buildPlan, formatProblem, type PlanOptions, type UploadPlan } from '../../src/upload/plan.js';
import { PNG_HEAD, sparseFile, sparseMp4, tinyMp4 } from '../support/mp4-boxes.js';
import { FIXTURES, ROOT } from '../support/paths.js';

const CAROUSEL_ID = '6f1c0a5e-8d0b-4f5e-9a57-2b1d3c4e5f60';

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'contentlib-plan-'));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Copies fixtures into the temp dir: { 'to/path': 'fixture/path' }. */
async function layout(files: Record<string, string | Buffer>): Promise<void> {
  for (const [to, from] of Object.entries(files)) {
    await mkdir(dirname(join(cwd, to)), { recursive: true });
    if (typeof from === 'string') await cp(join(FIXTURES, from), join(cwd, to));
    else await writeFile(join(cwd, to), from);
  }
}
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const plan = (inputs: string[], options: PlanOptions = {}) => buildPlan(inputs, options, { cwd });
const lines = (p: UploadPlan) => p.problems.map(formatProblem);
const summary = (p: UploadPlan) => p.items.map((i) => `${i.type} ${i.source}: ${i.files.map((f) => f.name).join(' ')}`);

describe("the demo folder (the README's first command)", () => {
  it('plans two shortforms and one carousel in natural order, with sidecar metadata', async () => {
    const p = await buildPlan(['fixtures/demo'], {}, { cwd: ROOT });
    expect(p.problems).toEqual([]);
    expect(p.warnings).toEqual([]);
    expect(summary(p)).toEqual([
      'shortform fixtures/demo/intro.mp4: intro.mp4',
      'shortform fixtures/demo/teaser.mov: teaser.mov',
      'carousel fixtures/demo/carousel: 1.jpg 2.png 10.webp',
    ]);
    const [intro, teaser, carousel] = p.items;
    expect(intro!.metadata).toEqual({
      title: 'Intro to the demo library',
      description: 'Uploaded by contentlib from fixtures/demo. This sidecar file gives intro.mp4 its metadata.',
      hashtags: ['demo', 'contentlib'],
      status: 'draft',
    });
    expect(intro!.files[0]).toMatchObject({
      durationSeconds: 6,
      contentType: 'video/mp4',
      path: join(ROOT, 'fixtures/demo/intro.mp4'),
    });
    expect(teaser!.metadata).toEqual({});
    expect(teaser!.files[0]).toMatchObject({ durationSeconds: 4, contentType: 'video/quicktime' });
    expect(carousel!.metadata).toEqual({ title: 'Demo carousel', hashtags: ['demo'] });
    expect(carousel!.files.map((f) => f.contentType)).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(p.skipped.map((s) => s.path)).toEqual([
      'fixtures/demo/intro.mp4.json',
      'fixtures/demo/carousel/carousel.json',
    ]);
  });
});

describe('videos', () => {
  it.each([
    ['video/clip-2s.mp4', 'longform'],
    ['video/clip-5s.mp4', 'shortform'],
    ['video/clip-5s.mov', 'shortform'],
    ['video/clip-95s.mp4', 'longform'],
    ['video/clip-95s.mov', 'longform'],
  ])('%s becomes %s by duration', async (fixture, type) => {
    await layout({ 'v.mp4': fixture });
    const p = await plan(['v.mp4']);
    expect(p.problems).toEqual([]);
    expect(p.items.map((i) => i.type)).toEqual([type]);
  });

  it('keeps shortform up to exactly 300 MB and 3–90 s, longform above', async () => {
    await sparseMp4(join(cwd, 'edge.mp4'), 300 * MB, 90);
    await sparseMp4(join(cwd, 'short3.mp4'), 1000, 3);
    await sparseMp4(join(cwd, 'over.mp4'), 300 * MB + 1, 10);
    await sparseMp4(join(cwd, 'long.mp4'), 1 * GB, 3600);
    const p = await plan(['edge.mp4', 'short3.mp4', 'over.mp4', 'long.mp4']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual([
      'shortform edge.mp4: edge.mp4',
      'shortform short3.mp4: short3.mp4',
      'longform over.mp4: over.mp4',
      'longform long.mp4: long.mp4',
    ]);
  });

  it("rejects a video over longform's 1 GB", async () => {
    await sparseMp4(join(cwd, 'big.mov'), Math.round(1.2 * GB), 600);
    const p = await plan(['big.mov']);
    expect(lines(p)).toEqual([
      'big.mov: 1.2 GiB (204.8 MiB over); longform videos take at most 1 GiB; compress or split it to 1 GiB or less',
    ]);
    expect(p.problems[0]).toMatchObject({ rule: 'size', actual: '1,288,490,189 bytes' });
  });

  it('checks --type shortform strictly: duration both ways and size', async () => {
    await writeFile(join(cwd, 'clip.mp4'), tinyMp4(94.2));
    await writeFile(join(cwd, 'tiny.mp4'), tinyMp4(2.5));
    await sparseMp4(join(cwd, 'heavy.mp4'), 301 * MB, 30);
    await sparseMp4(join(cwd, 'huge.mp4'), 2 * GB, 30);
    const p = await plan(['clip.mp4', 'tiny.mp4', 'heavy.mp4', 'huge.mp4'], { type: 'shortform' });
    expect(lines(p)).toEqual([
      "clip.mp4: 94.2 s is longer than shortform's 90 s; use --type longform",
      "tiny.mp4: 2.5 s is shorter than shortform's 3 s; use --type longform",
      'heavy.mp4: 300 MiB + 1 MiB; shortform videos take at most 300 MiB; use --type longform (up to 1 GiB)',
      'huge.mp4: 2 GiB (1.7 GiB over); shortform videos take at most 300 MiB; compress or split it to 300 MiB or less',
    ]);
    expect(p.problems.map((x) => [x.rule, x.actual])).toEqual([
      ['duration', '94.2 s'],
      ['duration', '2.5 s'],
      ['size', '315,621,376 bytes'],
      ['size', '2,147,483,648 bytes'],
    ]);
    expect(p.items.map((i) => i.type)).toEqual(['shortform', 'shortform', 'shortform', 'shortform']);
  });

  it('accepts a 2 s clip with --type longform (no minimum length)', async () => {
    await layout({ 'short.mp4': 'video/clip-2s.mp4' });
    const p = await plan(['short.mp4'], { type: 'longform' });
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.type).toBe('longform');
  });

  it('rejects videos with --type carousel and images with --type shortform', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'a.jpg': 'image/photo.jpg', 'b.png': 'image/photo.png' });
    expect(lines(await plan(['v.mp4'], { type: 'carousel' }))).toEqual([
      'v.mp4: is a video; carousel takes images (jpg, png, webp); leave out the carousel type for videos',
    ]);
    expect(lines(await plan(['a.jpg', 'b.png'], { type: 'shortform' }))).toEqual([
      'a.jpg: is an image; shortform takes videos (mp4, mov); use --type carousel, or leave the type out',
      'b.png: is an image; shortform takes videos (mp4, mov); use --type carousel, or leave the type out',
    ]);
  });

  it('reports truncated and empty videos', async () => {
    await layout({ 'cut.mp4': 'video/truncated.mp4', 'empty.mp4': 'video/empty.mp4' });
    const p = await plan(['cut.mp4', 'empty.mp4']);
    expect(p.problems.map((x) => [x.file, x.rule, x.actual])).toEqual([
      ['cut.mp4', 'video', 'truncated'],
      ['empty.mp4', 'empty', '0 bytes'],
    ]);
    expect(lines(p)[1]).toBe('empty.mp4: the file is empty (0 bytes); export or copy it again');
  });
});

describe('carousels', () => {
  it("orders a folder's images naturally, whatever their format", async () => {
    await layout({
      'set/10.webp': 'image/photo.webp',
      'set/2.png': 'image/photo.png',
      'set/1.jpg': 'image/photo.jpg',
      'set/Img3.jpg': 'image/photo.jpg',
      'set/img20.jpg': 'image/photo.jpg',
    });
    const p = await plan(['set']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(['carousel set: 1.jpg 2.png 10.webp Img3.jpg img20.jpg']);
  });

  it('makes each subfolder its own carousel and each video its own item; skips hidden and non-media files', async () => {
    await layout({
      'trip/a.mp4': 'video/clip-5s.mp4',
      'trip/day1/1.jpg': 'image/photo.jpg',
      'trip/day1/2.jpg': 'image/photo.jpg',
      'trip/day2/1.png': 'image/photo.png',
      'trip/day2/2.webp': 'image/photo.webp',
      'trip/day2/.DS_Store': Buffer.from('junk'),
      'trip/.hidden.jpg': 'image/photo.jpg',
      'trip/.git/x.jpg': 'image/photo.jpg',
      'trip/notes.txt': 'other/notes.txt',
      'trip/Thumbs.db': Buffer.from('junk'),
    });
    const p = await plan(['trip']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual([
      'shortform trip/a.mp4: a.mp4',
      'carousel trip/day1: 1.jpg 2.jpg',
      'carousel trip/day2: 1.png 2.webp',
    ]);
    expect(p.skipped).toEqual([
      { path: 'trip/.git', reason: 'hidden directory' },
      { path: 'trip/.hidden.jpg', reason: 'hidden file' },
      { path: 'trip/Thumbs.db', reason: 'system file' },
      { path: 'trip/notes.txt', reason: 'not a media file (.txt)' },
      { path: 'trip/day2/.DS_Store', reason: 'system file' },
    ]);
  });

  it('groups images named one by one by their folder', async () => {
    await layout({
      'a/1.jpg': 'image/photo.jpg',
      'a/2.jpg': 'image/photo.jpg',
      'b/1.png': 'image/photo.png',
      'b/2.png': 'image/photo.png',
    });
    const p = await plan(['a/2.jpg', 'b/1.png', 'a/1.jpg', 'b/2.png']);
    expect(summary(p)).toEqual(['carousel a: 1.jpg 2.jpg', 'carousel b: 1.png 2.png']);
  });

  it('--carousel makes one carousel of images from several folders', async () => {
    await layout({ 'a/1.jpg': 'image/photo.jpg', 'b/10.png': 'image/photo.png', 'b/2.png': 'image/photo.png' });
    const p = await plan(['a', 'b'], { carousel: true });
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(['carousel --carousel: 1.jpg 2.png 10.png']);
  });

  it('rejects a single image with a hint, and more than 10', async () => {
    await layout({ 'one/only.jpg': 'image/photo.jpg' });
    for (let i = 1; i <= 11; i++) await layout({ [`many/${i}.png`]: 'image/photo.png' });
    const p = await plan(['one', 'many']);
    expect(lines(p)).toEqual([
      'one/only.jpg: a carousel needs at least 2 images; got only 1 from one; add another image, or append it to an existing carousel with --to <id>',
      "many: 11 images is over carousel's maximum of 10; split them into folders of at most 10 (each folder becomes its own carousel)",
    ]);
    expect(p.problems.map((x) => [x.rule, x.actual])).toEqual([
      ['carousel', '1 image'],
      ['carousel', '11 images'],
    ]);
  });

  it('--carousel with one image is a problem too', async () => {
    await layout({ 'a.jpg': 'image/photo.jpg' });
    expect(lines(await plan(['a.jpg'], { carousel: true }))).toEqual([
      'a.jpg: a carousel needs at least 2 images; got only 1; add another image, or append it to an existing carousel with --to <id>',
    ]);
  });

  it('rejects an image over 20 MB', async () => {
    await layout({ 'set/a.jpg': 'image/photo.jpg' });
    await sparseFile(join(cwd, 'set/b.png'), 21 * MB, PNG_HEAD);
    expect(lines(await plan(['set']))).toEqual([
      'set/b.png: 21 MiB (1 MiB over); carousel images take at most 20 MiB; resize or compress it to 20 MiB or less',
    ]);
  });

  it('sends a PNG named .jpg as PNG, with a warning, not a problem', async () => {
    await layout({ 'set/a.jpg': 'image/photo.jpg', 'set/b.jpg': 'image/png-named.jpg' });
    const p = await plan(['set']);
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.files.map((f) => f.contentType)).toEqual(['image/jpeg', 'image/png']);
    expect(p.warnings.map(formatProblem)).toEqual([
      'set/b.jpg: the name says JPEG but the file contains PNG data; it is sent as image/png; rename it to .png to match',
    ]);
  });

  it('reports a damaged image but still counts it in its carousel', async () => {
    await layout({ 'set/a.jpg': 'image/photo.jpg', 'set/b.jpg': Buffer.from('not really a jpeg') });
    const p = await plan(['set']);
    expect(p.problems.map((x) => [x.file, x.rule])).toEqual([['set/b.jpg', 'format']]);
    expect(summary(p)).toEqual(['carousel set: a.jpg b.jpg']);
  });
});

describe('--to <id>', () => {
  it('appends the given images to the carousel, without metadata, and notes what the engine checks', async () => {
    await layout({ 'x/3.jpg': 'image/photo.jpg', 'x/carousel.json': json({ title: 'ignored when appending' }) });
    const p = await plan(['x'], { to: CAROUSEL_ID });
    expect(p.problems).toEqual([]);
    expect(p.items).toHaveLength(1);
    expect(p.items[0]).toMatchObject({ type: 'carousel', contentItemId: CAROUSEL_ID, metadata: {}, source: 'x' });
    expect(p.notes).toEqual([
      `--to ${CAROUSEL_ID}: the carousel's current number of images is checked against the maximum of 10 when the upload starts`,
    ]);
  });

  it('rejects a bad id, videos, metadata flags, a video type and more than 10 images', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4' });
    for (let i = 1; i <= 11; i++) await layout({ [`imgs/${i}.jpg`]: 'image/photo.jpg' });
    expect(lines(await plan(['imgs/1.jpg'], { to: 'abc' }))).toEqual([
      "--to: is not a content item id (a UUID); find the carousel's id with: contentlib ls --type carousel",
    ]);
    expect(lines(await plan(['v.mp4', 'imgs/1.jpg'], { to: CAROUSEL_ID }))).toEqual([
      'v.mp4: --to appends images to a carousel; this is a video; upload videos in a separate command',
    ]);
    expect(lines(await plan(['imgs/1.jpg'], { to: CAROUSEL_ID, metadata: { title: 'x' } }))).toEqual([
      `--to: metadata flags do not apply when appending to an existing carousel; change its metadata with: contentlib edit <id>`,
    ]);
    expect(lines(await plan(['imgs/1.jpg'], { to: CAROUSEL_ID, type: 'longform' }))[0]).toBe(
      '--type: --to appends images to a carousel; leave out --type, or upload videos in a separate command',
    );
    expect(lines(await plan(['imgs'], { to: CAROUSEL_ID }))).toEqual([
      "imgs: 11 images is over carousel's maximum of 10; append at most 10 images, fewer if the carousel already has some",
    ]);
  });
});

describe('metadata', () => {
  it('applies flags to every item, under sidecars, platformSettings merged per key', async () => {
    await layout({
      'a.mp4': 'video/clip-5s.mp4',
      'a.mp4.json': json({ title: 'A', hashtags: '#one, two', platformSettings: { youtube: { category: 'music' } } }),
      'b.mov': 'video/clip-5s.mov',
    });
    const flags = {
      description: 'shared',
      status: 'draft' as const,
      hashtags: ['flag'],
      platformSettings: { youtube: { visibility: 'private' } },
    };
    const p = await plan(['a.mp4', 'b.mov'], { metadata: { ...flags, hashtags: ['#flag', ' FLAG '] } });
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.metadata).toEqual({
      title: 'A',
      description: 'shared',
      status: 'draft',
      hashtags: ['one', 'two'],
      platformSettings: { youtube: { visibility: 'private', category: 'music' } },
    });
    expect(p.items[1]!.metadata).toEqual(flags);
  });

  it('refuses one --title for several items unless sidecars name them', async () => {
    await layout({ 'a.mp4': 'video/clip-5s.mp4', 'b.mp4': 'video/clip-5s.mp4', 'c.mp4': 'video/clip-5s.mp4' });
    expect(lines(await plan(['a.mp4', 'b.mp4', 'c.mp4'], { metadata: { title: 'Same' } }))).toEqual([
      '--title: would give 3 items the same title; upload them one at a time, or give each its title in a sidecar (<file>.json, carousel.json) or a --manifest',
    ]);
    await layout({ 'a.mp4.json': json({ title: 'A' }), 'b.mp4.json': json({ title: 'B' }) });
    const p = await plan(['a.mp4', 'b.mp4', 'c.mp4'], { metadata: { title: 'Same' } });
    expect(p.problems).toEqual([]);
    expect(p.items.map((i) => i.metadata.title)).toEqual(['A', 'B', 'Same']);
  });

  it('reads a carousel sidecar named after its folder', async () => {
    await layout({
      'summer/1.jpg': 'image/photo.jpg',
      'summer/2.jpg': 'image/photo.jpg',
      'summer/summer.json': json({ title: 'Summer' }),
    });
    const p = await plan(['summer']);
    expect(p.items[0]!.metadata).toEqual({ title: 'Summer' });
  });

  it('rejects two sidecars for one carousel', async () => {
    await layout({
      'summer/1.jpg': 'image/photo.jpg',
      'summer/2.jpg': 'image/photo.jpg',
      'summer/summer.json': json({ title: 'S' }),
      'summer/carousel.json': json({ title: 'C' }),
    });
    expect(lines(await plan(['summer']))).toEqual([
      'summer/summer.json: a second sidecar for the same carousel (summer/carousel.json is the other); keep one of them',
    ]);
  });

  it.each([
    [
      'invalid JSON',
      Buffer.from('{ title: nope'),
      /^a\.mp4\.json: is not valid JSON \(.+\); fix the JSON or remove the file$/,
    ],
    [
      'an unknown field',
      json({ titel: 'typo' }),
      /^a\.mp4\.json: has invalid metadata: .*titel.*; allowed fields: title, description, hashtags, status, platformSettings$/,
    ],
    ['a bad status', json({ status: 'live' }), /^a\.mp4\.json: has invalid metadata: status: .+/],
    ['a title too long', json({ title: 'x'.repeat(301) }), /^a\.mp4\.json: has invalid metadata: title: .+/],
  ])('reports a sidecar with %s', async (_name, content, expected) => {
    await layout({ 'a.mp4': 'video/clip-5s.mp4', 'a.mp4.json': content });
    const p = await plan(['a.mp4']);
    expect(p.problems.map((x) => x.rule)).toEqual(['sidecar']);
    expect(lines(p)[0]).toMatch(expected);
  });

  it('checks flag metadata against the server limits', async () => {
    await layout({ 'a.mp4': 'video/clip-5s.mp4' });
    const p = await plan(['a.mp4'], { metadata: { title: 't'.repeat(301) } });
    expect(p.problems.map((x) => [x.file, x.rule])).toEqual([['metadata flags', 'metadata']]);
  });

  it('checks merged metadata: platformSettings grown past 64 KB by a sidecar', async () => {
    const half = 'x'.repeat(40 * 1024);
    await layout({
      'a.mp4': 'video/clip-5s.mp4',
      'a.mp4.json': json({ platformSettings: { tiktok: { note: half } } }),
    });
    const p = await plan(['a.mp4'], { metadata: { platformSettings: { youtube: { note: half } } } });
    expect(p.problems.map((x) => [x.file, x.rule])).toEqual([['a.mp4', 'metadata']]);
  });
});

describe('--thumbnail', () => {
  it('attaches an image to the single video', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'thumb.webp': 'image/photo.webp' });
    const p = await plan(['v.mp4'], { thumbnail: 'thumb.webp' });
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.thumbnail).toMatchObject({ name: 'thumb.webp', contentType: 'image/webp' });
  });

  it('refuses several items, a carousel, a video thumbnail, a missing or too big image', async () => {
    await layout({
      'v.mp4': 'video/clip-5s.mp4',
      'w.mp4': 'video/clip-5s.mp4',
      'thumb.jpg': 'image/photo.jpg',
      's/1.jpg': 'image/photo.jpg',
      's/2.jpg': 'image/photo.jpg',
      'other.mp4': 'video/clip-2s.mp4',
    });
    await sparseFile(join(cwd, 'big.png'), 21 * MB, PNG_HEAD);
    expect(lines(await plan(['v.mp4', 'w.mp4'], { thumbnail: 'thumb.jpg' }))).toEqual([
      '--thumbnail: needs exactly one video to upload; the plan has 2 items; upload the video on its own, or set a thumbnail later with: contentlib edit <id> --thumbnail IMG',
    ]);
    expect(lines(await plan(['s'], { thumbnail: 'thumb.jpg' }))[0]).toMatch(
      /^--thumbnail: needs exactly one video to upload; the plan has a carousel;/,
    );
    expect(lines(await plan(['v.mp4'], { thumbnail: 'other.mp4' }))).toEqual([
      'other.mp4: video/mp4 is not allowed for a thumbnail; allowed: image/jpeg, image/png, image/webp; use a jpg, png, webp image of 20 MiB or less',
    ]);
    expect(lines(await plan(['v.mp4'], { thumbnail: 'nope.jpg' }))).toEqual([
      'nope.jpg: does not exist; check the path',
    ]);
    expect(lines(await plan(['v.mp4'], { thumbnail: 'big.png' }))).toEqual([
      'big.png: 21 MiB (1 MiB over); thumbnails take at most 20 MiB; use a jpg, png, webp image of 20 MiB or less',
    ]);
  });
});

describe('inputs', () => {
  it('expands globs, skipping hidden and non-media matches', async () => {
    await layout({
      'm/a.mp4': 'video/clip-5s.mp4',
      'm/b.mov': 'video/clip-5s.mov',
      'm/notes.txt': 'other/notes.txt',
      'm/.c.mp4': 'video/clip-5s.mp4',
      'm/a.mp4.json': json({ title: 'A' }),
    });
    const p = await plan(['m/*']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(['shortform m/a.mp4: a.mp4', 'shortform m/b.mov: b.mov']);
    expect(p.items[0]!.metadata).toEqual({ title: 'A' });
    expect(p.skipped.map((s) => s.path)).toEqual(['m/a.mp4.json', 'm/notes.txt']);
  });

  it('reports missing paths and empty globs, with everything else, at once', async () => {
    await layout({ 'ok.mp4': 'video/clip-5s.mp4', 'notes.txt': 'other/notes.txt', 'cut.mp4': 'video/truncated.mp4' });
    await sparseMp4(join(cwd, 'big.mov'), Math.round(1.2 * GB), 600);
    const p = await plan(['ok.mp4', 'missing.mp4', 'nothing/*.jpg', 'notes.txt', 'cut.mp4', 'big.mov']);
    expect(p.problems.map((x) => `${x.file} ${x.rule}`)).toEqual([
      'missing.mp4 exists',
      'nothing/*.jpg exists',
      'notes.txt format',
      'cut.mp4 video',
      'big.mov size',
    ]);
    expect(lines(p).slice(0, 3)).toEqual([
      `missing.mp4: does not exist; check the path (relative paths start from ${cwd})`,
      `nothing/*.jpg: no files match this pattern; check the pattern (relative patterns start from ${cwd})`,
      'notes.txt: not a supported format (mp4, mov, jpg, png, webp)',
    ]);
    expect(summary(p)).toEqual(['shortform ok.mp4: ok.mp4', 'longform cut.mp4: cut.mp4', 'longform big.mov: big.mov']);
  });

  it('plans a file named twice (directly and through its folder) once', async () => {
    await layout({ 'd/a.mp4': 'video/clip-5s.mp4' });
    const p = await plan(['d/a.mp4', 'd', join(cwd, 'd/a.mp4')]);
    expect(summary(p)).toEqual(['shortform d/a.mp4: a.mp4']);
  });

  it('ends a walk on a symbolic link loop', async () => {
    await layout({ 'd/a.mp4': 'video/clip-5s.mp4' });
    await symlink(join(cwd, 'd'), join(cwd, 'd/loop'));
    const p = await plan(['d']);
    expect(summary(p)).toEqual(['shortform d/a.mp4: a.mp4']);
    expect(p.skipped).toEqual([{ path: 'd/loop', reason: 'directory already walked (symbolic link loop)' }]);
  });

  it('shows paths outside the working directory as absolute', async () => {
    const p = await buildPlan([join(FIXTURES, 'demo/teaser.mov')], {}, { cwd });
    expect(p.items[0]!.source).toBe(join(FIXTURES, 'demo/teaser.mov'));
  });

  it('says when there is nothing to upload', async () => {
    await layout({ 'd/notes.txt': 'other/notes.txt' });
    expect(lines(await plan(['d']))).toEqual([
      'd: nothing to upload: no video or image was found; name mp4, mov, jpg, png or webp files, folders holding them, or a glob',
    ]);
    expect(lines(await plan([]))).toEqual([
      'upload: nothing to upload; name files, folders or globs, or use --manifest FILE',
    ]);
  });
});

describe('--manifest', () => {
  it("plans items in the manifest's order with their metadata over flags and sidecars", async () => {
    await layout({
      'rel/v.mp4': 'video/clip-95s.mp4',
      'rel/v.mp4.json': json({ title: 'from sidecar', description: 'sidecar description' }),
      'rel/thumb.png': 'image/photo.png',
      'rel/s/10.jpg': 'image/photo.jpg',
      'rel/s/2.jpg': 'image/photo.jpg',
      'rel/more.webp': 'image/photo.webp',
      'rel/release.json': json([
        {
          files: ['v.mp4'],
          title: 'Launch',
          thumbnail: 'thumb.png',
          platformSettings: { youtube: { visibility: 'unlisted' } },
        },
        { files: ['s/10.jpg', 's/2.jpg'], type: 'carousel', title: 'Stills', hashtags: ['a', '#a', 'b'] },
        { files: ['more.webp'], to: CAROUSEL_ID },
      ]),
    });
    const p = await plan([], { manifest: 'rel/release.json', metadata: { status: 'draft' } });
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual([
      'longform rel/release.json item 1: v.mp4',
      'carousel rel/release.json item 2: 10.jpg 2.jpg',
      'carousel rel/release.json item 3: more.webp',
    ]);
    expect(p.items[0]!.metadata).toEqual({
      status: 'draft',
      title: 'Launch',
      description: 'sidecar description',
      platformSettings: { youtube: { visibility: 'unlisted' } },
    });
    expect(p.items[0]!.thumbnail).toMatchObject({ name: 'thumb.png', contentType: 'image/png' });
    expect(p.items[1]!.metadata).toEqual({ status: 'draft', title: 'Stills', hashtags: ['a', 'b'] });
    expect(p.items[2]).toMatchObject({ contentItemId: CAROUSEL_ID, metadata: {} });
  });

  it('accepts { "items": [...] } too', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'm.json': json({ items: [{ files: ['v.mp4'] }] }) });
    expect(summary(await plan([], { manifest: 'm.json' }))).toEqual(['shortform m.json item 1: v.mp4']);
  });

  it('checks a manifest type strictly, with a hint in manifest words', async () => {
    await layout({ 'v.mp4': 'video/clip-95s.mp4', 'm.json': json([{ files: ['v.mp4'], type: 'shortform' }]) });
    expect(lines(await plan([], { manifest: 'm.json' }))).toEqual([
      'v.mp4: 95 s is longer than shortform\'s 90 s; set "type": "longform" in the manifest',
    ]);
  });

  it.each([
    ['not JSON', Buffer.from('[{'), /^m\.json: the manifest is not valid JSON/],
    ['an unknown field', json([{ files: ['v.mp4'], titel: 'x' }]), /^m\.json: the manifest is invalid: .*titel/],
    ['no files', json([{ files: [] }]), /^m\.json: the manifest is invalid: 0\.files: list at least one file/],
    ['no items', json([]), /^m\.json: the manifest is invalid: .*list at least one item/],
    ['a bad "to"', json([{ files: ['v.mp4'], to: 'nope' }]), /^m\.json: the manifest is invalid: 0\.to: /],
  ])('reports a manifest with %s', async (_name, content, expected) => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'm.json': content });
    const p = await plan([], { manifest: 'm.json' });
    expect(p.problems.map((x) => x.rule)).toEqual(['manifest']);
    expect(lines(p)[0]).toMatch(expected);
    expect(p.items).toEqual([]);
  });

  it('reports a missing manifest, missing files, mixed and double-video items, misplaced fields, files listed twice', async () => {
    expect(lines(await plan([], { manifest: 'none.json' }))).toEqual([
      'none.json: the manifest does not exist; check the --manifest path',
    ]);
    const files: Record<string, string> = {};
    for (const n of [1, 2, 3, 4]) files[`v${n}.mp4`] = 'video/clip-5s.mp4';
    for (const n of [1, 2, 3, 4, 5]) files[`i${n}.jpg`] = 'image/photo.jpg';
    await layout({
      ...files,
      'm.json': json([
        { files: ['gone.mp4'] },
        { files: ['v1.mp4', 'i1.jpg'] },
        { files: ['v2.mp4', 'v3.mp4'] },
        { files: ['v4.mp4'], to: CAROUSEL_ID },
        { files: ['i2.jpg', 'i3.jpg'], thumbnail: 'i4.jpg' },
        { files: ['i5.jpg'], to: CAROUSEL_ID, title: 'x' },
        { files: ['i2.jpg', 'i4.jpg'] },
      ]),
    });
    expect(lines(await plan([], { manifest: 'm.json' }))).toEqual([
      'gone.mp4: does not exist; check the path',
      'm.json item 2: mixes videos and images in one item; give each video its own item, and the images of a carousel another',
      'm.json item 3: lists 2 videos in one item; give each video its own item',
      'm.json item 4: "to" appends images to a carousel; this item is a video; remove "to" from this item',
      'm.json item 5: "thumbnail" is for video items; this item is a carousel; remove "thumbnail" from this item',
      'm.json item 6: metadata does not apply when appending to an existing carousel; remove the metadata, or change it with: contentlib edit <id>',
      'm.json item 7: lists i2.jpg, which m.json item 5 lists too; list each file once',
    ]);
  });

  it('refuses paths or --thumbnail beside a manifest', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'm.json': json([{ files: ['v.mp4'] }]) });
    expect(lines(await plan(['v.mp4'], { manifest: 'm.json' }))).toEqual([
      '--manifest: a manifest lists every file; paths were given too; put the files in the manifest, or leave out --manifest',
    ]);
    expect(lines(await plan([], { manifest: 'm.json', thumbnail: 'x.jpg' }))).toEqual([
      '--thumbnail: does not combine with --manifest; give the video\'s "thumbnail" in its manifest item',
    ]);
  });
});
