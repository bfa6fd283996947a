// The pure parts of `upload --watch`: which names are files still being written, when a file
// has settled, and when a folder is due (src/upload/watch/watch-names.ts, watch-settle.ts,
// watch-queue.ts). Tables; the clock is a number.
import { describe, expect, it } from 'vitest';
import { isPartialName } from '../../src/upload/watch/watch-names.js';
import { imagesToPlan } from '../../src/upload/watch/watch-pick.js';
import { createWatchQueue } from '../../src/upload/watch/watch-queue.js';
import { readiness } from '../../src/upload/watch/watch-settle.js';

describe('isPartialName', () => {
  it.each([
    ['clip.mp4.part', true],
    ['clip.MP4.PART', true],
    ['photo.jpg.crdownload', true],
    ['clip.mp4.partial', true],
    ['clip.mp4.filepart', true],
    ['clip.mp4.tmp', true],
    ['~$notes.docx', true],
    ['.~lock.cut.odt#', true],
    ['~syncthing~clip.mp4.tmp', true],
    ['.syncthing.clip.mp4.tmp', true],
    ['clip.mp4~', true],
    ['#clip.mp4#', true],
    ['.#clip.mp4', true],
    ['clip.mp4', false],
    ['party.mp4', false],
    ['temp-cut.mov', false],
    ['photo.jpg', false],
    ['~photo.jpg', false],
  ])('%s → %s', (name, partial) => {
    expect(isPartialName(name)).toBe(partial);
  });
});

describe('readiness', () => {
  const settle = 1000;
  const old = { size: 10, mtimeMs: 5000 };
  const ahead = { size: 10, mtimeMs: 20000 };
  it.each([
    // [what, now, stat, quietSince, earlier, ready, recheckIn]
    ['written long ago, folder quiet', 9000, old, 0, undefined, true, undefined],
    ['written 300 ms ago', 5300, old, 0, undefined, false, 700],
    ['old mtime but the folder just changed (cp -p)', 9000, old, 8800, undefined, false, 800],
    ['mtime ahead, unchanged for the settle time', 9000, ahead, 0, { ...ahead, at: 7900 }, true, undefined],
    ['mtime ahead, first seen now', 9000, ahead, 0, undefined, false, 1000],
    ['mtime ahead, seen 400 ms ago', 9000, ahead, 0, { ...ahead, at: 8600 }, false, 600],
  ] as const)('%s', (_what, now, st, quietSince, earlier, ready, recheck) => {
    const r = readiness(now, st, earlier, quietSince, settle);
    expect(r.ready).toBe(ready);
    if (!r.ready) expect(r.recheckInMs).toBe(recheck);
  });

  it('a file that grew since it was seen starts its wait again', () => {
    const r = readiness(9000, { size: 20, mtimeMs: 20000 }, { size: 10, mtimeMs: 20000, at: 7000 }, 0, settle);
    expect(r).toEqual({ ready: false, recheckInMs: 1000, seen: { size: 20, mtimeMs: 20000, at: 9000 } });
  });
});

describe('createWatchQueue', () => {
  it('a folder is due once quiet for the settle time, and each change pushes that back', () => {
    const q = createWatchQueue({ settleMs: 1000, maxWaitMs: 5000, startedAt: 0 });
    q.touch('/w/a/1.jpg', 100);
    q.touch('/w/a/2.jpg', 600);
    // Each changed path is looked at too, in case it is a folder that appeared whole (deep).
    expect(q.takeDue(1100)).toEqual([{ path: '/w/a/1.jpg', deep: true }]);
    expect(q.nextDue()).toBe(1600);
    expect(q.takeDue(1599)).toEqual([]);
    expect(q.takeDue(1600).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: '/w/a', deep: false },
      { path: '/w/a/2.jpg', deep: true },
    ]);
    expect(q.size).toBe(0);
    expect(q.nextDue()).toBe(Infinity);
  });

  it('a folder that never goes quiet is due at the latest maxWait after its first change', () => {
    const q = createWatchQueue({ settleMs: 1000, maxWaitMs: 3000, startedAt: 0 });
    for (let t = 0; t <= 4000; t += 500) q.touch('/w/card/x.mp4', t);
    expect(q.takeDue(3000).map((d) => d.path)).toContain('/w/card');
  });

  it('quietSince is the last change seen in the folder, or when watching began', () => {
    const q = createWatchQueue({ settleMs: 1000, maxWaitMs: 5000, startedAt: 42 });
    expect(q.quietSince('/w/a')).toBe(42);
    q.touch('/w/a/1.jpg', 500);
    expect(q.quietSince('/w/a')).toBe(500);
    // Long past changes are forgotten (memory stays flat), and then say nothing.
    q.takeDue(10_000);
    expect(q.quietSince('/w/a')).toBe(42);
  });

  it('later() keeps the earlier of two times, and deep once asked', () => {
    const q = createWatchQueue({ settleMs: 1000, maxWaitMs: 5000, startedAt: 0 });
    q.later('/w', 500, true);
    q.later('/w', 2000);
    expect(q.nextDue()).toBe(500);
    expect(q.takeDue(500)).toEqual([{ path: '/w', deep: true }]);
  });
});

describe('imagesToPlan (a folder of images with a new one)', () => {
  const img = (n: number, itemId?: string) => ({ path: `/w/${n}.png`, name: `${n}.png`, itemId });
  const names = (paths: string[]) => paths.map((p) => p.slice(3));
  it('without --split: the whole folder, done images included (appended to their carousel)', () => {
    expect(names(imagesToPlan([img(1, 'A'), img(2, 'A'), img(3)], false))).toEqual(['1.png', '2.png', '3.png']);
  });
  it('with --split: the last carousel and the new images, while they fit in it', () => {
    const done = [...[1, 2, 3, 4, 5, 6].map((n) => img(n, 'A')), ...[7, 8, 9, 10, 11, 12].map((n) => img(n, 'B'))];
    expect(names(imagesToPlan([...done, img(13)], true))).toEqual([
      '7.png',
      '8.png',
      '9.png',
      '10.png',
      '11.png',
      '12.png',
      '13.png',
    ]);
  });
  it('with --split: new images that do not fit become carousels of their own', () => {
    const done = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => img(n, 'A'));
    expect(names(imagesToPlan([...done, img(10), img(11)], true))).toEqual(['10.png', '11.png']);
  });
  it('with --split and nothing done yet: the whole folder', () => {
    expect(names(imagesToPlan([img(1), img(2)], true))).toEqual(['1.png', '2.png']);
  });
});
