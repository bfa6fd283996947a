// Every video fixture through the CLI's own check (inspectFile, then the type the plan picks),
// against what ffprobe says about the same file. ffprobe's durations were recorded when the
// fixtures were made (`ffprobe -show_entries format=duration`), so this runs without ffmpeg.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectFile } from '../../src/media/inspect.js';
import { type DurationSource, probeVideoFile } from '../../src/media/probe.js';
import { autoVideoType } from '../../src/upload/plan/plan-checks.js';
import { FIXTURES } from '../support/paths.js';

interface Row {
  file: string;
  /** ffprobe's format duration, in seconds. */
  ffprobe: number;
  /** The type the plan picks, or the reason (MediaError) it refuses the file. */
  verdict: 'shortform' | 'longform' | { refused: string; message: RegExp };
  from?: DurationSource;
}

const ROWS: Row[] = [
  // Regular layouts.
  { file: 'video/clip-2s.mp4', ffprobe: 2, verdict: 'longform', from: 'movie header' },
  { file: 'video/clip-5s.mp4', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  { file: 'video/clip-95s.mp4', ffprobe: 95, verdict: 'longform', from: 'movie header' },
  { file: 'video/clip-5s.mov', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  { file: 'video/moov-at-end.mp4', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  { file: 'video/faststart.mp4', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  { file: 'demo/teaser.mov', ffprobe: 4, verdict: 'shortform', from: 'movie header' },
  // Fragmented: the movie header holds 1 s of 12; a shortform, not a 1 s longform.
  { file: 'video/real-world/first-fragment-in-moov.mp4', ffprobe: 12, verdict: 'shortform', from: 'fragments' },
  { file: 'video/real-world/fragmented-empty-moov.mp4', ffprobe: 5, verdict: 'shortform', from: 'fragments' },
  { file: 'video/real-world/fragmented-95s.mp4', ffprobe: 95, verdict: 'longform', from: 'fragments' },
  { file: 'video/real-world/cmaf.mp4', ffprobe: 5, verdict: 'shortform', from: 'fragments' },
  { file: 'video/real-world/cmaf-mehd.mp4', ffprobe: 5, verdict: 'shortform', from: 'fragment header' },
  { file: 'video/real-world/dash-sidx.mp4', ffprobe: 5, verdict: 'shortform', from: 'fragments' },
  { file: 'video/real-world/smooth-streaming.mp4', ffprobe: 5, verdict: 'shortform', from: 'fragments' },
  { file: 'video/real-world/obs-like.mp4', ffprobe: 5.4, verdict: 'shortform', from: 'fragments' },
  // Camera brands.
  { file: 'video/real-world/brand-xavc.mp4', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  { file: 'video/real-world/brand-caep.mp4', ffprobe: 5, verdict: 'shortform', from: 'movie header' },
  // Audio only: refused, whatever the name.
  {
    file: 'video/real-world/audio-only.mp4',
    ffprobe: 4,
    verdict: { refused: 'no_video_track', message: /has no video track; it looks like audio/ },
  },
  {
    file: 'video/real-world/audio-only.m4a',
    ffprobe: 4,
    verdict: { refused: 'no_video_track', message: /has no video track; it looks like audio/ },
  },
];

describe('video fixtures: verdict, type and duration', () => {
  it.each(ROWS.map((r) => [r.file, r] as const))('%s', async (_name, row) => {
    const file = await inspectFile(join(FIXTURES, row.file), row.file);
    if (typeof row.verdict === 'string') {
      expect(file.problems).toEqual([]);
      expect(file.durationSeconds).toBeDefined();
      expect(Math.abs(file.durationSeconds! - row.ffprobe)).toBeLessThan(0.1);
      expect(autoVideoType(file)).toBe(row.verdict);
      expect((await probeVideoFile(join(FIXTURES, row.file))).durationFrom).toBe(row.from);
    } else {
      expect(file.problems).toHaveLength(1);
      expect(file.problems[0]).toMatchObject({ file: row.file, rule: 'video', actual: row.verdict.refused });
      expect(file.problems[0]!.message).toMatch(row.verdict.message);
      expect(file.durationSeconds).toBeUndefined();
    }
  });
});
