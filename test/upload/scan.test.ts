// scan() on temp folders laid out per test, and buildPlan (scan, then decide) on them and on the
// real fixtures: walks, globs, inspection, sidecars and manifests as read from disk. The
// decisions themselves are tables in decide.test.ts. Big files are sparse (a valid header, then
// fs.truncate), so the 300 MB / 1 GB limits cost no disk.
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GB, MB } from '../../src/rules/rules.js';
import { buildPlan, formatProblem, type PlanOptions, type UploadPlan } from '../../src/upload/plan/plan.js';
import { scan } from '../../src/upload/plan/scan.js';
import { PNG_HEAD, sparseFile, sparseMp4 } from '../support/mp4-boxes.js';
import { FIXTURES, ROOT } from '../support/paths.js';
import { layout as layoutIn, tempDirEach } from '../support/tree.js';

const CAROUSEL_ID = '6f1c0a5e-8d0b-4f5e-9a57-2b1d3c4e5f60';

const cwd = tempDirEach('contentlib-plan-');

const layout = (files: Record<string, string | Buffer>) => layoutIn(cwd(), files);
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const plan = (inputs: string[], options: PlanOptions = {}) => buildPlan(inputs, options, { cwd: cwd() });
const lines = (p: UploadPlan) => p.problems.map(formatProblem);
const summary = (p: UploadPlan) => p.items.map((i) => `${i.type} ${i.source}: ${i.files.map((f) => f.name).join(' ')}`);

describe('scan', () => {
  it('inspects what the paths expand to, reads every sidecar beside them and the --thumbnail, decides nothing', async () => {
    await layout({
      'set/1.jpg': 'image/photo.jpg',
      'set/2.png': 'image/photo.png',
      'set/carousel.json': json({ title: 'Set' }),
      'v.mp4': 'video/clip-5s.mp4',
      'v.mp4.json': Buffer.from('{ nope'),
      'thumb.webp': 'image/photo.webp',
      'notes.txt': 'other/notes.txt',
    });
    const s = await scan(['v.mp4', 'set', 'missing.mp4', 'notes.txt'], { thumbnail: 'thumb.webp' }, cwd());
    const files = s.files.map((id) => ({ shown: s.table.shown(id), file: s.table.file(id) }));
    expect(files.map((f) => [f.shown, f.file.contentType, f.file.durationSeconds])).toEqual([
      ['v.mp4', 'video/mp4', 5],
      ['set/1.jpg', 'image/jpeg', undefined],
      ['set/2.png', 'image/png', undefined],
      ['notes.txt', undefined, undefined],
    ]);
    expect(files[3]!.file.problems.map((x) => x.rule)).toEqual(['format']);
    expect(s.problems.map((x) => `${x.file} ${x.rule}`)).toEqual(['missing.mp4 exists']);
    // Every .json is a skip candidate until decide() knows which were read as sidecars.
    expect(s.skipped).toEqual([expect.objectContaining({ path: 'set/carousel.json', kind: 'sidecar' })]);
    expect(s.sidecars).toEqual({
      [join(cwd(), 'set/carousel.json')]: { shown: 'set/carousel.json', metadata: { title: 'Set' } },
      [join(cwd(), 'v.mp4.json')]: { shown: 'v.mp4.json', problem: expect.objectContaining({ rule: 'sidecar' }) },
    });
    expect(s.thumbnail).toMatchObject({ shown: 'thumb.webp', file: { contentType: 'image/webp' } });
    expect(s.manifest).toBeUndefined();
  });
});

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
    // Both .json files are read as sidecars: used, not skipped.
    expect(p.skipped).toEqual([]);
  });
});

