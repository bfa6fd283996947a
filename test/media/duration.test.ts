import { mkdtemp, rm, writeFile, truncate, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVideoDuration } from '../../src/media/duration.js';
import { MediaError } from '../../src/media/errors.js';
import { box, ftyp, largeBox, mdat, mvhd0, mvhd1, trak, u32, u64 } from '../support/mp4-boxes.js';
import { FIXTURES } from '../support/paths.js';
import { damagedCopies } from '../support/damaged.js';

let dir: string;
let n = 0;
async function file(...parts: Buffer[]): Promise<string> {
  const path = join(dir, `v${n++}.mp4`);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

async function reason(path: string): Promise<string> {
  const err: unknown = await readVideoDuration(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaError);
  expect((err as MediaError).message.length).toBeGreaterThan(20);
  return (err as MediaError).reason;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-duration-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readVideoDuration', () => {
  it('reads mvhd version 0 with moov before mdat', async () => {
    const path = await file(ftyp, box('moov', mvhd0(1000, 5500), trak), mdat(100));
    expect(await readVideoDuration(path)).toBe(5.5);
  });

  it('reads mvhd version 1 with a 64-bit duration', async () => {
    const path = await file(ftyp, box('moov', mvhd1(90000, 90000n * 4000n), trak), mdat(10));
    expect(await readVideoDuration(path)).toBe(4000);
  });

  it('finds moov after mdat', async () => {
    const path = await file(ftyp, box('free'), mdat(5000), box('moov', trak, mvhd0(600, 1800)));
    expect(await readVideoDuration(path)).toBe(3);
  });

  it('understands 64-bit box sizes (size == 1) for mdat and moov', async () => {
    const path = await file(ftyp, largeBox('mdat', Buffer.alloc(300)), largeBox('moov', mvhd0(1, 42), trak));
    expect(await readVideoDuration(path)).toBe(42);
  });

  it('understands a last box that runs to the end of the file (size == 0)', async () => {
    const open = Buffer.concat([u32(0), Buffer.from('mdat'), Buffer.alloc(700)]);
    const path = await file(ftyp, box('moov', mvhd0(25, 250), trak), open);
    expect(await readVideoDuration(path)).toBe(10);
  });

  it('skips a huge sparse mdat without reading it', async () => {
    // 2 GB of mdat declared with a 64-bit size; the file is sparse, so this costs no disk.
    const head = Buffer.concat([
      ftyp,
      box('moov', mvhd0(1000, 61_000), trak),
      u32(1),
      Buffer.from('mdat'),
      u64(2n ** 31n),
    ]);
    const path = await file(head);
    await truncate(path, head.length - 16 + 2 ** 31);
    expect(await readVideoDuration(path)).toBe(61);
  });

  it('accepts a QuickTime file without ftyp', async () => {
    const path = await file(box('wide'), mdat(20), box('moov', mvhd0(600, 6000), trak));
    expect(await readVideoDuration(path)).toBe(10);
  });

  it('uses mvex/mehd for a fragmented file whose mvhd duration is 0', async () => {
    const mehd = box('mehd', Buffer.from([0, 0, 0, 0]), u32(12_000));
    const path = await file(ftyp, box('moov', mvhd0(1000, 0), trak, box('mvex', mehd)), box('moof'), mdat(5));
    expect(await readVideoDuration(path)).toBe(12);
  });

  it.each([
    ['an empty file', () => file(), 'empty'],
    ['a file without moov', () => file(ftyp, mdat(50)), 'no_moov'],
    ['a moov without mvhd', () => file(ftyp, box('moov', trak), mdat(5)), 'no_mvhd'],
    ['a zero timescale', () => file(ftyp, box('moov', mvhd0(0, 100), trak)), 'no_duration'],
    ['an unknown duration (all ones)', () => file(ftyp, box('moov', mvhd0(1000, 0xffffffff), trak)), 'no_duration'],
    ['a zero duration without mehd', () => file(ftyp, box('moov', mvhd0(1000, 0), trak)), 'no_duration'],
    [
      'an mvhd of version 7',
      () => file(ftyp, box('moov', box('mvhd', Buffer.from([7, 0, 0, 0]), Buffer.alloc(96)))),
      'malformed',
    ],
    [
      'an mvhd too short for version 1',
      () => file(ftyp, box('moov', box('mvhd', Buffer.from([1, 0, 0, 0]), Buffer.alloc(10)))),
      'truncated',
    ],
    ['a box smaller than its header', () => file(ftyp, u32(4), Buffer.from('moov'), Buffer.alloc(20)), 'malformed'],
    [
      'a 64-bit size smaller than 16',
      () => file(ftyp, u32(1), Buffer.from('mdat'), u64(8n), Buffer.alloc(20)),
      'malformed',
    ],
    ['a 64-bit size beyond 2^53', () => file(ftyp, u32(1), Buffer.from('mdat'), u64(2n ** 60n)), 'malformed'],
    ['text', () => file(Buffer.from('hello, this is not a video at all')), 'not_mp4'],
    ['a PNG', () => file(Buffer.from('\x89PNG\r\n\x1a\n\0\0\0\rIHDR', 'latin1')), 'not_mp4'],
    [
      'garbage after the first box',
      () => file(ftyp, Buffer.from([0, 0, 0, 16, 1, 2, 3, 4]), Buffer.alloc(8)),
      'malformed',
    ],
  ])('rejects %s', async (_name, make, expected) => {
    expect(await reason(await make())).toBe(expected);
  });

  it('rejects a file cut inside mdat even when moov came first (faststart)', async () => {
    const whole = Buffer.concat([ftyp, box('moov', mvhd0(1000, 5000)), mdat(1000)]);
    expect(await reason(await file(whole.subarray(0, whole.length - 300)))).toBe('truncated');
  });

  it('rejects a file cut inside mdat when moov was to come after it', async () => {
    const whole = Buffer.concat([ftyp, mdat(1000), box('moov', mvhd0(1000, 5000))]);
    expect(await reason(await file(whole.subarray(0, 500)))).toBe('truncated');
  });

  it('rejects a file cut inside a box header', async () => {
    const whole = Buffer.concat([ftyp, mdat(10), box('moov', mvhd0(1000, 5000))]);
    expect(await reason(await file(whole.subarray(0, ftyp.length + 18 + 3)))).toBe('truncated');
  });

  it('rejects a moov child that overruns moov', async () => {
    const moov = Buffer.concat([u32(8 + 8), Buffer.from('moov'), u32(200), Buffer.from('mvhd')]);
    expect(await reason(await file(ftyp, moov, mdat(300)))).toBe('truncated');
  });

  it('ends on thousands of tiny boxes without moov', async () => {
    const many = Buffer.concat(Array.from({ length: 5000 }, () => box('free')));
    expect(await reason(await file(ftyp, many))).toBe('no_moov');
  });

  it.each([
    ['video/clip-2s.mp4', 2],
    ['video/clip-5s.mov', 5],
    ['video/clip-95s.mp4', 95],
    ['video/clip-95s.mov', 95],
    ['video/moov-at-end.mp4', 5],
    ['video/faststart.mp4', 5],
    ['demo/intro.mp4', 6],
    ['demo/teaser.mov', 4],
  ])('reads the fixture %s (%d s)', async (name, seconds) => {
    expect(await readVideoDuration(join(FIXTURES, name))).toBe(seconds);
  });

  it.each([
    ['video/truncated.mp4', 'truncated'],
    ['video/empty.mp4', 'empty'],
    ['image/photo.png', 'not_mp4'],
    ['other/notes.txt', 'not_mp4'],
  ])('rejects the fixture %s as %s', async (name, expected) => {
    expect(await reason(join(FIXTURES, name))).toBe(expected);
  });

  it('reports a missing file and a directory as unreadable', async () => {
    expect(await reason(join(dir, 'nope.mp4'))).toBe('unreadable');
    expect(await reason(dir)).toBe('unreadable');
  });

  it('reports a file without read permission as unreadable', async () => {
    const path = await file(ftyp, box('moov', mvhd0(1, 5)));
    await chmod(path, 0o000);
    // Root reads any file: as root (CI's containers), this process looks at it as nobody.
    const asNobody = process.getuid?.() === 0;
    if (asNobody) process.seteuid!(65534);
    try {
      expect(await reason(path)).toBe('unreadable');
    } finally {
      if (asNobody) process.seteuid!(0);
    }
  });

  it('never hangs or throws anything but MediaError on damaged input', async () => {
    const valid = Buffer.concat([ftyp, box('moov', mvhd1(1000, 5000n), trak), mdat(40)]);
    // Random bytes, and a valid file with a few bytes overwritten or cut short.
    const damaged = damagedCopies(valid);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
          damaged,
        ),
        async (bytes) => {
          const path = await file(bytes);
          const outcome = await readVideoDuration(path).then(
            (seconds) => seconds,
            (err: unknown) => err,
          );
          if (typeof outcome === 'number') expect(outcome).toBeGreaterThan(0);
          else expect(outcome).toBeInstanceOf(MediaError);
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });
});
