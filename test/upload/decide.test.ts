// decide(): what was scanned + the options → items and problems, as tables. No disk: files are
// described by what inspection would have found (format, size, duration). What reading the disk
// finds (walks, globs, sidecar and manifest parsing, inspection) is tested in scan.test.ts.
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatOfName } from '../../src/media/inspect.js';
import { FORMATS, GB, MB } from '../../src/rules/rules.js';
import { decide, type PlanOptions, type UploadPlan } from '../../src/upload/plan/decide.js';
import type { ResolvedManifestItem } from '../../src/upload/plan/manifest.js';
import type { ItemMetadata } from '../../src/api/schemas.js';
import { formatProblem } from '../../src/rules/problem.js';
import type { Scanned, ScannedFile, ScannedManifestItem, Sidecar } from '../../src/upload/plan/scan.js';
import { FileTable } from '../../src/upload/plan/file-table.js';

const CWD = '/work';
const ID = '6f1c0a5e-8d0b-4f5e-9a57-2b1d3c4e5f60';

/** A file as inspection reports it: its name's format (also its real one), `size` bytes, and a duration for videos. */
function file(shown: string, size: number, durationSeconds?: number): ScannedFile {
  const path = join(CWD, shown);
  const format = formatOfName(shown)!;
  return {
    shown,
    file: {
      path,
      name: basename(path),
      size,
      mtimeMs: 0,
      extFormat: format,
      realFormat: format,
      contentType: FORMATS[format].mime,
      ...(durationSeconds !== undefined ? { durationSeconds } : {}),
      problems: [],
      warnings: [],
    },
  };
}
const video = (shown: string, seconds: number, size = 4 * MB) => file(shown, size, seconds);
const image = (shown: string, size = 200_000) => file(shown, size);
/** `n` images 1.ext … n.ext in `dir`. */
const images = (dir: string, n: number, ext: string) =>
  Array.from({ length: n }, (_, i) => image(`${dir}/${i + 1}.${ext}`));
const names = (n: number, ext: string) => Array.from({ length: n }, (_, i) => `${i + 1}.${ext}`).join(' ');
const sidecar = (shown: string, metadata: ItemMetadata): Record<string, Sidecar> => ({
  [join(CWD, shown)]: { shown, metadata },
});
/** A manifest item as given here: its files as records (run() packs them as the scan does). */
type GivenManifestItem = Omit<ScannedManifestItem, 'files'> & { files: ScannedFile[] };
/** Item `n` of m.json. */
function item(n: number, files: ScannedFile[], extra: Partial<ResolvedManifestItem> = {}): GivenManifestItem {
  return { item: { files: files.map((f) => f.file.path), metadata: {}, label: `m.json item ${n}`, ...extra }, files };
}

interface Given {
  files?: ScannedFile[];
  manifest?: GivenManifestItem[];
  sidecars?: Record<string, Sidecar>;
  thumbnail?: ScannedFile;
  /** What was typed; one path unless said (none with a manifest). */
  inputs?: string[];
  options?: PlanOptions;
}

function run(g: Given): UploadPlan {
  const table = new FileTable(CWD);
  const pack = (files: ScannedFile[]) => files.map((s) => table.add(s.file));
  const scanned: Scanned = {
    cwd: CWD,
    table,
    files: pack(g.files ?? []),
    ...(g.manifest ? { manifest: g.manifest.map((m) => ({ ...m, files: pack(m.files) })) } : {}),
    problems: [],
    skipped: [],
    sidecars: g.sidecars ?? {},
    ...(g.thumbnail ? { thumbnail: g.thumbnail } : {}),
  };
  const options = { ...(g.manifest ? { manifest: 'm.json' } : {}), ...g.options };
  return decide(scanned, g.inputs ?? (g.manifest ? [] : ['in']), options);
}
const lines = (p: UploadPlan) => p.problems.map(formatProblem);
const summary = (p: UploadPlan) =>
  p.items.map(
    (i) =>
      `${i.type} ${i.source}: ${i.files.map((f) => f.name).join(' ')}${i.thumbnail ? ` + ${i.thumbnail.name}` : ''}`,
  );

