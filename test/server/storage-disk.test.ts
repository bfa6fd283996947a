// The Storage contract against the disk implementation, plus what only disk does: receive a
// PUT body into staging (exact length, the still-open decision) and keep keys off the path.
import fs, { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LengthMismatchError, createDiskStorage } from '../../src/server/storage/disk.js';
import { createDiskParts } from '../../src/server/storage/disk-parts.js';
import { isObjectState, stagingKeyOf } from '../../src/server/storage/interface.js';
import { storageContract } from './storage-contract.js';

const ok = async () => true;

async function diskSetup() {
  const dataDir = await mkdtemp(join(tmpdir(), 'contentlib-disk-'));
  const storage = createDiskStorage({ dataDir, secret: Buffer.alloc(32, 1), publicUrl: () => 'http://127.0.0.1:1' });
  const parts = createDiskParts(dataDir, Buffer.alloc(32, 1), () => 'http://127.0.0.1:1', storage.pathOf);
  return {
    dataDir,
    storage,
    // The part PUT's route (src/server/routes/storage.ts) hands the body to `receive`; the ETag is the stored part's.
    multipart: {
      store: parts,
      async putPart(stagingKey: string, uploadId: string, partNumber: number, bytes: Buffer) {
        // The contract's parts are 5 MiB each but the last (the part PUT's route passes the plan's offset).
        const offset = (partNumber - 1) * 5 * 1024 * 1024;
        const stored = await parts.receive(uploadId, partNumber, offset, Readable.from([bytes]), bytes.length, ok);
        if (stored === 'closed') throw new Error(`part ${partNumber} was refused as closed`);
        expect((await parts.listParts(stagingKey, uploadId)).find((p) => p.partNumber === partNumber)!.etag).toBe(
          stored.etag,
        );
        return stored.etag;
      },
    },
    async stage(key: string, bytes: Buffer) {
      expect(await storage.receive(key, Readable.from([bytes]), bytes.length, async () => true)).toBe('stored');
    },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

storageContract('disk', diskSetup);

describe('disk only', () => {
  it('a GET sends the file 1 MiB at a time (Node reads 64 KiB): 3.5 MiB in 4 writes, a small file in one', async () => {
    const s = await diskSetup();
    try {
      const big = Buffer.alloc(3.5 * 1024 * 1024, 7);
      const bigKey = stagingKeyOf(crypto.randomUUID());
      const smallKey = stagingKeyOf(crypto.randomUUID());
      await s.stage(bigKey, big);
      await s.stage(smallKey, Buffer.from('small'));
      const chunksOf = async (key: string, size: number) => {
        const object = (await s.storage.openRead(key))!;
        const chunks: Buffer[] = [];
        const out = new Writable({
          write(chunk: Buffer, _encoding, callback) {
            chunks.push(Buffer.from(chunk));
            callback();
          },
        });
        expect(await object.send(out, 0, size - 1)).toBe('sent');
        return chunks;
      };
      const chunks = await chunksOf(bigKey, big.length);
      expect(chunks.map((c) => c.length)).toEqual([1, 1, 1, 0.5].map((m) => m * 1024 * 1024));
      expect(Buffer.concat(chunks).equals(big)).toBe(true);
      expect((await chunksOf(smallKey, 5)).map((c) => c.toString())).toEqual(['small']);
    } finally {
      await s.dispose();
    }
  });

  it('multipart: a part not the one named (sent again meanwhile) is refused as changed, and nothing is joined', async () => {
    const s = await diskSetup();
    try {
      const key = stagingKeyOf(crypto.randomUUID());
      const id = await s.multipart.store.create(key, 'video/mp4');
      const etag = await s.multipart.putPart(key, id, 1, Buffer.from('first'));
      await s.multipart.putPart(key, id, 1, Buffer.from('again'));
      const err = await s.multipart.store.complete(key, id, [{ partNumber: 1, etag }]).catch((e: unknown) => e);
      expect(isObjectState(err, 'changed')).toBe(true);
      expect(await s.storage.head(key)).toBeNull();
      expect((await s.multipart.store.listParts(key, id)).map((p) => p.size)).toEqual([5]);
    } finally {
      await s.dispose();
    }
  });

  it('a body of the wrong length, or one whose upload closed meanwhile, leaves nothing behind', async () => {
    const s = await diskSetup();
    try {
      const key = stagingKeyOf(crypto.randomUUID());
      const short = await s.storage
        .receive(key, Readable.from([Buffer.alloc(5)]), 10, async () => true)
        .catch((e) => e);
      expect(short).toBeInstanceOf(LengthMismatchError);
      expect(await s.storage.receive(key, Readable.from([Buffer.alloc(10)]), 10, async () => false)).toBe('closed');
      expect(await s.storage.head(key)).toBeNull();
      expect(await readdir(join(s.dataDir, 'tmp'))).toEqual([]);
    } finally {
      await s.dispose();
    }
  });

  it('a body that fails while its temp file is still being opened leaves no .part behind', async () => {
    const s = await diskSetup();
    // A slow disk (or a thread pool busy with fsyncs) opens the temp file late: the body fails
    // first, and the removal must wait for the file to exist. The write stream opens through
    // the fs module's own `open`, held here for 50 ms.
    const realOpen = fs.open;
    const slowOpen = (...args: Parameters<typeof fs.open>) =>
      void setTimeout(() => Reflect.apply(realOpen, fs, args), 50);
    fs.open = slowOpen as typeof fs.open;
    try {
      const failed = await Promise.all(
        Array.from({ length: 4 }, () => {
          const body = new Readable({ read: () => body.destroy(new Error('client went away')) });
          return s.storage.receive(stagingKeyOf(crypto.randomUUID()), body, 10, ok).catch((e: unknown) => e);
        }),
      );
      fs.open = realOpen;
      for (const err of failed) expect((err as Error).message).toBe('client went away');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await readdir(join(s.dataDir, 'tmp'))).toEqual([]);
    } finally {
      fs.open = realOpen;
      await s.dispose();
    }
  });

  it('keys never become paths: a final key is hashed, a bad staging key is refused', async () => {
    const s = await diskSetup();
    try {
      const path = s.storage.pathOf('../../etc/passwd');
      expect(path.startsWith(join(s.dataDir, 'objects'))).toBe(true);
      expect(() => s.storage.pathOf('staging/../../x')).toThrow();
      expect(existsSync(path)).toBe(false);
    } finally {
      await s.dispose();
    }
  });
});
