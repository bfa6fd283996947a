import { describe, expect, it } from 'vitest';
import { sniff } from '../../src/media/sniff.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniff', () => {
  it.each([
    ['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], '\0\x10JFIF')],
    ['png', bytes('\x89PNG\r\n\x1a\n', '\0\0\0\rIHDR')],
    ['webp', bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 ')],
    ['mp4', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0])],
    ['mp4', bytes([0, 0, 0, 0x1c], 'ftypmp42', [0, 0, 0, 0])],
    ['mov', bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 2, 0])],
    ['mov', bytes([0, 0, 0, 0x08], 'wide', [0, 0, 0, 8], 'mdat')],
  ])('recognises %s', (format, head) => expect(sniff(head)).toBe(format));

  it.each([
    ['empty', bytes()],
    ['gif', bytes('GIF89a')],
    ['3gp brand', bytes([0, 0, 0, 0x14], 'ftyp3gp4', [0, 0, 0, 0])],
    ['text', bytes('hello world, not media')],
  ])('rejects %s', (_name, head) => expect(sniff(head)).toBeUndefined());
});