/** [what, given, the items (type source: files), the problems]. */
type Case = [string, Given, string[], string[]];

// prettier-ignore
const VIDEOS: Case[] = [
  ['a 2 s mp4 is longform', { files: [video('v.mp4', 2)] }, ['longform v.mp4: v.mp4'], []],
  ['a 5 s mp4 is shortform', { files: [video('v.mp4', 5)] }, ['shortform v.mp4: v.mp4'], []],
  ['a 5 s mov is shortform', { files: [video('v.mov', 5)] }, ['shortform v.mov: v.mov'], []],
  ['a 95 s mp4 is longform', { files: [video('v.mp4', 95)] }, ['longform v.mp4: v.mp4'], []],
  ['a 95 s mov is longform', { files: [video('v.mov', 95)] }, ['longform v.mov: v.mov'], []],
  ['90 s and exactly 300 MB is shortform', { files: [video('edge.mp4', 90, 300 * MB)] }, ['shortform edge.mp4: edge.mp4'], []],
  ['exactly 3 s is shortform', { files: [video('short3.mp4', 3, 1000)] }, ['shortform short3.mp4: short3.mp4'], []],
  ['one byte over 300 MB is longform', { files: [video('over.mp4', 10, 300 * MB + 1)] }, ['longform over.mp4: over.mp4'], []],
  ['1 GB is longform', { files: [video('long.mp4', 3600, GB)] }, ['longform long.mp4: long.mp4'], []],
  ["over longform's 1 GB", { files: [video('big.mov', 600, Math.round(1.2 * GB))] }, ['longform big.mov: big.mov'], ['big.mov: 1.2 GiB (204.8 MiB over); longform videos take at most 1 GiB; compress or split it to 1 GiB or less']],
  ['--type shortform: too long', { files: [video('clip.mp4', 94.2)], options: { type: 'shortform' } }, ['shortform clip.mp4: clip.mp4'], ["clip.mp4: 94.2 s is longer than shortform's 90 s; use --type longform"]],
  ['--type shortform: too short', { files: [video('tiny.mp4', 2.5)], options: { type: 'shortform' } }, ['shortform tiny.mp4: tiny.mp4'], ["tiny.mp4: 2.5 s is shorter than shortform's 3 s; use --type longform"]],
  ['--type shortform: over 300 MB', { files: [video('heavy.mp4', 30, 301 * MB)], options: { type: 'shortform' } }, ['shortform heavy.mp4: heavy.mp4'], ['heavy.mp4: 300 MiB + 1 MiB; shortform videos take at most 300 MiB; use --type longform (up to 1 GiB)']],
  ['--type shortform: over 1 GB too', { files: [video('huge.mp4', 30, 2 * GB)], options: { type: 'shortform' } }, ['shortform huge.mp4: huge.mp4'], ['huge.mp4: 2 GiB (1.7 GiB over); shortform videos take at most 300 MiB; compress or split it to 300 MiB or less']],
  ['--type longform: 2 s (no minimum length)', { files: [video('short.mp4', 2)], options: { type: 'longform' } }, ['longform short.mp4: short.mp4'], []],
  ['--type carousel: a video', { files: [video('v.mp4', 5)], options: { type: 'carousel' } }, ['carousel v.mp4: v.mp4'], ['v.mp4: is a video; carousel takes images (jpg, png, webp); leave out the carousel type for videos']],
  ['--type shortform: images', { files: [image('a.jpg'), image('b.png')], options: { type: 'shortform' } }, ['carousel .: a.jpg b.png'], ['a.jpg: is an image; shortform takes videos (mp4, mov); use --type carousel, or leave the type out', 'b.png: is an image; shortform takes videos (mp4, mov); use --type carousel, or leave the type out']],
];

