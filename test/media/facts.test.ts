// The media facts (src/media/facts.ts) of every fixture against what ffprobe says about the same
// file, run here (ffprobe is part of Debian's ffmpeg; .ci/run installs it). The files are those
// fixtures/media/make.sh makes (codecs, rotations, frame rates, audio layouts, index first or
// last, EXIF orientations) and the older corpus in fixtures/video, fixtures/image, fixtures/demo.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { MediaFactsSchema } from '../../src/api/response-schemas.js';
import { readMediaFactsFile } from '../../src/media/facts.js';
import type { MediaFacts } from '../../src/rules/media-facts.js';
import { skipWithout } from '../support/needs.js';
import { FIXTURES } from '../support/paths.js';

// The wire schema and the parsers' type are one shape: this fails to compile when they drift.
const sameShape: [z.infer<typeof MediaFactsSchema>, MediaFacts] extends [MediaFacts, z.infer<typeof MediaFactsSchema>]
  ? true
  : false = true;
void sameShape;

const HAS_FFPROBE = spawnSync('ffprobe', ['-version'], { stdio: 'ignore' }).status === 0;

interface Probe {
  streams: Array<Record<string, unknown> & { codec_type: string }>;
  format: { bit_rate?: string; duration?: string };
}

function ffprobe(path: string): Probe {
  const out = spawnSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', path], {
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`ffprobe failed on ${path}: ${out.stderr}`);
  return JSON.parse(out.stdout) as Probe;
}

const rate = (r: unknown) => {
  const [n, d] = String(r).split('/').map(Number);
  return d ? n! / d : 0;
};
const bitsOf = (pixFmt: unknown) => (/p10/.test(String(pixFmt)) ? 10 : /p12/.test(String(pixFmt)) ? 12 : 8);

function mediaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'other' ? [] : mediaFiles(path);
    return /\.(mp4|mov|m4a|jpg|png|webp|gif)$/.test(e.name) ? [relative(FIXTURES, path)] : [];
  });
}

// Files the parsers refuse, and why (as the duration check does).
const REFUSED: Record<string, string> = {
  'video/empty.mp4': 'empty',
  'video/truncated.mp4': 'truncated',
  'video/real-world/audio-only.mp4': 'no_video_track',
  'video/real-world/audio-only.m4a': 'no_video_track',
};

const FILES = mediaFiles(FIXTURES).filter((f) => !(f in REFUSED));

