// edit's image flags as tables over the pure functions of src/cli/commands/edit-image-flags.ts:
// which image a position or a name means, the order a (partial) --order makes, and every way the
// flags can be wrong, each with the message a person reads.
import { describe, expect, it } from 'vitest';
import type { CarouselFile } from '../../src/api/schemas.js';
import {
  describeChange,
  findImage,
  imageFlagsGiven,
  imagesAfter,
  newOrder,
  planImageChange,
  sameOrder,
} from '../../src/cli/commands/edit-image-flags.js';
import { UsageError } from '../../src/cli/errors.js';

const file = (n: number, name: string): CarouselFile => ({
  id: `id-${n}`,
  fileKey: `u/${n}/${name}`,
  sortOrder: n - 1,
  fileName: name,
});
const FILES = [
  file(1, 'beach.jpg'),
  file(2, 'Sunset.png'),
  file(3, 'dune.webp'),
  file(4, 'twin.jpg'),
  file(5, 'twin.jpg'),
];
const names = (files: readonly { fileName?: string }[]) => files.map((f) => f.fileName);

/** The usage error a call throws: its message and hint. */
function usage(fn: () => unknown): { message: string; hint: string | undefined } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return { message: (err as UsageError).message, hint: (err as UsageError).hint };
  }
  throw new Error('expected a usage error');
}

describe('findImage: a position from 1 or a file name', () => {
  it.each([
    ['1', 1],
    [' 3 ', 3],
    ['5', 5],
    ['beach.jpg', 1],
    ['dune.webp', 3],
    ['sunset.png', 2],
    ['SUNSET.PNG', 2],
  ])('%j is image %i', (token, position) => {
    const found = findImage(token, FILES, '--remove-image');
    expect(found.position).toBe(position);
    expect(found.file).toBe(FILES[position - 1]);
  });

  it.each([
    ['0', '--remove-image: position 0 is out of range; the carousel has 5 images (1–5).'],
    ['6', '--remove-image: position 6 is out of range; the carousel has 5 images (1–5).'],
    ['nope.jpg', '--remove-image: no image is named "nope.jpg".'],
    ['twin.jpg', '--remove-image: 2 images are named "twin.jpg" (positions 4 and 5).'],
    ['', '--remove-image has an empty entry.'],
    ['-1', '--remove-image: no image is named "-1".'],
  ])('%j is refused: %s', (token, message) => {
    expect(usage(() => findImage(token, FILES, '--remove-image')).message).toBe(message);
  });

  it('an unknown name lists the images with their positions', () => {
    expect(usage(() => findImage('x', FILES.slice(0, 2), '--order')).hint).toBe(
      "Give a position from 1 or a file name; the carousel's images: 1 beach.jpg, 2 Sunset.png.",
    );
  });
});

describe('newOrder: the images named first, in that order, then the rest as they were', () => {
  it.each([
    ['3,1,2,4,5', ['dune.webp', 'beach.jpg', 'Sunset.png', 'twin.jpg', 'twin.jpg']],
    ['3', ['dune.webp', 'beach.jpg', 'Sunset.png', 'twin.jpg', 'twin.jpg']],
    ['5,4', ['twin.jpg', 'twin.jpg', 'beach.jpg', 'Sunset.png', 'dune.webp']],
    ['dune.webp,sunset.png', ['dune.webp', 'Sunset.png', 'beach.jpg', 'twin.jpg', 'twin.jpg']],
    ['2, beach.jpg', ['Sunset.png', 'beach.jpg', 'dune.webp', 'twin.jpg', 'twin.jpg']],
    ['1,2,3,4,5', ['beach.jpg', 'Sunset.png', 'dune.webp', 'twin.jpg', 'twin.jpg']],
  ])('%j', (text, expected) => {
    expect(names(newOrder(text, FILES))).toEqual(expected);
  });

  it('keeps the images themselves (ids), not copies', () => {
    expect(newOrder('5,4', FILES).map((f) => f.id)).toEqual(['id-5', 'id-4', 'id-1', 'id-2', 'id-3']);
  });

  it.each([
    ['1,1', '--order names image 1 twice.'],
    ['1,3,beach.jpg', '--order names image 1 twice (as 1 and as beach.jpg).'],
    ['2,SUNSET.png', '--order names image 2 twice (as 2 and as SUNSET.png).'],
    ['3,7', '--order: position 7 is out of range; the carousel has 5 images (1–5).'],
    ['1,,2', '--order has an empty entry.'],
    ['twin.jpg', '--order: 2 images are named "twin.jpg" (positions 4 and 5).'],
  ])('%j is refused: %s', (text, message) => {
    expect(usage(() => newOrder(text, FILES)).message).toBe(message);
  });
});