// prettier-ignore
const CAROUSELS: Case[] = [
  ["a folder's images in natural order, whatever their format", { files: [image('set/10.webp'), image('set/2.png'), image('set/1.jpg'), image('set/Img3.jpg'), image('set/img20.jpg')] }, ['carousel set: 1.jpg 2.png 10.webp Img3.jpg img20.jpg'], []],
  ['images named one by one, grouped by their folder', { files: [image('a/2.jpg'), image('b/1.png'), image('a/1.jpg'), image('b/2.png')] }, ['carousel a: 1.jpg 2.jpg', 'carousel b: 1.png 2.png'], []],
  ['--carousel: one carousel from several folders', { files: [image('a/1.jpg'), image('b/10.png'), image('b/2.png')], options: { carousel: true } }, ['carousel --carousel: 1.jpg 2.png 10.png'], []],
  ['a folder of one image', { files: [image('one/only.jpg')] }, ['carousel one: only.jpg'], ['one/only.jpg: a carousel needs at least 2 images; got only 1 from one; add another image, or append it to an existing carousel with --to <id>']],
  ['a folder of 11 images', { files: images('many', 11, 'png') }, [`carousel many: ${names(11, 'png')}`], ["many: 11 images is over carousel's maximum of 10; add --split to make carousels of at most 10 from them, or split them into folders of at most 10 (each folder becomes its own carousel)"]],
  ['--carousel with one image', { files: [image('a.jpg')], options: { carousel: true } }, ['carousel .: a.jpg'], ['a.jpg: a carousel needs at least 2 images; got only 1; add another image, or append it to an existing carousel with --to <id>']],
  ['an image over 20 MB', { files: [image('set/a.jpg'), image('set/b.png', 21 * MB)] }, ['carousel set: a.jpg b.png'], ['set/b.png: 21 MiB (1 MiB over); carousel images take at most 20 MiB; resize or compress it to 20 MiB or less']],
  ['--split: 11 images, as even as can be (never a carousel of one)', { files: images('many', 11, 'png'), options: { split: true } }, ['carousel many (1/2): 1.png 2.png 3.png 4.png 5.png 6.png', 'carousel many (2/2): 7.png 8.png 9.png 10.png 11.png'], []],
  ['--split: 23 images in three, in order', { files: images('many', 23, 'jpg'), options: { split: true } }, ['carousel many (1/3): 1.jpg 2.jpg 3.jpg 4.jpg 5.jpg 6.jpg 7.jpg 8.jpg', 'carousel many (2/3): 9.jpg 10.jpg 11.jpg 12.jpg 13.jpg 14.jpg 15.jpg 16.jpg', 'carousel many (3/3): 17.jpg 18.jpg 19.jpg 20.jpg 21.jpg 22.jpg 23.jpg'], []],
  ['--split: 10 images or fewer stay one carousel', { files: images('set', 10, 'jpg'), options: { split: true } }, [`carousel set: ${names(10, 'jpg')}`], []],
  ['--split with --carousel', { files: [...images('a', 6, 'jpg'), ...images('b', 6, 'png')], options: { split: true, carousel: true } }, ['carousel --carousel (1/2): 1.jpg 1.png 2.jpg 2.png 3.jpg 3.png', 'carousel --carousel (2/2): 4.jpg 4.png 5.jpg 5.png 6.jpg 6.png'], []],
];

