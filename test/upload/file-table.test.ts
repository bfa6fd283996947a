// FileTable (src/upload/plan/file-table.ts): what is added comes back the same, field for field,
// whichever fields a file has, across the joined names' chunks, and as messages show its path.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InspectedFile } from '../../src/media/inspect.js';
import { FileTable } from '../../src/upload/plan/file-table.js';
import { shownPath } from '../../src/upload/plan/plan-inputs.js';

const CWD = '/work';

function image(path: string, k: number): InspectedFile {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    path,
    name,
    size: 1000 + k,
    mtimeMs: 1_700_000_000_000.5 + k,
    extFormat: 'jpeg',
    realFormat: 'jpeg',
    contentType: 'image/jpeg',
    problems: [],
    warnings: [],
  };
}

describe('FileTable', () => {
  it('gives back every file as it was added, over more names than one chunk holds', () => {
    const table = new FileTable(CWD);
    const files = Array.from({ length: 9000 }, (_, k) =>
      image(join(CWD, `album-${Math.floor(k / 10)}`, `${k % 3 === 0 ? 'Été ' : ''}photo-${k}.jpg`), k),
    );
    const ids = files.map((f) => table.add(f));
    table.seal();
    expect(ids).toEqual(files.map((_, k) => k));
    for (const k of [0, 1, 4095, 4096, 4097, 8191, 8192, 8999]) {
      expect(table.file(k)).toEqual(files[k]);
      expect(table.shown(k)).toBe(shownPath(files[k]!.path, CWD));
    }
    expect(files.every((f, k) => table.path(k) === f.path && table.name(k) === f.name)).toBe(true);
  });

  it('keeps what only some files have: a duration, problems, warnings, no format, another name, a path outside cwd', () => {
    const table = new FileTable(CWD);
    const problem = { file: 'x', rule: 'format', actual: 'gif', message: 'm', path: '/elsewhere/x.gif' };
    const odd: InspectedFile[] = [
      {
        ...image('/work/v/clip.mp4', 1),
        extFormat: 'mp4',
        realFormat: 'mp4',
        contentType: 'video/mp4',
        durationSeconds: 12.5,
      },
      { path: '/elsewhere/x.gif', name: 'x.gif', size: 0, mtimeMs: 0, problems: [problem], warnings: [] },
      { ...image('/work/a/photo.png', 2), warnings: [{ ...problem, rule: 'format-mismatch' }] },
      { ...image('/work/a/01-beach.jpg', 3), name: 'beach.jpg' },
      image('/root.jpg', 4),
      { ...image('/work/..odd.jpg', 5) },
    ];
    odd.forEach((f) => table.add(f));
    odd.forEach((f, k) => expect(table.file(k)).toEqual(f));
    expect(table.problems(1)).toEqual([problem]);
    expect(table.problems(0)).toEqual([]);
    expect(odd.map((_, k) => table.shown(k))).toEqual(odd.map((f) => shownPath(f.path, CWD)));
    table.rename(0, 'renamed.mp4');
    expect(table.file(0).name).toBe('renamed.mp4');
    expect(table.file(0).durationSeconds).toBe(12.5);
  });

  it('files each path under its own folder, whatever folder the file before was in', () => {
    const table = new FileTable(CWD);
    // A folder, then one whose name starts with it, the root, a folder inside, and back.
    const paths = ['/x/a.jpg', '/xy/b.jpg', '/x/c.jpg', '/d.jpg', '/e.jpg', '/x/y/f.jpg', '/x/g.jpg', '/x/y/z.jpg'];
    const files = paths.map((path, k) => image(path, k));
    files.forEach((f) => table.add(f));
    expect(files.map((_, k) => table.folder(k))).toEqual(['/x', '/xy', '/x', '/', '/', '/x/y', '/x', '/x/y']);
    expect(files.map((_, k) => table.shownFolder(k))).toEqual(files.map((_, k) => shownPath(table.folder(k), CWD)));
    files.forEach((f, k) => expect(table.file(k)).toEqual(f));
    expect(table.contentType(0)).toBe('image/jpeg');
  });
});

describe('FileTable: folders as runs, sizes past 4 GiB', () => {
  it("finds each file's folder asked in any order, when folders come back after others", () => {
    const table = new FileTable(CWD);
    // Runs of 1 to 7 files, the folders coming back: 0 1 2 0 3 1 ...
    const paths: string[] = [];
    for (let r = 0; paths.length < 3000; r++) {
      const folder = `/w/f${(r * 7) % 11}`;
      for (let k = 0; k < 1 + (r % 7); k++) paths.push(`${folder}/p${paths.length}.jpg`);
    }
    paths.forEach((path, k) => table.add(image(path, k)));
    const folderOf = (k: number) => paths[k]!.slice(0, paths[k]!.lastIndexOf('/'));
    const order = [...paths.keys()];
    // In order, backwards, and shuffled (a fixed shuffle: the same every run).
    for (const ids of [order, [...order].reverse(), order.map((_, k) => (k * 1237) % order.length)])
      for (const k of ids) expect(table.folder(k)).toBe(folderOf(k));
    expect(paths.every((p, k) => table.path(k) === p)).toBe(true);
  });

  it('keeps sizes of 4 GiB and more exactly, and those just under', () => {
    const table = new FileTable(CWD);
    const sizes = [0, 1, 2 ** 32 - 2, 2 ** 32 - 1, 2 ** 32, 5 * 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
    sizes.forEach((size, k) => table.add({ ...image(`/w/v${k}.mp4`, k), size }));
    expect(sizes.map((_, k) => table.size(k))).toEqual(sizes);
    expect(sizes.map((_, k) => table.file(k).size)).toEqual(sizes);
  });
});
