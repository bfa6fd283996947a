// Where downloaded files land: names from the library made safe for a folder, one row per case.
import { describe, expect, it } from 'vitest';
import { carouselFileName, isPartName, partName, safeName, thumbnailName } from '../../src/download/names.js';

describe('safeName', () => {
  it.each([
    ['clip.mp4', 'clip.mp4'],
    ['../../etc/passwd', '_.._etc_passwd'],
    ['a/b\\c.jpg', 'a_b_c.jpg'],
    ['.hidden.mp4', 'hidden.mp4'],
    ['..', 'file'],
    ['   ', 'file'],
    ['new\nline.mp4', 'new_line.mp4'],
    ['rtl\u202egnp.mp4', 'rtl_gnp.mp4'],
    ['été 🌞.jpg', 'été 🌞.jpg'],
  ])('%j → %j', (name, safe) => {
    expect(safeName(name)).toBe(safe);
  });

  it('keeps a long name under 200 bytes with its extension', () => {
    const safe = safeName(`${'é'.repeat(300)}.webp`);
    expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(200);
    expect(safe.endsWith('.webp')).toBe(true);
  });
});

describe('carouselFileName', () => {
  it.each([
    [0, 3, 'b.jpg', '01-b.jpg'],
    [9, 10, 'a.png', '10-a.png'],
    [2, 5, '../x.webp', '03-_x.webp'],
    [0, 2, '', '01-image'],
  ])('position %i of %i, %j → %j', (index, count, name, out) => {
    expect(carouselFileName(index, count, name)).toBe(out);
  });

  it('name order is carousel order', () => {
    const names = ['z.jpg', 'a.jpg', '10.jpg', 'b.jpg', '2.jpg'].map((n, i) => carouselFileName(i, 10, n));
    expect([...names].sort()).toEqual(names);
  });
});

describe('thumbnailName', () => {
  it.each([
    ['http://h/storage/x/cover.png?expires=1&signature=s', undefined, 'thumbnail.png'],
    ['http://h/storage/x/cover.PNG', undefined, 'thumbnail.png'],
    ['http://h/storage/x/cover', 'image/webp', 'thumbnail.webp'],
    ['http://h/storage/x/cover', undefined, 'thumbnail.jpg'],
    ['not a url', undefined, 'thumbnail.jpg'],
  ])('%s (%s) → %s', (url, type, name) => {
    expect(thumbnailName(url, type)).toBe(name);
  });
});

describe('partName', () => {
  it('names the part after the file and what it holds', () => {
    const a = partName('/d/clip.mp4', 'item/one');
    expect(a).toMatch(/^\/d\/clip\.mp4\.[0-9a-f]{8}\.part$/);
    expect(partName('/d/clip.mp4', 'item/two')).not.toBe(a);
    expect(isPartName('clip.mp4.0a1b2c3d.part')).toBe(true);
    expect(isPartName('clip.part')).toBe(false);
  });
});
