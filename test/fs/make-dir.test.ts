// makeDir / makeDirSync: `mkdir -p` that always ends (src/fs/make-dir.ts says why it exists).
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDir, makeDirSync } from '../../src/fs/make-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-mkdir-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ['makeDir', (p: string) => makeDir(p)],
  ['makeDirSync', async (p: string) => makeDirSync(p)],
])('%s', (_name, make) => {
  it('makes missing parents, owner-only, and accepts a folder that exists', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    await make(deep);
    await make(deep);
    for (const p of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) {
      const st = await stat(p);
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700 & ~process.umask());
    }
  });

  it('refuses a file in the way with EEXIST, and a file as a parent with ENOTDIR', async () => {
    await writeFile(join(dir, 'f'), 'x');
    await expect(make(join(dir, 'f'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(make(join(dir, 'f', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  // Where Node's recursive mkdir loops forever: the parent exists, mkdir still says ENOENT.
  it.runIf(existsSync('/proc/1'))('ends with ENOENT under /proc/1 instead of spinning', async () => {
    await expect(make('/proc/1/contentlib-nope/x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