describe.skipIf(skipWithout('ffprobe', HAS_FFPROBE, 'apt-get install ffmpeg'))('media facts against ffprobe', () => {
  it('covers at least 20 generated files and the older corpus', () => {
    expect(FILES.filter((f) => f.startsWith('media/')).length).toBeGreaterThanOrEqual(20);
    expect(FILES.filter((f) => f.startsWith('video/real-world/')).length).toBeGreaterThanOrEqual(8);
  });

  it.each(FILES)('%s', async (file) => {
    const path = join(FIXTURES, file);
    const facts = await readMediaFactsFile(path);
    const probe = ffprobe(path);
    const video = probe.streams.find((s) => s.codec_type === 'video');
    expect(video, 'ffprobe sees a picture').toBeDefined();
    expect(facts.width).toBe(video!.width);
    expect(facts.height).toBe(video!.height);
    if (facts.kind === 'image') {
      const named = /exif-(\d)/.exec(file);
      expect(facts.exifOrientation).toBe(named ? Number(named[1]) : 1);
      // png-named.jpg holds PNG bytes: the format is the bytes', not the name's.
      const format = file.includes('png') ? 'png' : /\.jpe?g$/.test(file) ? 'jpeg' : /\.(\w+)$/.exec(file)![1];
      expect(facts.imageFormat).toBe(format);
      return;
    }
    expect(facts.videoCodec).toBe(video!.codec_name);
    if (video!.profile !== undefined) expect(facts.videoProfile).toBe(video!.profile);
    if (facts.bitDepth !== undefined) expect(facts.bitDepth).toBe(bitsOf(video!.pix_fmt));
    const sideData = (video!.side_data_list as Array<{ rotation?: number }> | undefined) ?? [];
    const rotation = sideData.find((d) => d.rotation !== undefined)?.rotation ?? 0;
    expect(facts.rotation).toBe((rotation + 360) % 360);
    // ffprobe's display aspect ratio is of the picture before it is turned.
    const [w, h] = facts.displayAspectRatio.split(':');
    const unturned = facts.rotation! % 180 ? `${h}:${w}` : `${w}:${h}`;
    if (video!.display_aspect_ratio !== undefined) expect(unturned).toBe(video!.display_aspect_ratio);
    expect(facts.frameRate, 'average frame rate').toBeCloseTo(rate(video!.avg_frame_rate), 1);
    if (!facts.fragmented) expect(facts.variableFrameRate).toBe(file.includes('vfr'));
    else expect(facts.variableFrameRate).toBeUndefined();
    expect(Math.abs(facts.bitrate! / Number(probe.format.bit_rate) - 1)).toBeLessThan(0.02);
    const audio = probe.streams.find((s) => s.codec_type === 'audio');
    if (!audio) expect(facts.audio).toBeNull();
    else {
      expect(facts.audio).toMatchObject({ codec: audio.codec_name, sampleRate: Number(audio.sample_rate) });
      // MP3 says its channels only in its frames (mdat), which are never read: the sample entry's
      // count stands, and ffmpeg writes 2 there for a mono MP3. Every other codec's config says.
      if (audio.codec_name !== 'mp3') expect(facts.audio!.channels).toBe(audio.channels);
      if (audio.codec_name === 'aac') expect(facts.audio!.profile).toBe(audio.profile);
    }
    // Fast start, judged from the raw bytes: the first moov box before the first mdat.
    const bytes = readFileSync(path);
    expect(facts.fastStart).toBe(bytes.indexOf('moov') < bytes.indexOf('mdat'));
  });
});

describe('media facts: what the parsers read without ffprobe', () => {
  it.each([
    ['media/portrait-1080x1920.mp4', { displayAspectRatio: '9:16', orientation: 'portrait', fastStart: true }],
    ['media/landscape-1920x1080.mp4', { displayAspectRatio: '16:9', orientation: 'landscape' }],
    ['media/rotated-90.mp4', { width: 128, height: 72, displayWidth: 72, displayHeight: 128, orientation: 'portrait' }],
    [
      'media/h264-moov-at-end.mp4',
      { fastStart: false, audio: { codec: 'aac', profile: 'LC', channels: 2, sampleRate: 48000 } },
    ],
    [
      'media/hevc-10bit.mp4',
      { videoCodec: 'hevc', videoCodecTag: 'hvc1', videoProfile: 'Main 10', bitDepth: 10, audio: null },
    ],
    ['media/h264-ac3-5.1.mp4', { audio: { codec: 'ac3', channels: 6, sampleRate: 48000 } }],
    ['media/anamorphic-pasp.mp4', { width: 128, displayWidth: 171, displayHeight: 72 }],
    [
      'media/photo-exif-6.jpg',
      { width: 120, height: 80, displayWidth: 80, displayHeight: 120, orientation: 'portrait' },
    ],
    ['media/photo-alpha.webp', { width: 120, height: 80, imageFormat: 'webp' }],
  ] as const)('%s', async (file, expected) => {
    expect(await readMediaFactsFile(join(FIXTURES, file))).toMatchObject(expected);
  });

  it.each(Object.entries(REFUSED))('%s is refused: %s', async (file, reason) => {
    await expect(readMediaFactsFile(join(FIXTURES, file))).rejects.toMatchObject({ reason });
  });

  it('refuses text, and an image whose header is cut', async () => {
    await expect(readMediaFactsFile(join(FIXTURES, 'other/notes.txt'))).rejects.toMatchObject({ reason: 'not_mp4' });
    const { bufferSource } = await import('../../src/media/byte-source.js');
    const { readMediaFacts } = await import('../../src/media/facts.js');
    const png = readFileSync(join(FIXTURES, 'media/photo.png')).subarray(0, 12);
    await expect(readMediaFacts(bufferSource(png))).rejects.toMatchObject({ reason: 'malformed' });
  });
});
