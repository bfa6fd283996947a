import { describe, expect, it } from 'vitest';
import { sniff, sniffUnsupported } from '../../src/media/sniff.js';

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
    // Judged by structure, not by a list of brands: camera and phone brands are MP4 too.
    ['mp4', bytes([0, 0, 0, 0x1c], 'ftypXAVC', [0, 0, 0, 0])],
    ['mp4', bytes([0, 0, 0, 0x1c], 'ftypCAEP', [0, 0, 0, 0])],
    ['mp4', bytes([0, 0, 0, 0x14], 'ftyp3gp4', [0, 0, 0, 0])],
    ['mp4', bytes([0, 0, 0, 0x14], 'ftypM4A ', [0, 0, 0, 0])],
  ])('recognises %s', (format, head) => expect(sniff(head)).toBe(format));

  it.each([
    ['empty', bytes()],
    ['gif', bytes('GIF89a')],
    ['HEIC', bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0])],
    ['HEIF', bytes([0, 0, 0, 0x18], 'ftypmif1', [0, 0, 0, 0])],
    ['AVIF', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0])],
    ['text', bytes('hello world, not media')],
  ])('rejects %s', (_name, head) => expect(sniff(head)).toBeUndefined());

  it.each([
    ['gif', bytes('GIF89a', [1, 0, 1, 0])],
    ['gif', bytes('GIF87a')],
    ['heic', bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0])],
    ['heic', bytes([0, 0, 0, 0x18], 'ftypmif1', [0, 0, 0, 0])],
    ['avif', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0])],
    ['mkv', bytes([0x1a, 0x45, 0xdf, 0xa3, 0xa3, 0x42, 0x82, 0x88], 'matroska')],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm')],
    ['avi', bytes('RIFF', [1, 2, 3, 4], 'AVI LIST')],
    ['tiff', bytes('II*\0', [8, 0, 0, 0])],
    ['tiff', bytes('MM\0*', [0, 0, 0, 8])],
    ['bmp', bytes('BM', [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0])],
  ])('names unsupported %s bytes', (format, head) => expect(sniffUnsupported(head)).toBe(format));

  it.each([
    ['text starting with BM', bytes('BMW owners club notes')],
    ['an MP4', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0])],
    ['empty', bytes()],
  ])('names nothing for %s', (_name, head) => expect(sniffUnsupported(head)).toBeUndefined());
});
