// What every Storage implementation must do (src/server/storage/interface.ts), as one suite that
// each implementation's test file runs with its own set-up: disk (storage-disk.test.ts), s3rver
// (storage-s3.test.ts) and, when configured, a real S3 bucket (storage-s3-real.test.ts).
// `stage` puts bytes into a staging object the way that store receives a presigned PUT.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type MultipartStore, type Storage, isObjectState, stagingKeyOf } from '../../src/server/storage/interface.js';

export interface ContractSetup {
  storage: Storage;
  stage(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The store's multipart uploads, and how a client sends one part (returns the part's ETag). */
  multipart: {
    store: MultipartStore;
    putPart(stagingKey: string, uploadId: string, partNumber: number, bytes: Buffer): Promise<string>;
  };
  dispose(): Promise<void>;
}

const MIB = 1024 * 1024;

const ID = () => crypto.randomUUID();
const bytes = (n: number, fill = 0x61) => Buffer.alloc(n, fill);

export function storageContract(name: string, setup: () => Promise<ContractSetup>): void {
  describe(`Storage contract: ${name}`, () => {
    const withStore = (fn: (s: ContractSetup) => Promise<void>) => async () => {
      const s = await setup();
      try {
        await fn(s);
      } finally {
        await s.dispose();
      }
    };

    it(
      'head and readRange of a missing object: null, and ObjectStateError missing',
      withStore(async ({ storage }) => {
        expect(await storage.head(stagingKeyOf(ID()))).toBeNull();
        const err = await storage.readRange(`u/${ID()}/x.jpg`, 0, 10).catch((e: unknown) => e);
        expect(isObjectState(err, 'missing')).toBe(true);
      }),
    );

    it(
      'a staged object: size, an etag, ranges (fewer bytes at the end, none past it)',
      withStore(async ({ storage, stage }) => {
        const key = stagingKeyOf(ID());
        const data = Buffer.from('0123456789');
        await stage(key, data, 'image/jpeg');
        const head = await storage.head(key);
        expect(head?.size).toBe(10);
        expect(head?.etag).toBeTruthy();
        expect(Buffer.from(await storage.readRange(key, 0, 4, head!.etag)).toString()).toBe('0123');
        expect(Buffer.from(await storage.readRange(key, 8, 10)).toString()).toBe('89');
        expect((await storage.readRange(key, 10, 5)).length).toBe(0);
      }),
    );

    it(
      'written again: the old etag no longer reads, and does not promote',
      withStore(async ({ storage, stage }) => {
        const key = stagingKeyOf(ID());
        await stage(key, bytes(100), 'image/jpeg');
        const first = (await storage.head(key))!;
        await stage(key, bytes(100, 0x62), 'image/jpeg');
        const read = await storage.readRange(key, 0, 10, first.etag).catch((e: unknown) => e);
        expect(isObjectState(read, 'changed')).toBe(true);
        const final = `u/${ID()}/a.jpg`;
        const moved = await storage.promote(key, final, first.etag).catch((e: unknown) => e);
        expect(isObjectState(moved, 'changed')).toBe(true);
        expect(await storage.head(final)).toBeNull();
      }),
    );

    it(
      'promote moves exactly the staged bytes to the final key; staging is empty after',
      withStore(async ({ storage, stage }) => {
        const key = stagingKeyOf(ID());
        const final = `u/${ID()}/b.jpg`;
        await stage(key, bytes(64, 0x63), 'image/jpeg');
        const head = (await storage.head(key))!;
        await storage.promote(key, final, head.etag);
        expect(await storage.head(key)).toBeNull();
        expect(Buffer.from(await storage.readRange(final, 0, 64)).equals(bytes(64, 0x63))).toBe(true);
        expect(await storage.listStaging()).not.toContain(key);
        const again = await storage.promote(key, final).catch((e: unknown) => e);
        expect(isObjectState(again, 'missing')).toBe(true);
      }),
    );

    it(
      'listStaging lists staging keys only; delete removes, and a missing object counts as deleted',
      withStore(async ({ storage, stage }) => {
        const a = stagingKeyOf(ID());
        const b = stagingKeyOf(ID());
        await stage(a, bytes(8), 'image/jpeg');
        await stage(b, bytes(8), 'image/jpeg');
        const final = `u/${ID()}/c.jpg`;
        await storage.promote(b, final);
        const listed = await storage.listStaging();
        expect(listed).toContain(a);
        expect(listed).not.toContain(final);
        await storage.delete(a);
        await storage.delete(final);
        await storage.delete(final);
        expect(await storage.head(a)).toBeNull();
        expect(await storage.head(final)).toBeNull();
      }),
    );

    it(
      'presignPut names the exact headers to send; presignGet gives a URL; check() passes',
      withStore(async ({ storage }) => {
        const put = await storage.presignPut({
          key: stagingKeyOf(ID()),
          contentType: 'video/mp4',
          contentLength: 1234,
          expiresAt: new Date(Date.now() + 60_000),
        });
        expect(() => new URL(put.url)).not.toThrow();
        const headers = Object.fromEntries(Object.entries(put.headers).map(([k, v]) => [k.toLowerCase(), v]));
        expect(headers).toMatchObject({ 'content-type': 'video/mp4', 'content-length': '1234' });
        const get = await storage.presignGet({ key: `u/${ID()}/d.jpg`, expiresAt: new Date(Date.now() + 60_000) });
        expect(() => new URL(get)).not.toThrow();
        await storage.check();
      }),
    );

    it(
      'multipart: parts in any order, one sent again, listed, joined into the staging object; then gone',
      withStore(async ({ storage, multipart: { store, putPart } }) => {
        const key = stagingKeyOf(ID());
        const id = await store.create(key, 'video/mp4');
        // Every part but the last at least 5 MiB (S3's minimum).
        const first = Buffer.alloc(5 * MIB, 0x31);
        const last = Buffer.from('the end');
        await putPart(key, id, 2, last);
        const replaced = await putPart(key, id, 1, Buffer.alloc(5 * MIB, 0x30));
        const etag = await putPart(key, id, 1, first);
        expect(etag.replace(/"/g, '')).not.toBe(replaced.replace(/"/g, ''));
        const listed = await store.listParts(key, id);
        expect(listed.map((p) => [p.partNumber, p.size])).toEqual([
          [1, 5 * MIB],
          [2, last.length],
        ]);
        expect(listed[0]!.etag).toBe(etag.replace(/"/g, ''));
        expect((await store.listUploads()).map((u) => [u.stagingKey, u.uploadId])).toContainEqual([key, id]);
        const joined = await store.complete(key, id, listed);
        const whole = Buffer.concat([first, last]);
        // The disk store hashes while joining; S3 says nothing (the object is hashed at complete).
        if (joined.sha256) expect(joined.sha256).toBe(createHash('sha256').update(whole).digest('hex'));
        const head = (await storage.head(key))!;
        expect(head.size).toBe(whole.length);
        expect((await storage.readRange(key, 5 * MIB - 2, 5)).toString('latin1')).toBe('11the');
        expect((await store.listUploads()).map((u) => u.uploadId)).not.toContain(id);
        expect(isObjectState(await store.listParts(key, id).catch((e: unknown) => e), 'missing')).toBe(true);
        await storage.delete(key);
      }),
    );

    it(
      'multipart: an abort frees the parts; aborting again is fine',
      withStore(async ({ storage, multipart: { store, putPart } }) => {
        const key = stagingKeyOf(ID());
        const id = await store.create(key, 'video/mp4');
        await putPart(key, id, 1, Buffer.from('some bytes'));
        const opened = (await store.listUploads()).find((u) => u.uploadId === id);
        expect(opened?.initiated.getTime()).toBeGreaterThan(Date.now() - 600_000);
        await store.abort(key, id);
        await store.abort(key, id);
        expect(isObjectState(await store.listParts(key, id).catch((e: unknown) => e), 'missing')).toBe(true);
        expect((await store.listUploads()).map((u) => u.uploadId)).not.toContain(id);
        expect(await storage.head(key)).toBeNull();
      }),
    );
  });
}
