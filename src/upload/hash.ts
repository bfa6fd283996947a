// A file's SHA-256, read once from disk in large slices (never whole in memory) and hashed by
// Node's crypto (OpenSSL, with the CPU's SHA extensions where it has them). The reads go through
// libuv's thread pool while the slice before is hashed, the same read-ahead the PUT uses
// (put.ts fileSlices). A file that changes while it is read is reported, like one that changes
// while it is sent: its checksum would describe no version of it.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { FileChangedError, type LocalFile, fileSlices } from './put.js';

export async function sha256OfFile(file: LocalFile, signal?: AbortSignal): Promise<string> {
  const handle = await open(file.path, 'r');
  try {
    const before = await handle.stat();
    if (before.size !== file.size || before.mtimeMs !== file.mtimeMs)
      throw new FileChangedError(file.path, 'since it was checked, before its checksum was computed');
    const hash = createHash('sha256');
    for await (const slice of fileSlices(handle, file)) {
      signal?.throwIfAborted();
      hash.update(slice);
    }
    const after = await handle.stat();
    if (after.size !== file.size || after.mtimeMs !== file.mtimeMs)
      throw new FileChangedError(file.path, 'while its checksum was computed');
    return hash.digest('hex');
  } finally {
    await handle.close().catch(() => {});
  }
}
