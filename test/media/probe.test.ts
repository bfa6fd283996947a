import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ByteSource, bufferSource, withFileSource } from '../../src/media/byte-source.js';
import { MediaError } from '../../src/media/errors.js';
import { probeVideo } from '../../src/media/probe.js';
import { box, ftyp, fullBox, mdat, mvhd0, track, trak, u32, u64 } from '../support/mp4-boxes.js';
import { damagedCopies } from '../support/damaged.js';

// ---- fragment builders ------------------------------------------------------------------

const trex = (trackId: number, duration: number) =>
  fullBox('trex', 0, 0, u32(trackId), u32(1), u32(duration), u32(0), u32(0));
const mehd = (units: number) => fullBox('mehd', 0, 0, u32(units));
const tfdt = (time: number) => fullBox('tfdt', 1, 0, u64(BigInt(time)));
/** tfhd with a default sample duration (flag 0x08) when `duration` is given. */
const tfhd = (trackId: number, duration?: number) =>
  duration === undefined
    ? fullBox('tfhd', 0, 0x020000, u32(trackId))
    : fullBox('tfhd', 0, 0x020008, u32(trackId), u32(duration));
/** trun with per-sample durations (and sizes) when `durations` is an array, else `count` defaulted samples. */
const trun = (samples: number[] | number) =>
  typeof samples === 'number'
    ? fullBox('trun', 0, 0x001, u32(samples), u32(0))
    : fullBox('trun', 0, 0x301, u32(samples.length), u32(0), ...samples.flatMap((d) => [u32(d), u32(100)]));
const traf = (...children: Buffer[]) => box('traf', ...children);
const moof = (...trafs: Buffer[]) => box('moof', fullBox('mfhd', 0, 0, u32(1)), ...trafs);
/** A sidx of media references, each `durations[i]` long in `timescale`. */
const sidx = (timescale: number, durations: number[]) =>
  fullBox(
    'sidx',
    0,
    0,
    u32(1),
    u32(timescale),
    u32(0),
    u32(0),
    u32(durations.length),
    ...durations.flatMap((d) => [u32(1000), u32(d), u32(0x90000000)]),
  );

const probe = (...parts: Buffer[]) => probeVideo(bufferSource(Buffer.concat(parts)));

async function failure(...parts: Buffer[]): Promise<MediaError> {
  const err: unknown = await probe(...parts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaError);
  return err as MediaError;
}

// ---- tests ------------------------------------------------------------------------------