describe('videos', () => {
  it('keeps shortform up to exactly 300 MB and 3–90 s, longform above', async () => {
    await sparseMp4(join(cwd(), 'edge.mp4'), 300 * MB, 90);
    await sparseMp4(join(cwd(), 'short3.mp4'), 1000, 3);
    await sparseMp4(join(cwd(), 'over.mp4'), 300 * MB + 1, 10);
    await sparseMp4(join(cwd(), 'long.mp4'), 1 * GB, 3600);
    const p = await plan(['edge.mp4', 'short3.mp4', 'over.mp4', 'long.mp4']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual([
      'shortform edge.mp4: edge.mp4',
      'shortform short3.mp4: short3.mp4',
      'longform over.mp4: over.mp4',
      'longform long.mp4: long.mp4',
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
    expect(p.skipped.map((s) => [s.path, s.kind, s.reason, s.media])).toEqual([
      ['trip/.git', 'hidden', 'hidden folder, not walked', false],
      ['trip/.hidden.jpg', 'hidden', 'hidden file', true],
      ['trip/Thumbs.db', 'system', 'system file', false],
      ['trip/notes.txt', 'not-media', 'not a photo or video (.txt)', false],
      ['trip/day2/.DS_Store', 'system', 'system file', false],
    ]);
    // A folder's carousel is titled after its folder.
    expect(p.items.map((i) => i.metadata.title)).toEqual([undefined, 'day1', 'day2']);
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

  it('judges a file named .HEIC by its bytes in a folder too: a JPEG is sent as JPEG, a real HEIC (or an empty one) skipped', async () => {
    await layout({
      'set/a.jpg': 'image/photo.jpg',
      'set/b.HEIC': 'image/photo.jpg',
      'set/c.heic': 'other/unsupported/photo.heic',
      'set/d.heic': Buffer.alloc(0),
    });
    const expected = {
      items: ['carousel set: a.jpg b.HEIC'],
      warning:
        'set/b.HEIC: the name says a HEIC image but the file contains JPEG data; it is sent as image/jpeg; rename it to .jpg to match',
    };
    const p = await plan(['set']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(expected.items);
    expect(p.items[0]!.files.map((f) => f.contentType)).toEqual(['image/jpeg', 'image/jpeg']);
    expect(p.warnings.map(formatProblem)).toEqual([expected.warning]);
    expect(p.skipped.map((x) => [x.path, x.kind])).toEqual([
      ['set/c.heic', 'unsupported'],
      ['set/d.heic', 'unsupported'],
    ]);
    // Named directly, or matched by a glob: the same verdict.
    const named = await plan(['set/b.HEIC']);
    expect(named.warnings.map(formatProblem)).toEqual([expected.warning]);
    const globbed = await plan(['set/*']);
    expect(summary(globbed)).toEqual(['carousel set: a.jpg b.HEIC']);
    expect(globbed.skipped.map((x) => x.path)).toEqual(['set/c.heic', 'set/d.heic']);
  });

  it('reports a damaged image but still counts it in its carousel', async () => {
    await layout({ 'set/a.jpg': 'image/photo.jpg', 'set/b.jpg': Buffer.from('not really a jpeg') });
    const p = await plan(['set']);
    expect(p.problems.map((x) => [x.file, x.rule])).toEqual([['set/b.jpg', 'format']]);
    expect(summary(p)).toEqual(['carousel set: a.jpg b.jpg']);
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

  it('reads a carousel sidecar named after its folder', async () => {
    await layout({
      'summer/1.jpg': 'image/photo.jpg',
      'summer/2.jpg': 'image/photo.jpg',
      'summer/summer.json': json({ title: 'Summer' }),
    });
    const p = await plan(['summer']);
    expect(p.items[0]!.metadata).toEqual({ title: 'Summer' });
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
});

describe('--thumbnail', () => {
  it('attaches an image to the single video', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4', 'thumb.webp': 'image/photo.webp' });
    const p = await plan(['v.mp4'], { thumbnail: 'thumb.webp' });
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.thumbnail).toMatchObject({ name: 'thumb.webp', contentType: 'image/webp' });
  });

  it('reports a missing or too big image as inspection finds it', async () => {
    await layout({ 'v.mp4': 'video/clip-5s.mp4' });
    await sparseFile(join(cwd(), 'big.png'), 21 * MB, PNG_HEAD);
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
    expect(p.skipped.map((s) => s.path)).toEqual(['m/notes.txt']);
  });

  it('reports missing paths and empty globs, with everything else, at once', async () => {
    await layout({ 'ok.mp4': 'video/clip-5s.mp4', 'notes.txt': 'other/notes.txt', 'cut.mp4': 'video/truncated.mp4' });
    await sparseMp4(join(cwd(), 'big.mov'), Math.round(1.2 * GB), 600);
    const p = await plan(['ok.mp4', 'missing.mp4', 'nothing/*.jpg', 'notes.txt', 'cut.mp4', 'big.mov']);
    expect(p.problems.map((x) => `${x.file} ${x.rule}`)).toEqual([
      'missing.mp4 exists',
      'nothing/*.jpg exists',
      'notes.txt format',
      'cut.mp4 video',
      'big.mov size',
    ]);
    expect(lines(p).slice(0, 3)).toEqual([
      `missing.mp4: does not exist; check the path (relative paths start from ${cwd()})`,
      `nothing/*.jpg: no files match this pattern; check the pattern (relative patterns start from ${cwd()})`,
      'notes.txt: not a supported format (mp4, mov, jpg, png, webp)',
    ]);
    expect(summary(p)).toEqual(['shortform ok.mp4: ok.mp4', 'longform cut.mp4: cut.mp4', 'longform big.mov: big.mov']);
  });

  it('plans a file named twice (directly and through its folder) once', async () => {
    await layout({ 'd/a.mp4': 'video/clip-5s.mp4' });
    const p = await plan(['d/a.mp4', 'd', join(cwd(), 'd/a.mp4')]);
    expect(summary(p)).toEqual(['shortform d/a.mp4: a.mp4']);
  });

  it('ends a walk on a symbolic link loop', async () => {
    await layout({ 'd/a.mp4': 'video/clip-5s.mp4' });
    await symlink(join(cwd(), 'd'), join(cwd(), 'd/loop'));
    const p = await plan(['d']);
    expect(summary(p)).toEqual(['shortform d/a.mp4: a.mp4']);
    expect(p.skipped).toEqual([
      {
        path: 'd/loop',
        absPath: join(cwd(), 'd/loop'),
        kind: 'link',
        reason: 'symbolic link to d, a folder already walked',
        media: false,
      },
    ]);
  });

  it('shows paths outside the working directory as absolute', async () => {
    const p = await buildPlan([join(FIXTURES, 'demo/teaser.mov')], {}, { cwd: cwd() });
    expect(p.items[0]!.source).toBe(join(FIXTURES, 'demo/teaser.mov'));
  });

  it('says when there is nothing to upload', async () => {
    await layout({ 'd/notes.txt': 'other/notes.txt' });
    expect(lines(await plan(['d']))).toEqual([
      'd: nothing to upload: no video or image was found; name mp4, mov, jpg, png or webp files, folders holding them, or a glob',
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
        { files: ['i5.jpg'], to: CAROUSEL_ID, title: 'x', thumbnail: 'i4.jpg' },
        { files: ['i2.jpg', 'i4.jpg'] },
      ]),
    });
    expect(lines(await plan([], { manifest: 'm.json' }))).toEqual([
      'gone.mp4: does not exist; check the path',
      'm.json item 2: mixes videos and images in one item; give each video its own item, and the images of a carousel another',
      'm.json item 3: lists 2 videos in one item; give each video its own item',
      'm.json item 4: "to" appends images to a carousel; this item is a video; remove "to" from this item',
      'm.json item 6: a thumbnail does not apply when appending to an existing carousel; remove "thumbnail", or set it with: contentlib edit <id> --thumbnail IMG',
      'm.json item 6: metadata does not apply when appending to an existing carousel; remove the metadata, or change it with: contentlib edit <id>',
      'm.json item 7: lists i2.jpg, which m.json item 5 lists too; list each file once',
    ]);
  });
});

describe('an export folder (contentlib export)', () => {
  it('is read by its contentlib.json: order, types, thumbnails, and the names the library knew', async () => {
    await layout({
      'backup/a1/01-z.jpg': 'image/photo.jpg',
      'backup/a1/02-a.png': 'image/photo.png',
      'backup/a1/carousel.json': json({ title: 'Stills', status: 'published' }),
      'backup/a1/thumbnail.webp': 'image/photo.webp',
      'backup/b2/clip.mp4': 'video/clip-5s.mp4',
      'backup/b2/clip.mp4.json': json({ title: 'Clip', hashtags: ['x'] }),
      'backup/manifest.jsonl': Buffer.from('{"kind":"run"}\n'),
      'backup/contentlib.json': json({
        items: [
          {
            files: [
              { path: 'a1/01-z.jpg', fileName: 'z.jpg' },
              { path: 'a1/02-a.png', fileName: 'a.png' },
            ],
            type: 'carousel',
            thumbnail: 'a1/thumbnail.webp',
            original: { id: 'a1', createdAt: '2026-01-01T00:00:00.000Z' },
          },
          { files: ['b2/clip.mp4'], type: 'longform', original: { id: 'b2' } },
        ],
      }),
    });
    const p = await plan(['backup']);
    expect(lines(p)).toEqual([]);
    expect(p.skipped).toEqual([]);
    expect(p.items.map((i) => [i.type, i.source, i.files.map((f) => f.name), i.thumbnail?.name, i.metadata])).toEqual([
      [
        'carousel',
        'backup/contentlib.json item 1',
        ['z.jpg', 'a.png'],
        'thumbnail.webp',
        { title: 'Stills', status: 'published' },
      ],
      ['longform', 'backup/contentlib.json item 2', ['clip.mp4'], undefined, { title: 'Clip', hashtags: ['x'] }],
    ]);
  });

  it('a contentlib.json that is a carousel sidecar (a folder named contentlib) is read as one', async () => {
    await layout({
      'contentlib/1.jpg': 'image/photo.jpg',
      'contentlib/2.png': 'image/photo.png',
      'contentlib/contentlib.json': json({ title: 'Named after its folder' }),
    });
    const p = await plan(['contentlib']);
    expect(lines(p)).toEqual([]);
    expect(summary(p)).toEqual(['carousel contentlib: 1.jpg 2.png']);
    expect(p.items[0]!.metadata.title).toBe('Named after its folder');
  });
});