// prettier-ignore
const APPEND: Case[] = [
  ['--to: the images, without the folder sidecar', { files: [image('x/3.jpg')], sidecars: sidecar('x/carousel.json', { title: 'ignored' }), options: { to: ID } }, ['carousel x: 3.jpg'], []],
  ['--to: not a UUID', { files: [image('imgs/1.jpg')], options: { to: 'abc' } }, ['carousel imgs: 1.jpg'], ["--to: is not a content item id (a UUID); find the carousel's id with: contentlib ls --type carousel"]],
  ['--to: a video', { files: [video('v.mp4', 5), image('imgs/1.jpg')], options: { to: ID } }, ['carousel imgs: 1.jpg'], ['v.mp4: --to appends images to a carousel; this is a video; upload videos in a separate command']],
  ['--to: metadata flags', { files: [image('imgs/1.jpg')], options: { to: ID, metadata: { title: 'x' } } }, ['carousel imgs: 1.jpg'], ['--to: metadata flags do not apply when appending to an existing carousel; change its metadata with: contentlib edit <id>']],
  ['--to: a video type', { files: [image('imgs/1.jpg')], options: { to: ID, type: 'longform' } }, ['carousel imgs: 1.jpg'], ['--type: --to appends images to a carousel; leave out --type, or upload videos in a separate command', 'imgs/1.jpg: is an image; longform takes videos (mp4, mov); use --type carousel, or leave the type out']],
  ['--to: 11 images', { files: images('imgs', 11, 'jpg'), options: { to: ID } }, [`carousel imgs: ${names(11, 'jpg')}`], ["imgs: 11 images is over carousel's maximum of 10; append at most 10 images, fewer if the carousel already has some"]],
  ['--to with --split: never split (appending has one carousel)', { files: images('imgs', 11, 'jpg'), options: { to: ID, split: true } }, [`carousel imgs: ${names(11, 'jpg')}`], ["imgs: 11 images is over carousel's maximum of 10; append at most 10 images, fewer if the carousel already has some"]],
];

const half = 'x'.repeat(40 * 1024);
// prettier-ignore
const METADATA_PROBLEMS: Case[] = [
  ['one --title for 3 items', { files: [video('a.mp4', 5), video('b.mp4', 5), video('c.mp4', 5)], options: { metadata: { title: 'Same' } } }, ['shortform a.mp4: a.mp4', 'shortform b.mp4: b.mp4', 'shortform c.mp4: c.mp4'], ['--title: would give 3 items the same title; upload them one at a time, or give each its title in a sidecar (<file>.json, carousel.json) or a --manifest']],
  ['two sidecars for one carousel', { files: images('summer', 2, 'jpg'), sidecars: { ...sidecar('summer/summer.json', { title: 'S' }), ...sidecar('summer/carousel.json', { title: 'C' }) } }, ['carousel summer: 1.jpg 2.jpg'], ['summer/summer.json: a second sidecar for the same carousel (summer/carousel.json is the other); keep one of them']],
  ['a sidecar that could not be read', { files: [video('a.mp4', 5)], sidecars: { [join(CWD, 'a.mp4.json')]: { shown: 'a.mp4.json', problem: { file: 'a.mp4.json', rule: 'sidecar', actual: 'invalid JSON', message: 'is not valid JSON' } } } }, ['shortform a.mp4: a.mp4'], ['a.mp4.json: is not valid JSON']],
  ['flag metadata over the server limits', { files: [video('a.mp4', 5)], options: { metadata: { title: 't'.repeat(301) } } }, ['shortform a.mp4: a.mp4'], ['metadata flags: its metadata is invalid: title: Too big: expected string to have <=300 characters; fix the flag, sidecar or manifest entry']],
  ['platformSettings merged past 64 KB', { files: [video('a.mp4', 5)], sidecars: sidecar('a.mp4.json', { platformSettings: { tiktok: { note: half } } }), options: { metadata: { platformSettings: { youtube: { note: half } } } } }, ['shortform a.mp4: a.mp4'], ['a.mp4: its metadata is invalid: platformSettings: platformSettings must be at most 65536 bytes of JSON; fix the flag, sidecar or manifest entry']],
];