describe('probeVideo: durations from every layout', () => {
  const empty = (...extra: Buffer[]) => box('moov', mvhd0(1000, 0), track('vide', 1, 90_000), ...extra);

  it.each([
    ['a regular movie header', [ftyp, box('moov', mvhd0(1000, 5500), trak), mdat(10)], 5.5, 'movie header'],
    [
      'mehd in an empty moov',
      [ftyp, empty(box('mvex', mehd(12_000), trex(1, 3000))), moof(traf(tfhd(1), trun(30))), mdat(5)],
      12,
      'fragment header',
    ],
    [
      'trun entries with explicit durations',
      [ftyp, empty(box('mvex', trex(1, 0))), moof(traf(tfhd(1), trun([90_000, 90_000, 45_000]))), mdat(5)],
      2.5,
      'fragments',
    ],
    [
      "tfhd's default duration",
      [ftyp, empty(box('mvex', trex(1, 1))), moof(traf(tfhd(1, 3600), trun(50))), mdat(5)],
      2,
      'fragments',
    ],
    [
      "trex's default duration when tfhd has none",
      [ftyp, empty(box('mvex', trex(1, 3000))), moof(traf(tfhd(1), trun(60))), mdat(5), moof(traf(tfhd(1), trun(30)))],
      3,
      'fragments',
    ],
    [
      'several truns in one traf and several fragments',
      [
        ftyp,
        empty(box('mvex', trex(1, 3000))),
        moof(traf(tfhd(1), trun(30), trun([9000]))),
        mdat(5),
        moof(traf(tfhd(1), trun(60))),
        mdat(5),
      ],
      3.1,
      'fragments',
    ],
    [
      'tfdt: a segment that starts late on its timeline counts from its start',
      [
        ftyp,
        empty(box('mvex', trex(1, 3000))),
        moof(traf(tfhd(1), tfdt(900_000), trun(30))),
        mdat(5),
        moof(traf(tfhd(1), tfdt(990_000), trun(30))),
      ],
      2,
      'fragments',
    ],
    [
      'tfdt: a gap between fragments is part of the length',
      [
        ftyp,
        empty(box('mvex', trex(1, 3000))),
        moof(traf(tfhd(1), tfdt(0), trun(30))),
        moof(traf(tfhd(1), tfdt(450_000), trun(30))),
      ],
      6,
      'fragments',
    ],
    [
      'the longest track wins',
      [
        ftyp,
        box('moov', mvhd0(1000, 0), track('vide', 1, 90_000), track('soun', 2, 48_000), box('mvex', trex(1, 3000))),
        moof(traf(tfhd(1), trun(30)), traf(tfhd(2, 1024), trun(141))),
      ],
      (141 * 1024) / 48_000,
      'fragments',
    ],
    [
      'a sidx when the fragments give nothing',
      [ftyp, empty(box('mvex', trex(1, 0))), sidx(1000, [2000, 2000, 1500]), moof(traf(tfhd(1), trun(30)))],
      5.5,
      'segment index',
    ],
  ])('%s', async (_name, parts, seconds, from) => {
    const result = await probe(...parts);
    expect(result.durationSeconds).toBeCloseTo(seconds, 6);
    expect(result.durationFrom).toBe(from);
    expect(result.hasVideoTrack).toBe(true);
  });

  it('takes the whole length when the movie header covers only the first fragment', async () => {
    // What ffmpeg -movflags frag_keyframe writes: mvhd and mdhd say 1 s (the samples inside moov),
    // the fragments that follow carry the rest, starting at tfdt = 1 s.
    const result = await probe(
      ftyp,
      box('moov', mvhd0(1000, 1000), track('vide', 1, 12_800, 12_800), box('mvex', trex(1, 512))),
      mdat(10),
      moof(traf(tfhd(1), tfdt(12_800), trun(25))),
      mdat(10),
      moof(traf(tfhd(1), tfdt(25_600), trun(25))),
      mdat(10),
    );
    expect(result).toMatchObject({ durationSeconds: 3, durationFrom: 'fragments', fragmented: true });
  });

  it('the same without tfdt: fragments follow the samples in the movie header', async () => {
    const result = await probe(
      ftyp,
      box('moov', mvhd0(1000, 1000), track('vide', 1, 12_800, 12_800), box('mvex', trex(1, 512))),
      moof(traf(tfhd(1), trun(25))),
      moof(traf(tfhd(1), trun(25))),
    );
    expect(result.durationSeconds).toBe(3);
  });

  it('keeps the movie header when it is longer than the fragments say', async () => {
    const result = await probe(
      ftyp,
      box('moov', mvhd0(1000, 8000), track('vide', 1, 1000), box('mvex', trex(1, 40))),
      moof(traf(tfhd(1), trun(25))),
    );
    expect(result).toMatchObject({ durationSeconds: 8, durationFrom: 'movie header' });
  });

  it('reports the brand and tracks it saw', async () => {
    const xavc = box('ftyp', Buffer.from('XAVC'), u32(0), Buffer.from('XAVCmp42iso2'));
    expect(await probe(xavc, box('moov', mvhd0(1000, 4000), trak, track('soun', 2)), mdat(4))).toEqual({
      durationSeconds: 4,
      durationFrom: 'movie header',
      hasVideoTrack: true,
      hasAudioTrack: true,
      fragmented: false,
      majorBrand: 'XAVC',
    });
  });
});

describe('probeVideo: what is refused', () => {
  it.each([
    [
      'audio only',
      [ftyp, box('moov', mvhd0(1000, 4000), track('soun')), mdat(4)],
      'no_video_track',
      /looks like audio/,
    ],
    ['no tracks at all', [ftyp, box('moov', mvhd0(1000, 4000)), mdat(4)], 'no_video_track', /no video track/],
    ['a subtitle track only', [ftyp, box('moov', mvhd0(1000, 4000), track('text'))], 'no_video_track', /'text'/],
    [
      'an empty moov with no fragments',
      [ftyp, box('moov', mvhd0(1000, 0), trak, box('mvex', trex(1, 3000)))],
      'no_duration',
      /does not say how long/,
    ],
    ['a traf without tfhd', [ftyp, box('moov', mvhd0(1000, 0), trak), moof(traf(trun(3)))], 'malformed', /no tfhd/],
    [
      'a trun that claims more samples than it holds',
      [ftyp, box('moov', mvhd0(1000, 0), trak), moof(traf(tfhd(1), fullBox('trun', 0, 0x100, u32(1000), u32(5))))],
      'malformed',
      /trun box lists 1000 samples/,
    ],
    [
      'a tfhd too short for its flags',
      [ftyp, box('moov', mvhd0(1000, 0), trak), moof(traf(fullBox('tfhd', 0, 0x8, u32(1)), trun(3)))],
      'malformed',
      /shorter than its fields/,
    ],
    [
      'a fragment cut short',
      [ftyp, box('moov', mvhd0(1000, 0), trak), moof(traf(tfhd(1), trun(3))).subarray(0, 30)],
      'truncated',
      /cut short/,
    ],
    [
      'a CMAF segment without its init (no moov)',
      [box('styp', Buffer.from('msdh')), moof(traf(tfhd(1)))],
      'no_moov',
      /moov/,
    ],
  ])('%s', async (_name, parts, reason, message) => {
    const err = await failure(...parts);
    expect(err.reason).toBe(reason);
    expect(err.message).toMatch(message);
  });

  it('checks the video track after the movie header and before the duration', async () => {
    // A moov without mvhd is 'no_mvhd' even without tracks; a movie without video and without a
    // duration is 'no_video_track' (the more useful thing to say).
    expect((await failure(ftyp, box('moov', track('soun')))).reason).toBe('no_mvhd');
    expect((await failure(ftyp, box('moov', mvhd0(1000, 0), track('soun')))).reason).toBe('no_video_track');
  });
});

