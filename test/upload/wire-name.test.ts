import { describe, expect, it } from 'vitest';
import { CONTROL_CHARACTERS } from '../../src/api/schemas.js';
import { wireFile } from '../../src/upload/send/transfer.js';

const file = (name: string) => ({ path: `/media/${name}`, name, size: 1234, mtimeMs: 0, contentType: 'video/mp4' });

describe('wireFile: the file as presign and complete describe it', () => {
  it.each([
    ['clip.mp4', 'clip.mp4'],
    ['new\nline.mp4', 'new_line.mp4'],
    ['tab\there.mp4', 'tab_here.mp4'],
    ['nul\u0000.mp4', 'nul_.mp4'],
    ['del\u007f.jpg', 'del_.jpg'],
    ['evil\u202egpj.mp4', 'evil_gpj.mp4'],
    ['iso\u2066late\u2069.png', 'iso_late_.png'],
    ['été 🎬.mov', 'été 🎬.mov'],
  ])('name %j → %j', (name, sent) => {
    expect(wireFile(file(name)).fileName).toBe(sent);
    expect(CONTROL_CHARACTERS.test(wireFile(file(name)).fileName)).toBe(false);
  });

  it('media carry their type; a thumbnail none', () => {
    expect(wireFile(file('a\tb.mp4'), 'shortform')).toEqual({
      fileName: 'a_b.mp4',
      contentType: 'video/mp4',
      fileSize: 1234,
      type: 'shortform',
    });
    expect(wireFile(file('a.mp4'))).toEqual({ fileName: 'a.mp4', contentType: 'video/mp4', fileSize: 1234 });
  });
});
