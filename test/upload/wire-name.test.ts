import { describe, expect, it } from 'vitest';
import { CONTROL_CHARACTERS } from '../../src/api/schemas.js';
import { wireFileName } from '../../src/upload/transfer.js';

describe('wireFileName: the name the service is told', () => {
  it.each([
    ['clip.mp4', 'clip.mp4'],
    ['new\nline.mp4', 'new_line.mp4'],
    ['tab\there.mp4', 'tab_here.mp4'],
    ['nul\u0000.mp4', 'nul_.mp4'],
    ['del\u007f.jpg', 'del_.jpg'],
    ['evil\u202egpj.mp4', 'evil_gpj.mp4'],
    ['iso\u2066late\u2069.png', 'iso_late_.png'],
    ['été 🎬.mov', 'été 🎬.mov'],
  ])('%j → %j', (name, sent) => {
    expect(wireFileName(name)).toBe(sent);
    expect(CONTROL_CHARACTERS.test(wireFileName(name))).toBe(false);
  });
});
