// The SHA-256 of a file as it is written (src/download/running-hash.ts): the worker thread that
// reads the file back gives the same digest as hashing the bytes, follows a file that starts
// over, and a failure to read (here: a descriptor that is not a file) is a HashError from
// digest(), never a hang.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeError } from '../../src/cli/error-messages.js';
import { HashError, inThreadHash, threadHash, tryThreadHash } from '../../src/download/running-hash.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-hash-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Writes `bytes` to a new file in chunks of various sizes, telling `hash` after each write. */
async function writeHashed(make: (fd: number) => ReturnType<typeof threadHash>, bytes: Buffer, existing = 0) {
  const handle = await open(join(dir, 'f.part'), 'a+');
  const hash = make(handle.fd);
  try {
    if (existing > 0) {
      await handle.write(bytes.subarray(0, existing));
      await hash.addExisting(handle, existing);
    }
    for (let at = existing, step = 1; at < bytes.length; step = (step * 7 + 3) % 3_000_000) {
      const chunk = bytes.subarray(at, Math.min(bytes.length, at + step + 1));
      await handle.write(chunk);
      at += chunk.length;
      hash.add(chunk, at);
    }
    return await hash.digest();
  } finally {
    await hash.close();
    await handle.close();
  }
}

describe('threadHash', () => {
  const bytes = randomBytes(9 * 1024 * 1024 + 17);

  it('gives the SHA-256 of what was written, read back by its worker', async () => {
    expect(await writeHashed(threadHash, bytes)).toBe(sha(bytes));
  });

  it('counts the bytes a part file already held (resumed)', async () => {
    expect(await writeHashed(threadHash, bytes, 5 * 1024 * 1024 + 3)).toBe(sha(bytes));
  });

  it('the same digest in-thread', async () => {
    expect(await writeHashed(() => inThreadHash(), bytes, 1000)).toBe(sha(bytes));
  });

  it('after reset, hashes only what the file holds from then on', async () => {
    const handle = await open(join(dir, 'f.part'), 'a+');
    const hash = threadHash(handle.fd);
    try {
      await handle.write(bytes);
      hash.add(bytes, bytes.length);
      await hash.reset();
      await handle.truncate(0);
      const other = bytes.subarray(0, 1_000_000);
      await handle.write(other);
      hash.add(other, other.length);
      expect(await hash.digest()).toBe(sha(other));
    } finally {
      await hash.close();
      await handle.close();
    }
  });

  it('a file it cannot read: digest() rejects with a HashError that says why', async () => {
    const handle = await open(dir, 'r'); // a directory: read() fails with EISDIR
    const hash = threadHash(handle.fd);
    try {
      hash.add(Buffer.alloc(0), 10);
      const err = await hash.digest().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HashError);
      expect(err).toMatchObject({ code: 'EISDIR' });
      expect((err as Error).message).toMatch(/^the SHA-256 could not be computed: .*EISDIR/);
      // The CLI says it as it is (exit 1), not as a bug of its own, and what to do about it.
      expect(describeError(err)).toEqual({
        message: `${(err as Error).message}\nThe partial file is kept: run the same command again to resume; its bytes are hashed again.`,
        exitCode: 1,
      });
      // Once failed, it stays failed.
      await expect(hash.reset()).rejects.toBeInstanceOf(HashError);
    } finally {
      await hash.close();
      await handle.close();
    }
  });

  it('a file shorter than said: a HashError, not a wrong digest', async () => {
    const handle = await open(join(dir, 'f.part'), 'a+');
    const hash = threadHash(handle.fd);
    try {
      await handle.write(Buffer.alloc(100));
      hash.add(Buffer.alloc(100), 200);
      await expect(hash.digest()).rejects.toMatchObject({ name: 'HashError', code: 'ESHORT' });
    } finally {
      await hash.close();
      await handle.close();
    }
  });

  it('a worker that exits under it: digest() rejects instead of waiting for ever', async () => {
    const handle = await open(join(dir, 'f.part'), 'a+');
    // A stand-in worker that dies as soon as it starts, as one would on a crash.
    const hash = threadHash(handle.fd, 'process.exit(3)');
    try {
      await expect(hash.digest()).rejects.toThrow(/its thread exited \(code 3\)/);
    } finally {
      await hash.close();
      await handle.close();
    }
  });
});

describe('tryThreadHash', () => {
  it('one worker at a time: a second file while one is hashing gets none (hashed in-thread), then one again', async () => {
    const handle = await open(join(dir, 'f.part'), 'a+');
    try {
      const first = tryThreadHash(handle.fd);
      expect(first).toBeDefined();
      expect(tryThreadHash(handle.fd)).toBeUndefined();
      await first!.close();
      await first!.close(); // twice is harmless, and frees one place only
      const again = tryThreadHash(handle.fd);
      expect(again).toBeDefined();
      expect(tryThreadHash(handle.fd)).toBeUndefined();
      await again!.close();
    } finally {
      await handle.close();
    }
  });
});
