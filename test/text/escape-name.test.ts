import { describe, expect, it } from 'vitest';
import { escapeName, needsEscape } from '../../src/text/escape-name.js';

describe('escapeName', () => {
  it.each([
    ['clip.mp4', 'clip.mp4'],
    ['été à Zürich 🌞.jpg', 'été à Zürich 🌞.jpg'],
    ['say "hi".jpg', 'say "hi".jpg'],
    ['a\\b.jpg', 'a\\b.jpg'],
    ['two\nlines.mp4', '"two\\nlines.mp4"'],
    ['tab\there.jpg', '"tab\\there.jpg"'],
    ['cr\r.mov', '"cr\\r.mov"'],
    ['bell\u0007.mp4', '"bell\\a.mp4"'],
    ['\u001b[31mred.mp4', '"\\033[31mred.mp4"'],
    ['del\u007f.jpg', '"del\\177.jpg"'],
    ['c1\u0085.jpg', '"c1\\302\\205.jpg"'],
    ['evil\u202egpj.mp4', '"evil\\342\\200\\256gpj.mp4"'],
    ['iso\u2066late.png', '"iso\\342\\201\\246late.png"'],
    ['new\nline "and" quote\\.jpg', '"new\\nline \\"and\\" quote\\\\.jpg"'],
  ])('%j prints as %s', (name, shown) => {
    expect(escapeName(name)).toBe(shown);
  });

  it('never leaves a control character in what it returns', () => {
    for (let code = 0; code < 0x2100; code++) {
      const shown = escapeName(`a${String.fromCharCode(code)}b`);
      // eslint-disable-next-line no-control-regex -- the point of the check
      expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
      expect(needsEscape(shown)).toBe(false);
    }
  });
});
