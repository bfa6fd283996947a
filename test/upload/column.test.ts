// The plan's columns (src/upload/plan/column.ts) and the copies of strings it keeps
// (src/text/own-string.ts): what goes in comes back, across blocks and whatever the characters.
import { describe, expect, it } from 'vitest';
import { float64Column, uint32Column, uint8Column } from '../../src/upload/plan/column.js';
import { ownString } from '../../src/text/own-string.js';

describe('Column', () => {
  it('gives back every entry, at the edges of its blocks and far past the first', () => {
    const sizes = float64Column();
    const folders = uint32Column();
    const formats = uint8Column();
    const n = 3 * 8192 + 5;
    for (let id = 0; id < n; id++) {
      sizes.set(id, 1_700_000_000_000.25 + id);
      folders.set(id, 4_000_000_000 + (id % 7));
      formats.set(id, id % 256);
    }
    for (const id of [0, 1, 8191, 8192, 8193, 16383, 16384, 24575, 24576, n - 1]) {
      expect(sizes.get(id)).toBe(1_700_000_000_000.25 + id);
      expect(folders.get(id)).toBe(4_000_000_000 + (id % 7));
      expect(formats.get(id)).toBe(id % 256);
    }
  });
});

describe('ownString', () => {
  it('is the same string, character for character, lone surrogates and all', () => {
    const path = '/home/me/Été 2026/photos/a\u{1F600}b\uD800c\uDFFFd';
    for (const s of ['', 'x', path, path.slice(3, 30), `${path}/${path}`]) expect(ownString(s)).toBe(s);
  });
});
