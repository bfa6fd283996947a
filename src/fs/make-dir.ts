// Creating a folder and its missing parents, like `mkdir -p`.
//
// Why not mkdir(…, { recursive: true }): on Node 22 and 24 (checked on 22.23 and 24.21; 26.12 answers
// ENOENT) the recursive mkdir never returns when the kernel
// answers ENOENT for a folder whose parent exists (e.g. anywhere under /proc/1): it retries the
// same path forever at 100 % CPU, deaf to Ctrl-C. A user who points CONTENTLIB_HOME at such a
// place must get an error, so the walk is ours: each folder is made once, parents first.
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** Makes `path` and its missing parents with `mode`; an existing folder is left as it is. */
export async function makeDir(path: string, mode = 0o700): Promise<void> {
  try {
    await mkdir(path, { mode });
    return;
  } catch (err) {
    if (code(err) === 'EEXIST') return existingFolder(err, await stat(path).catch(() => null));
    const parent = dirname(path);
    if (code(err) !== 'ENOENT' || parent === path) throw err;
    await makeDir(parent, mode);
  }
  // The parent exists now: a second ENOENT is final (this is where Node's own walk loops).
  try {
    await mkdir(path, { mode });
  } catch (err) {
    if (code(err) !== 'EEXIST') throw err;
    existingFolder(err, await stat(path).catch(() => null));
  }
}

/** makeDir for the few places that must stay synchronous (opening the database, the config). */
export function makeDirSync(path: string, mode = 0o700): void {
  try {
    mkdirSync(path, { mode });
    return;
  } catch (err) {
    if (code(err) === 'EEXIST') return existingFolder(err, statOrNull(path));
    const parent = dirname(path);
    if (code(err) !== 'ENOENT' || parent === path) throw err;
    makeDirSync(parent, mode);
  }
  try {
    mkdirSync(path, { mode });
  } catch (err) {
    if (code(err) !== 'EEXIST') throw err;
    existingFolder(err, statOrNull(path));
  }
}

function statOrNull(path: string): { isDirectory(): boolean } | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Something exists at `path`: fine when it is a folder; a file in the way keeps its EEXIST. */
function existingFolder(err: unknown, st: { isDirectory(): boolean } | null): void {
  if (st?.isDirectory()) return;
  throw err;
}