describe('planImageChange', () => {
  it('one change per flag', () => {
    expect(planImageChange({ order: '2' }, FILES)).toMatchObject({ kind: 'order' });
    expect(planImageChange({ removeImage: 'dune.webp' }, FILES)).toMatchObject({ kind: 'remove', position: 3 });
    expect(planImageChange({ replaceImage: ['2', 'new.jpg'] }, FILES)).toMatchObject({
      kind: 'replace',
      position: 2,
      path: 'new.jpg',
      file: FILES[1],
    });
  });

  it('never removes below 2, and says what to do instead', () => {
    const two = FILES.slice(0, 2);
    const refused = usage(() => planImageChange({ removeImage: '2' }, two, 'c-1'));
    expect(refused.message).toBe('The carousel has 2 images, and a carousel keeps at least 2; nothing was removed.');
    expect(refused.hint).toContain('--replace-image 2 FILE');
    expect(refused.hint).toContain('contentlib upload --to c-1 FILE');
    expect(refused.hint).toContain('contentlib rm c-1');
    expect(planImageChange({ removeImage: '3' }, FILES.slice(0, 3))).toMatchObject({ kind: 'remove' });
  });

  it.each([[['2']], [['2', 'a.jpg', 'b.jpg']]])('--replace-image with %j is refused', (values) => {
    expect(usage(() => planImageChange({ replaceImage: values }, FILES)).message).toContain('takes two values');
  });

  it('names the flags given, in a fixed order', () => {
    expect(imageFlagsGiven({ replaceImage: ['1', 'x'], order: '1' })).toEqual(['--order', '--replace-image']);
    expect(imageFlagsGiven({})).toEqual([]);
  });
});

describe('what the change leaves, and in words', () => {
  const three = FILES.slice(0, 3);
  it.each([
    [
      { order: '3,1' },
      ['dune.webp', 'beach.jpg', 'Sunset.png'],
      'the images in the order 3,1,2 (their positions before)',
    ],
    [{ removeImage: '1' }, ['Sunset.png', 'dune.webp'], 'image 1 (beach.jpg) removed; the 2 images after it moved up'],
    [{ removeImage: '2' }, ['beach.jpg', 'dune.webp'], 'image 2 (Sunset.png) removed; the image after it moved up'],
    [{ removeImage: '3' }, ['beach.jpg', 'Sunset.png'], 'image 3 (dune.webp) removed'],
    [
      { replaceImage: ['2', '/tmp/new.jpg'] },
      ['beach.jpg', 'new.jpg', 'dune.webp'],
      'image 2 (Sunset.png) replaced by new.jpg',
    ],
  ])('%j', (flags, after, words) => {
    const change = planImageChange(flags, three);
    const replacement = { id: null, fileKey: null, sortOrder: 0, fileName: 'new.jpg' };
    const result = imagesAfter(change, three, replacement);
    expect(names(result)).toEqual(after);
    expect(result.map((f) => f.sortOrder)).toEqual(after.map((_, i) => i));
    expect(describeChange(change, three, 'new.jpg')).toBe(words);
  });

  it('the order the images have is no change; any other is', () => {
    expect(sameOrder(planImageChange({ order: '1,2,3' }, FILES.slice(0, 3)), FILES.slice(0, 3))).toBe(true);
    expect(sameOrder(planImageChange({ order: '1' }, FILES.slice(0, 3)), FILES.slice(0, 3))).toBe(true);
    expect(sameOrder(planImageChange({ order: '2' }, FILES.slice(0, 3)), FILES.slice(0, 3))).toBe(false);
    // A service's sortOrders with a gap are no "same order": sending it closes the gap.
    const gapped = [file(1, 'a.jpg'), { ...file(2, 'b.jpg'), sortOrder: 5 }];
    expect(sameOrder(planImageChange({ order: '1,2' }, gapped), gapped)).toBe(false);
  });
});
