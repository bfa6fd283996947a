// The disk store's one receiver of PUT bodies (src/server/routes/storage.ts), single and part:
// one set of refusals and one error mapping for both (a disk that fails is 503 with the shared
// Retry-After, reached through the outage guard), and the single PUT hashed as it lands, so that
// complete verifies its checksum without reading the file back — unless the server restarted
// in between (issue 41). The disk store only: on S3 the store receives the bytes itself.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/server/storage/interface.js';
import { RETRY_AFTER_SECONDS } from '../../src/server/unavailable.js';
import { onS3 } from '../support/backend.js';
import {
  type FileSpec,
  type TestServer,
  call,
  complete,
  image,
  mp4,
  presign,
  put,
  stagingKeyOf,
  startTestServer,
} from '../support/server.js';

const MIB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const codeOf = (r: { body: unknown }) => (r.body as { error: { code: string } }).error.code;

/**
 * Counts the bytes a server reads of its objects, by any check, from its start on. Its storage is
 * the outage guard around the disk store, which takes a method from the store when first asked
 * for it: the store's own readRange (read past the guard, as its property) is replaced on the
 * store before that. So: once per server, before its first read.
 */
function countReads(storage: Storage): { bytes: number } {
  const counted = { bytes: 0 };
  const readRange = Object.getOwnPropertyDescriptor(storage, 'readRange')!.value as Storage['readRange'];
  Object.defineProperty(storage, 'readRange', {
    value: async (...args: Parameters<Storage['readRange']>) => {
      const bytes = await readRange(...args);
      counted.bytes += bytes.length;
      return bytes;
    },
  });
  return counted;
}

describe.skipIf(onS3)('one receiver for the disk store’s PUTs', () => {
  it('a disk error on a part PUT is 503 unavailable with the shared Retry-After, like a single PUT’s', async () => {
    const t = await startTestServer({ clock: 'real', writeError: 'EIO' });
    try {
      const key = await t.key();
      const f: FileSpec = { fileName: 'long.mp4', contentType: 'video/mp4', bytes: mp4(30, { size: 20 * MIB }) };
      const p = await presign(t, key, f, { multipart: true });
      expect((p.body as { multipart?: unknown }).multipart).toBeDefined();
      const parts = await call<{ parts: { url: string; headers: Record<string, string> }[] }>(
        'POST',
        `${t.url}/api/v1/upload/parts`,
        { key, json: { key: p.body.key, partNumbers: [1] } },
      );
      expect(parts.status, parts.text).toBe(200);
      const part = parts.body.parts[0]!;
      const res = await call('PUT', part.url, {
        body: f.bytes.subarray(0, 8 * MIB),
        headers: { 'content-type': part.headers['Content-Type']! },
      });
      expect([res.status, codeOf(res)], res.text).toEqual([503, 'unavailable']);
      expect(res.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));

      const single = image('single.jpg', 64 * 1024);
      const sp = await presign(t, key, single);
      const r = await put(sp.body.presignedUrl, single);
      expect([r.status, codeOf(r), r.headers['retry-after']]).toEqual([
        503,
        'unavailable',
        String(RETRY_AFTER_SECONDS),
      ]);
    } finally {
      await t.dispose();
    }
  });

  it('a part PUT with an Authorization header is refused as a single PUT is', async () => {
    const t = await startTestServer({ clock: 'real' });
    try {
      const key = await t.key();
      const f: FileSpec = { fileName: 'long.mp4', contentType: 'video/mp4', bytes: mp4(30, { size: 20 * MIB }) };
      const p = await presign(t, key, f, { multipart: true });
      const parts = await call<{ parts: { url: string; headers: Record<string, string> }[] }>(
        'POST',
        `${t.url}/api/v1/upload/parts`,
        { key, json: { key: p.body.key, partNumbers: [1] } },
      );
      const part = parts.body.parts[0]!;
      const res = await call('PUT', part.url, {
        key,
        body: f.bytes.subarray(0, 8 * MIB),
        headers: { 'content-type': part.headers['Content-Type']! },
      });
      expect([res.status, codeOf(res)]).toEqual([400, 'invalid_argument']);
    } finally {
      await t.dispose();
    }
  });
});

describe.skipIf(onS3)('a single PUT hashed as it lands (issue 41)', () => {
  let t: TestServer;
  let key: string;
  let reads: { bytes: number };
  beforeAll(async () => {
    t = await startTestServer();
    reads = countReads(t.storage);
    key = await t.key();
  });
  afterAll(() => t?.dispose());

  /** A photo of 1 MiB: far more bytes than the checks of its type read (its first bytes). */
  const photo = (name: string) => image(name, MIB);

  async function presignAndPut(f: FileSpec, declare = true) {
    const p = await presign(t, key, f, declare ? { sha256: sha256(f.bytes) } : {});
    expect(p.status, p.text).toBe(200);
    const r = await put(p.body.presignedUrl, f);
    expect(r.status, r.text).toBe(200);
    return p.body;
  }

  it('complete verifies the checksum without reading the file again, declared or not', async () => {
    for (const declare of [true, false]) {
      const f = photo(`landed-${declare}.jpg`);
      const p = await presignAndPut(f, declare);
      const before = reads.bytes;
      const c = await complete(t, key, p.key, f, p.type);
      expect(c.status, c.text).toBe(200);
      expect(c.body.item.sha256).toBe(sha256(f.bytes));
      // The magic bytes only: a few KiB of the MiB.
      expect(reads.bytes - before).toBeGreaterThan(0);
      expect(reads.bytes - before).toBeLessThan(64 * 1024);
    }
  });

  it('after a restart between PUT and complete, complete reads the file to hash it', async () => {
    const f = photo('restarted.jpg');
    const p = await presignAndPut(f);
    await t.restart();
    reads = countReads(t.storage);
    const c = await complete(t, key, p.key, f, p.type);
    expect(c.status, c.text).toBe(200);
    expect(c.body.item.sha256).toBe(sha256(f.bytes));
    expect(reads.bytes).toBeGreaterThanOrEqual(f.bytes.length);
  });

  it('wrong bytes are refused: by the PUT when declared, and at complete once they changed after it', async () => {
    const f = photo('wrong.jpg');
    const p = await presign(t, key, f, { sha256: sha256(f.bytes) });
    const other = { ...f, bytes: Buffer.concat([f.bytes.subarray(0, f.bytes.length - 1), Buffer.from([1])]) };
    const r = await put(p.body.presignedUrl, other);
    expect([r.status, codeOf(r)]).toEqual([400, 'bad_digest']);
    // Right bytes at the PUT, changed on disk before complete (a new version): the hash taken as
    // they landed is not that version's, so complete reads them, and refuses them.
    expect((await put(p.body.presignedUrl, f)).status).toBe(200);
    const file = await open(t.disk!.pathOf(stagingKeyOf(p.body.fileId)), 'r+');
    await file.write(Buffer.from([0]), 0, 1, f.bytes.length - 1);
    await file.close();
    const c = await complete(t, key, p.body.key, f, p.body.type);
    expect([c.status, codeOf(c)]).toEqual([400, 'bad_digest']);
  });
});