const thumb = image('thumb.jpg');
// prettier-ignore
const THUMBNAILS: Case[] = [
  ['--thumbnail: the single video', { files: [video('v.mp4', 5)], thumbnail: image('thumb.webp') }, ['shortform v.mp4: v.mp4 + thumb.webp'], []],
  ['--thumbnail: 2 items', { files: [video('v.mp4', 5), video('w.mp4', 5)], thumbnail: thumb }, ['shortform v.mp4: v.mp4', 'shortform w.mp4: w.mp4'], ['--thumbnail: needs exactly one video to upload; the plan has 2 items; upload the video on its own, or set a thumbnail later with: contentlib edit <id> --thumbnail IMG']],
  ['--thumbnail: a carousel', { files: images('s', 2, 'jpg'), thumbnail: thumb }, ['carousel s: 1.jpg 2.jpg'], ['--thumbnail: needs exactly one video to upload; the plan has a carousel; upload the video on its own, or set a thumbnail later with: contentlib edit <id> --thumbnail IMG']],
  ['--thumbnail: a video', { files: [video('v.mp4', 5)], thumbnail: video('other.mp4', 2) }, ['shortform v.mp4: v.mp4 + other.mp4'], ['other.mp4: video/mp4 is not allowed for a thumbnail; allowed: image/jpeg, image/png, image/webp; use a jpg, png, webp image of 20 MiB or less']],
  ['--thumbnail: over 20 MB', { files: [video('v.mp4', 5)], thumbnail: image('big.png', 21 * MB) }, ['shortform v.mp4: v.mp4 + big.png'], ['big.png: 21 MiB (1 MiB over); thumbnails take at most 20 MiB; use a jpg, png, webp image of 20 MiB or less']],
];

// prettier-ignore
const INPUTS: Case[] = [
  ['no media found', { inputs: ['d'] }, [], ['d: nothing to upload: no video or image was found; name mp4, mov, jpg, png or webp files, folders holding them, or a glob']],
];

// prettier-ignore
const MANIFESTS: Case[] = [
  ['a manifest type, checked strictly, hinted in manifest words', { manifest: [item(1, [video('v.mp4', 95)], { type: 'shortform' })] }, ['shortform m.json item 1: v.mp4'], ['v.mp4: 95 s is longer than shortform\'s 90 s; set "type": "longform" in the manifest']],
  ['an item of a video and an image', { manifest: [item(2, [video('v1.mp4', 5), image('i1.jpg')])] }, [], ['m.json item 2: mixes videos and images in one item; give each video its own item, and the images of a carousel another']],
  ['an item of 2 videos', { manifest: [item(3, [video('v2.mp4', 5), video('v3.mp4', 5)])] }, [], ['m.json item 3: lists 2 videos in one item; give each video its own item']],
  ['a video with "to"', { manifest: [item(4, [video('v4.mp4', 5)], { to: ID })] }, ['shortform m.json item 4: v4.mp4'], ['m.json item 4: "to" appends images to a carousel; this item is a video; remove "to" from this item']],
  ['a carousel with a thumbnail', { manifest: [{ ...item(5, images('s', 2, 'jpg'), { thumbnail: join(CWD, 'i4.jpg') }), thumbnail: image('i4.jpg') }] }, ['carousel m.json item 5: 1.jpg 2.jpg + i4.jpg'], []],
  ['"to" with a thumbnail', { manifest: [{ ...item(8, [image('i6.jpg')], { to: ID, thumbnail: join(CWD, 'i4.jpg') }), thumbnail: image('i4.jpg') }] }, ['carousel m.json item 8: i6.jpg'], ['m.json item 8: a thumbnail does not apply when appending to an existing carousel; remove "thumbnail", or set it with: contentlib edit <id> --thumbnail IMG']],
  ['"to" with metadata', { manifest: [item(6, [image('i5.jpg')], { to: ID, metadata: { title: 'x' } })] }, ['carousel m.json item 6: i5.jpg'], ['m.json item 6: metadata does not apply when appending to an existing carousel; remove the metadata, or change it with: contentlib edit <id>']],
  ['a file in 2 items', { manifest: [item(5, [image('i2.jpg'), image('i3.jpg')]), item(7, [image('i2.jpg'), image('i4.jpg')])] }, ['carousel m.json item 5: i2.jpg i3.jpg', 'carousel m.json item 7: i2.jpg i4.jpg'], ['m.json item 7: lists i2.jpg, which m.json item 5 lists too; list each file once']],
  ['paths beside a manifest', { manifest: [item(1, [video('v.mp4', 5)])], inputs: ['v.mp4'] }, ['shortform m.json item 1: v.mp4'], ['--manifest: a manifest lists every file; paths were given too; put the files in the manifest, or leave out --manifest']],
  ['--thumbnail beside a manifest', { manifest: [item(1, [video('v.mp4', 5)])], options: { thumbnail: 'x.jpg' } }, ['shortform m.json item 1: v.mp4'], ['--thumbnail: does not combine with --manifest; give the video\'s "thumbnail" in its manifest item']],
];

