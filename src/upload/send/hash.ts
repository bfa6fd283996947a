// A file's SHA-256, read once from disk and hashed by Node's crypto (OpenSSL, with the CPU's SHA
// extensions where it has them), never whole in memory for a large file. A large file is read in
// large slices through libuv's thread pool while the slice before is hashed, the same read-ahead
// the PUT uses (put.ts fileSlices). A small one is read synchronously: each promise-based open,
// stat, read and close is a round trip through the thread pool, which for thousands of small
// images cost more than reading them (the same finding as planning's, docs/design.md "Planning
// at scale"). A file that changes while it is read is reported, like one that changes while it
// is sent: its checksum would describe no version of it.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { FileChangedError, type LocalFile, fileSlices } from './put.js';

/** Files up to this size are read in one synchronous go (a few milliseconds of the event loop at most). */
export const SYNC_HASH_BYTES = 1024 * 1024;

/** The file is still as planned (size and mtime): else its checksum would describe no version of it. */
export function assertSame(file: LocalFile, st: { size: number; mtimeMs: number }, when: string): void {
  if (st.size !== file.size || st.mtimeMs !== file.mtimeMs)
    throw new FileChangedError(file.path, `${when} its checksum was computed`);
}

/** `stalls`: the file is on a network share or a FUSE mount (src/fs/stalling-fs.ts): never read synchronously. */
export async function sha256OfFile(
  file: LocalFile,
  signal?: AbortSignal,
  { stalls = false }: { stalls?: boolean } = {},
): Promise<string> {
  if (file.size <= SYNC_HASH_BYTES && !stalls) return sha256OfSmallFile(file);
  const handle = await open(file.path, 'r');
  try {
    assertSame(file, await handle.stat(), 'since it was checked, before');
    const hash = createHash('sha256');
    for await (const slice of fileSlices(handle, file)) {
      signal?.throwIfAborted();
      hash.update(slice);
    }
    assertSame(file, await handle.stat(), 'while');
    return hash.digest('hex');
  } finally {
    await handle.close().catch(() => {});
  }
}

function sha256OfSmallFile(file: LocalFile): string {
  const fd = openSync(file.path, 'r');
  try {
    assertSame(file, fstatSync(fd), 'since it was checked, before');
    const bytes = Buffer.allocUnsafe(file.size);
    let filled = 0;
    while (filled < file.size) {
      const n = readSync(fd, bytes, filled, file.size - filled, filled);
      if (n === 0) throw new FileChangedError(file.path, `it ended after ${filled} of ${file.size} bytes while`);
      filled += n;
    }
    assertSame(file, fstatSync(fd), 'while');
    return createHash('sha256').update(bytes).digest('hex');
  } finally {
    closeSync(fd);
  }
}
