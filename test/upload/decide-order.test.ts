// decide's carousels in natural name order, paths breaking a tie (the same name in two
// folders with --carousel), however many images: a folder's few are sorted in place by
// insertion and a large group by Array#sort (src/upload/plan/decide.ts, sortByName); both must
// give the same order.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/upload/plan/decide.js';
import { FileTable } from '../../src/upload/plan/file-table.js';
import type { Scanned } from '../../src/upload/plan/scan.js';

const CWD = '/work';

function image(path: string) {
  return {
    path: join(CWD, path),
    name: path.split('/').pop()!,
    size: 1_000,
    mtimeMs: 0,
    extFormat: 'jpeg' as const,
    realFormat: 'jpeg' as const,
    contentType: 'image/jpeg',
    problems: [],
    warnings: [],
  };
}

/** The order decide puts `paths` in as one carousel (--carousel --split, so that any number fits). */
function carouselOrder(paths: string[]): string[] {
  const table = new FileTable(CWD);
  const files = paths.map((p) => table.add(image(p)));
  const scanned: Scanned = { cwd: CWD, table, files, problems: [], skipped: [], sidecars: {} };
  const plan = decide(scanned, ['in'], { carousel: true, split: true });
  expect(plan.problems).toEqual([]);
  return plan.items.flatMap((item) => item.files.map((f) => f.path.slice(CWD.length + 1)));
}

describe('the order of a carousel', () => {
  for (const n of [3, 16, 40]) {
    it(`${2 * n} images named 1 … ${n} in two folders: by name, then by path`, () => {
      const names = Array.from({ length: n }, (_, k) => `${k + 1}.jpg`);
      // Given in the reverse of the order wanted: b before a, high numbers first.
      const given = [...names.map((name) => `b/${name}`), ...names.map((name) => `a/${name}`)].reverse();
      expect(carouselOrder(given)).toEqual(names.flatMap((name) => [`a/${name}`, `b/${name}`]));
    });
  }

  it('the same order whichever way the images were found', () => {
    const paths = Array.from({ length: 50 }, (_, k) => `${k % 2 ? 'x' : 'y'}/img${(k * 7) % 25}.jpg`);
    const shuffled = [...paths.slice(25), ...paths.slice(0, 25)];
    expect(carouselOrder(shuffled)).toEqual(carouselOrder(paths));
  });
});
