// What every Storage implementation must do (src/server/storage/interface.ts), as one suite that
// each implementation's test file runs with its own set-up: disk (storage-disk.test.ts) and S3
// (storage-s3.test.ts: Ceph's RADOS Gateway, also behind a proxy that answers copies of multipart
// objects as AWS does, or the store CONTENTLIB_TEST_S3_ENDPOINT names).
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
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
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
        const moved = await storage.promote(key, final, { etag: first.etag }).catch((e: unknown) => e);
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
        await storage.promote(key, final, { etag: head.etag, size: 64, sha256: sha256(bytes(64, 0x63)) });
        expect(await storage.head(key)).toBeNull();
        expect(Buffer.from(await storage.readRange(final, 0, 64)).equals(bytes(64, 0x63))).toBe(true);
        expect(await storage.listStaging()).not.toContain(key);
        const again = await storage.promote(key, final).catch((e: unknown) => e);
        expect(isObjectState(again, 'missing')).toBe(true);
      }),
    );

    it(
      'promote takes the checked version however the store quotes ETags (RGW: a copy answers without quotes, HEAD with)',
      withStore(async ({ storage, stage }) => {
        for (const quoting of [
          (e: string) => e,
          (e: string) => e.replace(/"/g, ''),
          (e: string) => `"${e.replace(/"/g, '')}"`,
        ]) {
          const key = stagingKeyOf(ID());
          const final = `u/${ID()}/q.jpg`;
          const data = bytes(32, 0x71);
          await stage(key, data, 'image/jpeg');
          const head = (await storage.head(key))!;
          await storage.promote(key, final, { etag: quoting(head.etag) });
          expect(Buffer.from(await storage.readRange(final, 0, 32)).equals(data)).toBe(true);
          expect(await storage.head(key)).toBeNull();
        }
      }),
    );

    it(
      'a version written again between its check and the promote never becomes final, whether or not the store honours copy-source-if-match (RGW ignores it); the new version is left to be checked',
      withStore(async ({ storage, stage }) => {
        const key = stagingKeyOf(ID());
        const final = `u/${ID()}/r.jpg`;
        const checked = bytes(4096, 0x41);
        const late = bytes(4096, 0x42);
        await stage(key, checked, 'image/jpeg');
        const head = (await storage.head(key))!;
        await stage(key, late, 'image/jpeg');
        const moved = await storage
          .promote(key, final, { etag: head.etag, size: 4096, sha256: sha256(checked) })
          .catch((e: unknown) => e);
        expect(isObjectState(moved, 'changed')).toBe(true);
        expect(await storage.head(final)).toBeNull();
        // The late bytes stay in staging, where the next complete checks them; checked, they promote.
        const now = (await storage.head(key))!;
        expect(Buffer.from(await storage.readRange(key, 0, 8, now.etag)).equals(late.subarray(0, 8))).toBe(true);
        await storage.promote(key, final, { etag: now.etag, size: 4096, sha256: sha256(late) });
        expect(Buffer.from(await storage.readRange(final, 4090, 6)).equals(late.subarray(4090))).toBe(true);
      }),
    );

    it(
      'a multipart-uploaded object promotes, though the store may give its copy an ETag of its own (AWS does)',
      withStore(async ({ storage, multipart: { store, putPart } }) => {
        const key = stagingKeyOf(ID());
        const whole = Buffer.concat([Buffer.alloc(5 * MIB, 0x35), Buffer.from('tail')]);
        const id = await store.create(key, 'video/mp4');
        await putPart(key, id, 1, whole.subarray(0, 5 * MIB));
        await putPart(key, id, 2, whole.subarray(5 * MIB));
        await store.complete(key, id, await store.listParts(key, id));
        const head = (await storage.head(key))!;
        const final = `u/${ID()}/m.mp4`;
        await storage.promote(key, final, { etag: head.etag, size: head.size, sha256: sha256(whole) });
        expect(await storage.head(key)).toBeNull();
        expect((await storage.head(final))?.size).toBe(whole.length);
        expect((await storage.readRange(final, 5 * MIB - 2, 6)).toString('latin1')).toBe('55tail');
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