describe.each([
  ['videos', VIDEOS],
  ['carousels', CAROUSELS],
  ['--to <id>', APPEND],
  ['metadata', METADATA_PROBLEMS],
  ['--thumbnail', THUMBNAILS],
  ['inputs', INPUTS],
  ['--manifest', MANIFESTS],
])('%s', (_group, cases) => {
  it.each(cases)('%s', (_what, given, items, problems) => {
    const p = run(given);
    expect(summary(p)).toEqual(items);
    expect(lines(p)).toEqual(problems);
  });
});

// prettier-ignore
const RULES: Array<[string, Given, Array<[string, string, string]>]> = [
  ["over longform's 1 GB", { files: [video('big.mov', 600, Math.round(1.2 * GB))] }, [['big.mov', 'size', '1,288,490,189 bytes']]],
  ['--type shortform', { files: [video('clip.mp4', 94.2), video('tiny.mp4', 2.5), video('heavy.mp4', 30, 301 * MB), video('huge.mp4', 30, 2 * GB)], options: { type: 'shortform' } }, [['clip.mp4', 'duration', '94.2 s'], ['tiny.mp4', 'duration', '2.5 s'], ['heavy.mp4', 'size', '315,621,376 bytes'], ['huge.mp4', 'size', '2,147,483,648 bytes']]],
  ['carousels of 1 and 11', { files: [image('one/only.jpg'), ...images('many', 11, 'png')] }, [['one/only.jpg', 'carousel', '1 image'], ['many', 'carousel', '11 images']]],
  ['flag metadata', { files: [video('a.mp4', 5)], options: { metadata: { title: 't'.repeat(301) } } }, [['metadata flags', 'metadata', 'invalid metadata']]],
  ['merged metadata', { files: [video('a.mp4', 5)], sidecars: sidecar('a.mp4.json', { platformSettings: { tiktok: { note: half } } }), options: { metadata: { platformSettings: { youtube: { note: half } } } } }, [['a.mp4', 'metadata', 'invalid metadata']]],
];

describe('which rule each problem names, and its value', () => {
  it.each(RULES)('%s', (_what, given, expected) => {
    expect(run(given).problems.map((x) => [x.file, x.rule, x.actual])).toEqual(expected);
  });
});

