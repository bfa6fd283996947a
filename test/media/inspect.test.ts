import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatOfName,
  inspectFile,
  inspectFileSync,
  probeDuration,
  SUPPORTED_EXTENSIONS,
} from '../../src/media/inspect.js';
import { formatProblem } from '../../src/rules/problem.js';
import { PNG_HEAD, sparseMp4, tinyMp4 } from '../support/mp4-boxes.js';
import { FIXTURES } from '../support/paths.js';

const fixture = (name: string) => join(FIXTURES, name);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-inspect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('inspectFile', () => {
  it.each([
    ['video/clip-5s.mp4', 'mp4', 'video/mp4', 5],
    ['video/clip-5s.mov', 'mov', 'video/quicktime', 5],
    ['video/clip-95s.mov', 'mov', 'video/quicktime', 95],
    ['video/moov-at-end.mp4', 'mp4', 'video/mp4', 5],
    ['image/photo.jpg', 'jpeg', 'image/jpeg', undefined],
    ['image/photo.png', 'png', 'image/png', undefined],
    ['image/photo.webp', 'webp', 'image/webp', undefined],
  ])('reads %s', async (name, format, contentType, duration) => {
    const path = fixture(name);
    const file = await inspectFile(path, name);
    const st = await stat(path);
    expect(file).toMatchObject({
      path,
      name: name.split('/')[1],
      size: st.size,
      mtimeMs: st.mtimeMs,
      extFormat: format,
      realFormat: format,
      contentType,
    });
    expect(file.durationSeconds).toBe(duration);
    expect(file.problems).toEqual([]);
    expect(file.warnings).toEqual([]);
  });

  it('sends a PNG named .jpg as PNG and warns about the name', async () => {
    const file = await inspectFile(fixture('image/png-named.jpg'), 'png-named.jpg');
    expect(file).toMatchObject({ extFormat: 'jpeg', realFormat: 'png', contentType: 'image/png', problems: [] });
    expect(file.warnings.map(formatProblem)).toEqual([
      'png-named.jpg: the name says JPEG but the file contains PNG data; it is sent as image/png; rename it to .png to match',
    ]);
  });

  it('warns about media bytes under a name without a media extension', async () => {
    const path = join(dir, 'scan');
    await writeFile(path, PNG_HEAD);
    const file = await inspectFile(path, 'scan');
    expect(file).toMatchObject({ realFormat: 'png', contentType: 'image/png', problems: [] });
    expect(file.extFormat).toBeUndefined();
    expect(file.warnings.map(formatProblem)).toEqual([
      'scan: the name has no media extension but the file contains PNG data; it is sent as image/png; rename it to .png to match',
    ]);
  });

  it('reports a truncated video with the reason', async () => {
    const file = await inspectFile(fixture('video/truncated.mp4'), 'truncated.mp4');
    expect(file.realFormat).toBe('mp4');
    expect(file.durationSeconds).toBeUndefined();
    expect(file.problems).toHaveLength(1);
    expect(file.problems[0]).toMatchObject({ file: 'truncated.mp4', rule: 'video', actual: 'truncated' });
    expect(formatProblem(file.problems[0]!)).toMatch(
      /^truncated\.mp4: the video is cut short \(.*\); copy or export it again$/,
    );
  });

  it('reports a video without a movie header', async () => {
    const path = join(dir, 'nomoov.mp4');
    await writeFile(path, tinyMp4(5).subarray(0, 32)); // ftyp only
    const file = await inspectFile(path, 'nomoov.mp4');
    expect(file.problems.map((p) => [p.rule, p.actual])).toEqual([['video', 'no_moov']]);
  });

  it('reports an empty file', async () => {
    const file = await inspectFile(fixture('video/empty.mp4'), 'empty.mp4');
    expect(file).toMatchObject({ size: 0, extFormat: 'mp4' });
    expect(file.realFormat).toBeUndefined();
    expect(file.problems.map(formatProblem)).toEqual([
      'empty.mp4: the file is empty (0 bytes); export or copy it again',
    ]);
  });

  it('reports an unsupported format with the supported list', async () => {
    const file = await inspectFile(fixture('other/notes.txt'), 'notes.txt');
    expect(file.problems.map(formatProblem)).toEqual(['notes.txt: not a supported format (mp4, mov, jpg, png, webp)']);
    expect(file.problems[0]).toMatchObject({ rule: 'format', actual: 'text/plain' });
    expect(SUPPORTED_EXTENSIONS).toBe('mp4, mov, jpg, png, webp');
  });

  it('reports a media name whose bytes are no supported format', async () => {
    const path = join(dir, 'fake.jpg');
    await writeFile(path, 'plain text pretending to be a jpeg');
    const file = await inspectFile(path, 'fake.jpg');
    expect(file.realFormat).toBeUndefined();
    expect(file.contentType).toBeUndefined();
    expect(file.problems.map(formatProblem)).toEqual([
      'fake.jpg: is named like JPEG but its bytes are not JPEG or any supported format; the file is damaged or was renamed; export it again',
    ]);
  });

  it.each([
    ['other/unsupported/photo.heic', 'is a HEIC image, which is not supported', 'convert it to JPEG'],
    ['other/unsupported/photo.avif', 'is an AVIF image, which is not supported', 'convert it to JPEG'],
    ['other/unsupported/animation.gif', 'is a GIF, which is not supported', 'convert it to MP4 (animated'],
    ['other/unsupported/clip.mkv', 'is a Matroska (MKV) video, which is not supported', 'convert it to MP4'],
  ])('names the unsupported format of %s and what to convert it to', async (name, message, hint) => {
    const file = await inspectFile(join(FIXTURES, name), name);
    expect(file.problems).toHaveLength(1);
    expect(file.problems[0]).toMatchObject({ rule: 'format' });
    expect(file.problems[0]!.message).toContain(message);
    expect(file.problems[0]!.hint).toContain(hint);
  });

  it('names the real format of unsupported bytes under a supported name', async () => {
    const path = join(dir, 'renamed.jpg');
    await copyFile(join(FIXTURES, 'other/unsupported/photo.heic'), path);
    const file = await inspectFile(path, 'renamed.jpg');
    expect(file.problems.map(formatProblem)).toEqual([
      'renamed.jpg: is named like JPEG but its bytes are a HEIC image, which is not supported; convert it to JPEG',
    ]);
  });

  it('reports a missing file and a directory', async () => {
    const missing = await inspectFile(join(dir, 'gone.mp4'), 'gone.mp4');
    expect(missing.problems.map(formatProblem)).toEqual(['gone.mp4: does not exist; check the path']);
    const folder = await inspectFile(dir, 'somedir');
    expect(folder.problems.map((p) => [p.rule, p.actual])).toEqual([['readable', 'directory']]);
  });

  it('reads a 2 GB sparse video without reading its bytes', async () => {
    const path = join(dir, 'huge.mp4');
    await sparseMp4(path, 2 * 2 ** 30, 600);
    const file = await inspectFile(path);
    expect(file).toMatchObject({ size: 2 * 2 ** 30, realFormat: 'mp4', durationSeconds: 600, problems: [] });
  });

  it('names problems with the path as given, and defaults to it', async () => {
    const path = join(dir, 'copy.txt');
    await copyFile(fixture('other/notes.txt'), path);
    const file = await inspectFile(path);
    expect(file.problems[0]!.file).toBe(path);
  });
});

