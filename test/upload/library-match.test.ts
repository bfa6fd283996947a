// Is a planned item already in the library? One row per case over the pure libraryVerdict.
import { describe, expect, it } from 'vitest';
import type { CheckMatch } from '../../src/api/schemas.js';
import { type MatchedItem, libraryVerdict } from '../../src/upload/send/library-match.js';

const video = (itemId: string, itemType: 'shortform' | 'longform' = 'shortform'): CheckMatch => ({
  itemId,
  itemType,
  itemFileCount: 1,
  role: 'file',
});
const image = (itemId: string, itemFileCount: number): CheckMatch => ({
  itemId,
  itemType: 'carousel',
  itemFileCount,
  role: 'image',
});
const thumbnail = (itemId: string): CheckMatch => ({
  itemId,
  itemType: 'shortform',
  itemFileCount: 1,
  role: 'thumbnail',
});

describe('libraryVerdict', () => {
  it.each<[string, MatchedItem, ReturnType<typeof libraryVerdict>]>([
    ['a video nobody has', { type: 'shortform', matches: [[]] }, { kind: 'new' }],
    ['a video not asked about', { type: 'shortform', matches: [undefined] }, { kind: 'new' }],
    ['a video held as the same type', { type: 'shortform', matches: [[video('A')]] }, { kind: 'there', itemId: 'A' }],
    [
      'held twice: the oldest (listed first)',
      { type: 'longform', matches: [[video('OLD', 'longform'), video('NEW', 'longform')]] },
      { kind: 'there', itemId: 'OLD' },
    ],
    ['held as another type only', { type: 'shortform', matches: [[video('L', 'longform')]] }, { kind: 'new' }],
    ['held only as a thumbnail', { type: 'shortform', matches: [[thumbnail('T')]] }, { kind: 'new' }],
    [
      'a folder all in one carousel of the same images',
      { type: 'carousel', matches: [[image('C', 3)], [image('C', 3)], [image('C', 3)]] },
      { kind: 'there', itemId: 'C' },
    ],
    [
      'a folder all in a carousel that has more',
      { type: 'carousel', matches: [[image('C', 5)], [image('C', 5)]] },
      { kind: 'there', itemId: 'C' },
    ],
    [
      'a folder that gained one photo',
      { type: 'carousel', matches: [[image('C', 2)], [], [image('C', 2)]] },
      { kind: 'append', itemId: 'C', present: [true, false, true] },
    ],
    [
      'sharing one image with a carousel that has others: a new carousel',
      { type: 'carousel', matches: [[image('C', 4)], [], []] },
      { kind: 'new' },
    ],
    [
      'images spread over two carousels, neither whole: new',
      { type: 'carousel', matches: [[image('A', 3)], [image('B', 3)], []] },
      { kind: 'new' },
    ],
    [
      'two carousels within the folder: it grows the larger',
      { type: 'carousel', matches: [[image('A', 1)], [image('B', 2)], [image('B', 2)], []] },
      { kind: 'append', itemId: 'B', present: [false, true, true, false] },
    ],
    [
      'an image held twice by one carousel counts once',
      { type: 'carousel', matches: [[image('C', 3), { ...image('C', 3), sortOrder: 2 }], []] },
      { kind: 'new' },
    ],
    ['no carousel holds any image', { type: 'carousel', matches: [[], [video('V')]] }, { kind: 'new' }],
    [
      'a target (--to, or a carousel an earlier run started): its images are skipped, the rest appended',
      { type: 'carousel', matches: [[image('T', 1)], [image('X', 2)], []], target: 'T' },
      { kind: 'append', itemId: 'T', present: [true, false, false] },
    ],
    [
      'a target holding every image: there',
      { type: 'carousel', matches: [[image('T', 2)], [image('T', 2)]], target: 'T' },
      { kind: 'there', itemId: 'T' },
    ],
  ])('%s', (_case, item, expected) => {
    expect(libraryVerdict(item)).toEqual(expected);
  });
});