describe('probeVideo: damaged fragmented files', () => {
  it('never hangs or throws anything but MediaError', async () => {
    const valid = Buffer.concat([
      ftyp,
      box('moov', mvhd0(1000, 0), track('vide', 1, 90_000), box('mvex', mehd(0), trex(1, 3000))),
      sidx(1000, [2000]),
      moof(traf(tfhd(1, 3000), tfdt(0), trun([3000, 3000]), trun(4))),
      mdat(8),
    ]);
    const damaged = damagedCopies(valid);
    await fc.assert(
      fc.asyncProperty(damaged, async (bytes) => {
        const outcome = await probeVideo(bufferSource(bytes)).then(
          (probe) => probe.durationSeconds,
          (err: unknown) => err,
        );
        if (typeof outcome === 'number') expect(outcome).toBeGreaterThan(0);
        else expect(outcome).toBeInstanceOf(MediaError);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

describe('probeVideo: reads', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentlib-probe-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Counts the reads and bytes a probe makes. */
  function counted(source: ByteSource) {
    const stats = { reads: 0, bytes: 0 };
    const wrapped: ByteSource = {
      size: source.size,
      async read(offset, length) {
        const bytes = await source.read(offset, length);
        stats.reads++;
        stats.bytes += bytes.length;
        return bytes;
      },
    };
    return { wrapped, stats };
  }

  it('measures a sparse 1 GB fragmented file with about one small read per fragment', async () => {
    // 512 fragments of 2 MiB: moof + the header of a sparse mdat, written at their offsets.
    const path = join(dir, 'big-fragmented.mp4');
    const fragments = 512;
    const spacing = 2 * 1024 * 1024;
    const handle = await open(path, 'w');
    const head = Buffer.concat([
      ftyp,
      box('moov', mvhd0(1000, 0), track('vide', 1, 90_000), box('mvex', trex(1, 3000))),
    ]);
    await handle.write(head, 0, head.length, 0);
    for (let i = 0; i < fragments; i++) {
      const at = head.length + i * spacing;
      const frag = moof(traf(tfhd(1), tfdt(i * 180_000), trun(60)));
      const mdatHead = Buffer.concat([u32(spacing - frag.length), Buffer.from('mdat')]);
      await handle.write(Buffer.concat([frag, mdatHead]), 0, frag.length + 8, at);
    }
    await handle.truncate(head.length + fragments * spacing);
    await handle.close();

    const result = await withFileSource(path, async (source) => {
      expect(source.size).toBeGreaterThan(2 ** 30);
      const { wrapped, stats } = counted(source);
      const probed = await probeVideo(wrapped);
      return { probed, stats };
    });
    expect(result.probed).toMatchObject({ durationSeconds: 1024, durationFrom: 'fragments', fragmented: true });
    // One read-ahead window per fragment, and a few for the header.
    expect(result.stats.reads).toBeLessThanOrEqual(fragments + 10);
    expect(result.stats.bytes).toBeLessThan((fragments + 10) * 16 * 1024);
  });

  it('reads a regular 1 GB file (moov at the end) in a handful of reads', async () => {
    const path = join(dir, 'big-regular.mp4');
    const size = 2 ** 30;
    const moov = box('moov', mvhd0(1000, 61_000), trak);
    const handle = await open(path, 'w');
    const mdatSize = size - ftyp.length - moov.length;
    const mdatHead = Buffer.concat([u32(1), Buffer.from('mdat'), u64(BigInt(mdatSize))]);
    await handle.write(Buffer.concat([ftyp, mdatHead]), 0, ftyp.length + 16, 0);
    await handle.write(moov, 0, moov.length, size - moov.length);
    await handle.close();
    const { probed, stats } = await withFileSource(path, async (source) => {
      const { wrapped, stats } = counted(source);
      return { probed: await probeVideo(wrapped), stats };
    });
    expect(probed.durationSeconds).toBe(61);
    expect(stats.reads).toBeLessThanOrEqual(4);
  });
});
