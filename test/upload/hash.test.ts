// A file's SHA-256 as the upload computes it: the same digest as hashing the bytes at once, for a
// small file (read in one synchronous go) and a large one (streamed in slices), and a file that
// is not the one planned (changed since) is reported rather than hashed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_HASH_BYTES, sha256OfFile } from '../../src/upload/send/hash.js';
import { FileChangedError, READ_SLICE_BYTES } from '../../src/upload/send/put.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-hash-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function fileOf(name: string, bytes: Buffer) {
  const path = join(dir, name);
  await writeFile(path, bytes);
  const st = await stat(path);
  return { path, size: st.size, mtimeMs: st.mtimeMs };
}

describe('sha256OfFile', () => {
  it.each([
    ['empty', 0],
    ['one byte', 1],
    ['small (read at once)', SYNC_HASH_BYTES],
    ['just over the small limit (streamed)', SYNC_HASH_BYTES + 1],
    ['several slices, the last one short', 3 * READ_SLICE_BYTES + 12345],
  ])('%s: the digest of its bytes', async (name, size) => {
    const bytes = randomBytes(size);
    const f = await fileOf(`${name}.bin`, bytes);
    expect(await sha256OfFile(f)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it.each([
    ['small', 1000],
    ['large', SYNC_HASH_BYTES + 1000],
  ])('a %s file changed since it was planned is reported, not hashed', async (name, size) => {
    const f = await fileOf(`changed-${name}.bin`, randomBytes(size));
    await utimes(f.path, new Date(), new Date(f.mtimeMs + 5000));
    await expect(sha256OfFile(f)).rejects.toBeInstanceOf(FileChangedError);
    await writeFile(f.path, randomBytes(size + 1));
    await expect(sha256OfFile(f)).rejects.toThrow(/changed/);
  });
});