describe('formatOfName', () => {
  it.each([
    ['a.mp4', 'mp4'],
    ['A.MOV', 'mov'],
    ['clip.m4v', 'mp4'],
    ['photo.JPEG', 'jpeg'],
    ['photo.jfif', 'jpeg'], // only mime-types knows this one (image/pjpeg, an alias in the table)
    ['x.webp', 'webp'],
    ['notes.txt', undefined],
    ['noext', undefined],
    ['anim.gif', undefined],
  ])('%s → %s', (name, format) => expect(formatOfName(name)).toBe(format));
});

describe('inspectFileSync then probeDuration: the same answer as inspectFile', () => {
  it.each([
    'video/clip-5s.mp4',
    'video/clip-95s.mov',
    'video/truncated.mp4',
    'video/empty.mp4',
    'image/photo.jpg',
    'image/photo.webp',
    'image/png-named.jpg',
    'other/notes.txt',
    'other/missing.jpg',
    'image',
  ])('%s', async (name) => {
    const path = fixture(name);
    const expected = await inspectFile(path, name);
    const { file, needsProbe } = inspectFileSync(path, name);
    expect(needsProbe).toBe(expected.realFormat === 'mp4' || expected.realFormat === 'mov');
    if (needsProbe) await probeDuration(file, name);
    expect(file).toEqual(expected);
  });
});