const flags = {
  description: 'shared',
  status: 'draft' as const,
  hashtags: ['flag'],
  platformSettings: { youtube: { visibility: 'private' } },
};
// prettier-ignore
const METADATA: Array<[string, Given, ItemMetadata[]]> = [
  ['flags under sidecars, platformSettings merged per key', { files: [video('a.mp4', 5), video('b.mov', 5)], sidecars: sidecar('a.mp4.json', { title: 'A', hashtags: ['one', 'two'], platformSettings: { youtube: { category: 'music' } } }), options: { metadata: { ...flags, hashtags: ['#flag', ' FLAG '] } } }, [{ title: 'A', description: 'shared', status: 'draft', hashtags: ['one', 'two'], platformSettings: { youtube: { visibility: 'private', category: 'music' } } }, flags]],
  ['one --title, and sidecars that name the other items', { files: [video('a.mp4', 5), video('b.mp4', 5), video('c.mp4', 5)], sidecars: { ...sidecar('a.mp4.json', { title: 'A' }), ...sidecar('b.mp4.json', { title: 'B' }) }, options: { metadata: { title: 'Same' } } }, [{ title: 'A' }, { title: 'B' }, { title: 'Same' }]],
  ['a carousel sidecar named after its folder', { files: images('summer', 2, 'jpg'), sidecars: sidecar('summer/summer.json', { title: 'Summer' }) }, [{ title: 'Summer' }]],
  ['--to: none, whatever the folder sidecar says', { files: [image('x/3.jpg')], sidecars: sidecar('x/carousel.json', { title: 'ignored' }), options: { to: ID } }, [{}]],
  ['a manifest item over sidecar over flags', { manifest: [item(1, [video('v.mp4', 95)], { metadata: { title: 'Launch' } })], sidecars: sidecar('v.mp4.json', { title: 'from sidecar', description: 'sidecar description' }), options: { metadata: { status: 'draft' } } }, [{ status: 'draft', title: 'Launch', description: 'sidecar description' }]],
];

describe('metadata: flags < sidecar < manifest', () => {
  it.each(METADATA)('%s', (_what, given, expected) => {
    const p = run(given);
    expect(p.problems).toEqual([]);
    expect(p.items.map((i) => i.metadata)).toEqual(expected);
  });
});

describe('--to <id>', () => {
  it('appends to the carousel and notes what the engine checks', () => {
    const p = run({ files: [image('x/3.jpg')], options: { to: ID } });
    expect(p.items).toHaveLength(1);
    expect(p.items[0]).toMatchObject({ type: 'carousel', contentItemId: ID, metadata: {}, source: 'x' });
    expect(p.notes).toEqual([
      `--to ${ID}: the carousel's current number of images is checked against the maximum of 10 when the upload starts`,
    ]);
  });
});

// A folder's carousel that nothing else names keeps no source or metadata of its own: both are
// made again from its folder when read (PackedItem). What is read is what planning gave it.
describe("a folder's carousel: its source and metadata as planning gave them", () => {
  const trip = images('trip', 3, 'jpg');
  it('after its folder, whenever read, and as set when set', () => {
    const p = run({ files: [...trip, ...images('Été 2024', 2, 'png')] });
    expect(p.items.map((i) => [i.source, i.metadata])).toEqual([
      ['trip', { title: 'trip' }],
      ['Été 2024', { title: 'Été 2024' }],
    ]);
    // Read again: the same values, and a change to one read does not stay.
    const first = p.items[0]!;
    first.metadata.title = 'changed in a copy';
    expect(first.metadata).toEqual({ title: 'trip' });
    first.metadata = { title: 'Set', status: 'draft' };
    first.source = 'elsewhere';
    expect([first.source, first.metadata]).toEqual(['elsewhere', { title: 'Set', status: 'draft' }]);
    expect(p.items[1]!.metadata).toEqual({ title: 'Été 2024' });
  });

  it('with flags, a sidecar or a split, what those give', () => {
    const flags = run({ files: trip, options: { metadata: { status: 'draft' } } });
    expect(flags.items.map((i) => i.metadata)).toEqual([{ title: 'trip', status: 'draft' }]);
    const side = run({ files: trip, sidecars: sidecar('trip/carousel.json', { title: 'Beach' }) });
    expect(side.items.map((i) => i.metadata)).toEqual([{ title: 'Beach' }]);
    const split = run({ files: images('trip', 12, 'jpg'), options: { split: true } });
    expect(split.items.map((i) => [i.source, i.metadata])).toEqual([
      ['trip (1/2)', { title: 'trip (1/2)' }],
      ['trip (2/2)', { title: 'trip (2/2)' }],
    ]);
  });
});
