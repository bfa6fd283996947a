// What the plan does not upload, and says so: unsupported formats with what to convert to,
// system and hidden files, stray .json files, links that leave the named folders, `--strict`;
// and names at the file system's limit or with control characters.
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildPlan, formatProblem, type PlanOptions, type UploadPlan } from '../../src/upload/plan/plan.js';
import { skippedLines } from '../../src/upload/plan/skips.js';
import { layout as layoutIn, tempDirEach } from '../support/tree.js';

const cwd = tempDirEach('contentlib-skips-');

const layout = (files: Record<string, string | Buffer>) => layoutIn(cwd(), files);
const plan = (inputs: string[], options: PlanOptions = {}) => buildPlan(inputs, options, { cwd: cwd() });
const lines = (p: UploadPlan) => p.problems.map(formatProblem);
const summary = (p: UploadPlan) => p.items.map((i) => `${i.type} ${i.source}: ${i.files.map((f) => f.name).join(' ')}`);

describe('skipped files', () => {
  beforeEach(async () => {
    await layout({
      'shoot/a.mp4': 'video/clip-5s.mp4',
      'shoot/pics/1.jpg': 'image/photo.jpg',
      'shoot/pics/2.png': 'image/photo.png',
      'shoot/pics/3.heic': 'other/unsupported/photo.heic',
      'shoot/pics/4.avif': 'other/unsupported/photo.avif',
      'shoot/loop.gif': 'other/unsupported/animation.gif',
      'shoot/raw.mkv': 'other/unsupported/clip.mkv',
      'shoot/notes.txt': 'other/notes.txt',
      'shoot/clip.json': Buffer.from('{"title": "typo: not a.mp4.json"}'),
      'shoot/.DS_Store': Buffer.alloc(0),
      'shoot/._a.mp4': Buffer.from([0, 5, 22, 7]),
      'shoot/pics/Thumbs.db': Buffer.alloc(0),
      'shoot/desktop.ini': Buffer.alloc(0),
    });
  });

  it('lists every file not uploaded with its reason and what to convert it to', async () => {
    const p = await plan(['shoot']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(['shortform shoot/a.mp4: a.mp4', 'carousel shoot/pics: 1.jpg 2.png']);
    expect(skippedLines(p.skipped)).toEqual([
      "shoot/clip.json: a .json file that is no sidecar of anything uploaded; a video's sidecar is named <video file name>.json, a carousel's carousel.json or <folder>.json",
      'shoot/loop.gif: a GIF, not supported; convert it to MP4 (animated, as a video) or PNG (a still image)',
      'shoot/notes.txt: not a photo or video (.txt)',
      'shoot/raw.mkv: a Matroska (MKV) video, not supported; convert it to MP4 (H.264)',
      'shoot/pics/3.heic: a HEIC image, not supported; convert it to JPEG',
      'shoot/pics/4.avif: an AVIF image, not supported; convert it to JPEG',
      '4 system files (.DS_Store, ._*, desktop.ini, Thumbs.db)',
    ]);
    expect(p.skipped.filter((s) => s.media).map((s) => s.kind)).toEqual([
      'unsupported',
      'unsupported',
      'unsupported',
      'unsupported',
    ]);
  });

  it('--strict turns every skipped media file into a problem, and nothing else', async () => {
    const p = await plan(['shoot'], { strict: true });
    expect(lines(p)).toEqual([
      'shoot/loop.gif: would be skipped (a GIF, not supported); convert it to MP4 (animated, as a video) or PNG (a still image), or leave out --strict',
      'shoot/raw.mkv: would be skipped (a Matroska (MKV) video, not supported); convert it to MP4 (H.264), or leave out --strict',
      'shoot/pics/3.heic: would be skipped (a HEIC image, not supported); convert it to JPEG, or leave out --strict',
      'shoot/pics/4.avif: would be skipped (an AVIF image, not supported); convert it to JPEG, or leave out --strict',
    ]);
    expect(p.problems.every((x) => x.rule === 'skipped')).toBe(true);
  });

  it('--strict is satisfied by a folder with only system files and notes beside its media', async () => {
    await layout({
      'clean/a.mp4': 'video/clip-5s.mp4',
      'clean/.DS_Store': Buffer.alloc(0),
      'clean/x.txt': 'other/notes.txt',
    });
    expect(lines(await plan(['clean'], { strict: true }))).toEqual([]);
  });

  it('names the skipped image when a folder is left with too few for a carousel', async () => {
    await layout({ 'pair/a.png': 'image/photo.png', 'pair/b.heic': 'other/unsupported/photo.heic' });
    expect(lines(await plan(['pair']))).toEqual([
      'pair/a.png: a carousel needs at least 2 images; got only 1 from pair; skipped there: pair/b.heic (a HEIC image, not supported); convert it to JPEG, or add another image, or append it to an existing carousel with --to <id>',
    ]);
  });

  it('reports a HEIC named on the command line as a problem with the hint', async () => {
    expect(lines(await plan(['shoot/pics/3.heic']))).toEqual([
      'shoot/pics/3.heic: is a HEIC image, which is not supported (mp4, mov, jpg, png, webp); convert it to JPEG',
    ]);
  });
});

describe('symbolic links', () => {
  it('follows links that stay inside the named folders', async () => {
    await layout({ 'd/real/a.mp4': 'video/clip-5s.mp4', 'e/b.mp4': 'video/clip-5s.mp4' });
    await symlink(join(cwd(), 'd/real/a.mp4'), join(cwd(), 'd/alias.mp4'));
    await symlink(join(cwd(), 'e'), join(cwd(), 'd/to-e'));
    const p = await plan(['d', 'e']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual([
      'shortform d/alias.mp4: alias.mp4',
      'shortform d/real/a.mp4: a.mp4',
      'shortform d/to-e/b.mp4: b.mp4',
    ]);
    expect(p.skipped).toEqual([]);
  });

  it('skips and reports links that leave the named folders, loop or are broken, and goes on', async () => {
    await layout({ 'd/a.mp4': 'video/clip-5s.mp4', 'outside/secret.mp4': 'video/clip-5s.mp4' });
    await symlink('..', join(cwd(), 'd/up'));
    await symlink(join(cwd(), 'outside/secret.mp4'), join(cwd(), 'd/secret.mp4'));
    await symlink(join(cwd(), 'd/gone.mp4'), join(cwd(), 'd/broken.mp4'));
    await symlink('self', join(cwd(), 'd/self'));
    const p = await plan(['d']);
    expect(p.problems).toEqual([]);
    expect(summary(p)).toEqual(['shortform d/a.mp4: a.mp4']);
    expect(p.skipped.map((s) => `${s.path}: ${s.reason}`)).toEqual([
      `d/broken.mp4: broken symbolic link (to ${join(cwd(), 'd/gone.mp4')})`,
      'd/secret.mp4: symbolic link to outside/secret.mp4, outside the folders named',
      'd/self: symbolic link loop',
      'd/up: symbolic link to the working folder, outside the folders named',
    ]);
    // A link to a video that is not uploaded is a skipped media file: --strict refuses.
    expect((await plan(['d'], { strict: true })).problems.map((x) => x.file)).toEqual(['d/broken.mp4', 'd/secret.mp4']);
  });

  it('uploads a link named on the command line, wherever it leads', async () => {
    await layout({ 'outside/secret.mp4': 'video/clip-5s.mp4' });
    await symlink(join(cwd(), 'outside/secret.mp4'), join(cwd(), 'named.mp4'));
    expect(summary(await plan(['named.mp4']))).toEqual(['shortform named.mp4: named.mp4']);
  });
});

describe('names', () => {
  it('plans a video whose name is at the file system limit (no sidecar can exist)', async () => {
    const name = `${'v'.repeat(251)}.mp4`; // 255 bytes: NAME.json would be 260
    await layout({ [`long/${name}`]: 'video/clip-5s.mp4' });
    const p = await plan(['long']);
    expect(p.problems).toEqual([]);
    expect(p.items.map((i) => i.files[0]!.name)).toEqual([name]);
  });

  it('plans a carousel folder whose name is at the limit', async () => {
    const dir = 'c'.repeat(255);
    await layout({ [`${dir}/1.jpg`]: 'image/photo.jpg', [`${dir}/2.jpg`]: 'image/photo.jpg' });
    const p = await plan([dir]);
    expect(p.problems).toEqual([]);
    expect(p.items[0]!.metadata.title).toHaveLength(255);
  });

  it('escapes control characters in every path it shows', async () => {
    await layout({
      'odd/new\nline.mp4': 'video/clip-2s.mp4',
      'odd/tab\there.txt': 'other/notes.txt',
      'odd/esc\u001b[31m.heic': 'other/unsupported/photo.heic',
    });
    const p = await plan(['odd'], { type: 'shortform' });
    expect(lines(p)).toEqual([`"odd/new\\nline.mp4": 2 s is shorter than shortform's 3 s; use --type longform`]);
    expect(p.skipped.map((s) => s.path)).toEqual(['"odd/esc\\033[31m.heic"', '"odd/tab\\there.txt"']);
    expect(p.items[0]!.source).toBe('"odd/new\\nline.mp4"');
  });

  it('titles a folder carousel after its folder without its control characters', async () => {
    await layout({ 'a\tb/1.jpg': 'image/photo.jpg', 'a\tb/2.jpg': 'image/photo.jpg' });
    expect((await plan(['a\tb'])).items[0]!.metadata.title).toBe('a b');
  });
});
