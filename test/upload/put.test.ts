// The storage PUT at the wire: exact headers, no Authorization, no chunking, a fresh stream from
// byte 0 on each try, expiry read from the URL. A bare node:http server records what arrives
// (it stands in for a third-party object store, not for our server).
import { type Hash, createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { mkdtemp, open, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { StorageError } from '../../src/api/errors.js';
import {
  FileChangedError,
  READ_RING,
  READ_SLICE_BYTES,
  expiresTooSoon,
  fileSlices,
  presignAndPut,
  putOnce,
} from '../../src/upload/send/put.js';
import { redactUrl, urlExpiry } from '../../src/api/storage-url.js';

interface Seen {
  headers: IncomingHttpHeaders;
  bytes: number;
  hash: Hash;
}

let dir: string;
let server: Server;
let base: string;
let seen: Seen[];
/** What the next requests answer: a status and body, or 'drop' to kill the socket after 10 bytes. */
let script: Array<{ status: number; body?: string } | 'drop'>;
let slowReader = false;
const dispatcher = new Agent();
afterAll(() => dispatcher.close());

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-put-'));
  seen = [];
  script = [];
  slowReader = false;
  server = createServer((req, res) => {
    const entry: Seen = { headers: req.headers, bytes: 0, hash: createHash('sha256') };
    seen.push(entry);
    const next = script.shift() ?? { status: 200 };
    req.on('data', (c: Buffer) => {
      entry.bytes += c.length;
      entry.hash.update(c);
      if (next === 'drop' && entry.bytes > 10) req.socket.destroy();
      // A slow reader: the client's socket fills up and it must wait for 'drain' between slices.
      if (slowReader) {
        req.pause();
        setTimeout(() => req.resume(), 2);
      }
    });
    req.on('end', () => {
      if (next === 'drop') return;
      res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
});

afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

async function file(size: number) {
  const path = join(dir, `f-${size}.bin`);
  await writeFile(path, Buffer.alloc(size, 7));
  const st = await stat(path);
  return { path, size, mtimeMs: st.mtimeMs };
}

const presigned = (n = 0) => ({
  presignedUrl: `${base}/storage/u/f/a.mp4?expires=${Math.floor(Date.now() / 1000) + 3600}&signature=${n}`,
  key: `u/f${n}/a.mp4`,
  fileId: `f${n}`,
  type: 'shortform' as const,
});

describe('putOnce', () => {
  it('sends exactly the signed Content-Type and Content-Length, no Authorization, no chunking', async () => {
    const f = await file(5 * 1024 * 1024 + 3);
    const progress: number[] = [];
    await putOnce(f, presigned().presignedUrl, 'video/mp4', {
      dispatcher,
      now: () => new Date(),
      onSent: (n) => progress.push(n),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.bytes).toBe(f.size);
    expect(seen[0]!.headers['content-type']).toBe('video/mp4');
    expect(seen[0]!.headers['content-length']).toBe(String(f.size));
    expect(seen[0]!.headers['transfer-encoding']).toBeUndefined();
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(progress.at(-1)).toBe(f.size);
    // Large slices: a 5 MB file goes in a handful of reads, not hundreds.
    expect(progress.length).toBeLessThanOrEqual(4);
  });

  // The read buffers are reused (fileSlices): a buffer refilled before the socket took it would
  // send wrong bytes with the right length. Random bytes over many slices, fast and slow readers.
  it.each([
    ['a fast reader', false],
    ['a slow reader (the socket fills up)', true],
  ])('stores exactly the bytes of the file, over many reused read buffers, with %s', async (_name, slow) => {
    slowReader = slow;
    const size = READ_SLICE_BYTES * (READ_RING * 2 + 1) + 12_345;
    const path = join(dir, 'random.bin');
    const bytes = randomBytes(size);
    await writeFile(path, bytes);
    const st = await stat(path);
    await putOnce({ path, size, mtimeMs: st.mtimeMs }, presigned().presignedUrl, 'video/mp4', {
      dispatcher,
      now: () => new Date(),
    });
    expect(seen[0]!.bytes).toBe(size);
    expect(seen[0]!.hash.digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  // A part sender passes the same ring again for its next part (src/upload/send/parts.ts).
  it('reads ranges into the ring it is given, the same buffers again for the next range, each range exact', async () => {
    const bytes = randomBytes(3 * READ_SLICE_BYTES + 777);
    const path = join(dir, 'ranges.bin');
    await writeFile(path, bytes);
    const st = await stat(path);
    const f = { path, size: bytes.length, mtimeMs: st.mtimeMs };
    const ring: Buffer[] = [];
    const handle = await open(path, 'r');
    try {
      const read = async (start: number, end: number) => {
        const got: Buffer[] = [];
        for await (const slice of fileSlices(handle, f, { start, end }, READ_SLICE_BYTES, ring))
          got.push(Buffer.from(slice));
        return Buffer.concat(got);
      };
      expect((await read(0, 2 * READ_SLICE_BYTES + 5)).equals(bytes.subarray(0, 2 * READ_SLICE_BYTES + 5))).toBe(true);
      const filled = [...ring];
      expect(filled).toHaveLength(READ_RING);
      // A shorter last range after a longer one: read into the same (larger) buffers, no more bytes.
      const tail = await read(3 * READ_SLICE_BYTES, bytes.length);
      expect(tail.equals(bytes.subarray(3 * READ_SLICE_BYTES))).toBe(true);
      expect(ring).toHaveLength(READ_RING);
      ring.forEach((b, i) => expect(b).toBe(filled[i]));
    } finally {
      await handle.close();
    }
  });

  it('reads a file that shrinks underneath it as a changed file, never as a short success', async () => {
    const f = await file(3 * READ_SLICE_BYTES);
    const handle = await open(f.path, 'r');
    try {
      const slices = fileSlices(handle, f);
      const first = await slices.next();
      expect(first.value).toHaveLength(READ_SLICE_BYTES);
      await truncate(f.path, READ_SLICE_BYTES);
      // The slice read ahead may have been read before the truncation (then the next read finds
      // the end) or after it (then this one does): the thread pool decides, not the test.
      const second = await slices.next().then(
        () => undefined,
        (err: unknown) => err,
      );
      if (second === undefined) await expect(slices.next()).rejects.toThrow(FileChangedError);
      else expect(second).toBeInstanceOf(FileChangedError);
    } finally {
      await handle.close();
    }
  });

  it('turns a storage error body into a StorageError with its code', async () => {
    const f = await file(100);
    script.push({
      status: 403,
      body: JSON.stringify({ error: { code: 'content_type_mismatch', message: 'Content-Type differs' } }),
    });
    const err = await putOnce(f, presigned().presignedUrl, 'video/mp4', { dispatcher, now: () => new Date() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe('content_type_mismatch');
    expect((err as StorageError).url).not.toMatch(/signature=/);
  });
});

describe('presignAndPut', () => {
  const opts = (presign: () => Promise<ReturnType<typeof presigned>>, retries: string[]) => ({
    dispatcher,
    now: () => new Date(),
    sleep: async () => {},
    policy: NO_WAIT_RETRY,
    presign,
    onRetry: (i: { reason: string }) => retries.push(i.reason),
  });

  it('restarts from byte 0 on a fresh stream after a dropped connection', async () => {
    const f = await file(64 * 1024);
    script.push('drop', 'drop');
    const retries: string[] = [];
    await presignAndPut(
      f,
      'video/mp4',
      opts(async () => presigned(), retries),
    );
    expect(retries).toHaveLength(2);
    expect(seen).toHaveLength(3);
    expect(seen[2]!.bytes).toBe(f.size);
  });

  it('presigns again on 403 expired, and not on a signature mismatch', async () => {
    const f = await file(100);
    let n = 0;
    script.push({ status: 403, body: JSON.stringify({ error: { code: 'expired', message: 'the URL has expired' } }) });
    const retries: string[] = [];
    const used = await presignAndPut(
      f,
      'video/mp4',
      opts(async () => presigned(++n), retries),
    );
    expect(n).toBe(2);
    expect(used.key).toBe('u/f2/a.mp4');
    expect(retries[0]).toMatch(/expired/);

    script.push({
      status: 403,
      body: JSON.stringify({ error: { code: 'signature_mismatch', message: 'bad signature' } }),
    });
    const again: string[] = [];
    await expect(
      presignAndPut(
        f,
        'video/mp4',
        opts(async () => presigned(++n), again),
      ),
    ).rejects.toMatchObject({ code: 'signature_mismatch' });
    expect(again).toHaveLength(0);
  });

  it('presigns again before a retry when the URL it holds would expire before the file is sent', async () => {
    const f = await file(100);
    let now = Date.now();
    let n = 0;
    script.push('drop');
    const retries: string[] = [];
    const used = await presignAndPut(f, 'video/mp4', {
      ...opts(
        async () => ({
          ...presigned(++n),
          presignedUrl: `${base}/storage/k?expires=${Math.floor(now / 1000) + 3600}&signature=${n}`,
        }),
        retries,
      ),
      now: () => new Date(now),
      // The backoff wait before the retry lasts 59 min 50 s: the URL has 10 s left.
      sleep: async () => {
        now += 3590_000;
      },
    });
    expect(n).toBe(2);
    expect(used.key).toBe('u/f2/a.mp4');
    expect(seen).toHaveLength(2);
  });

  it('understands S3 XML errors: an expired request is presigned again', async () => {
    const f = await file(100);
    let n = 0;
    script.push({
      status: 403,
      body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
    });
    await presignAndPut(
      f,
      'video/mp4',
      opts(async () => presigned(++n), []),
    );
    expect(n).toBe(2);
  });
});

describe('URL expiry', () => {
  it('reads ours and S3 v4 and v2', () => {
    expect(urlExpiry('http://x/storage/k?expires=1700000000&signature=ab')?.toISOString()).toBe(
      '2023-11-14T22:13:20.000Z',
    );
    expect(
      urlExpiry(
        'https://b.s3.amazonaws.com/k?X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-Signature=x',
      )?.toISOString(),
    ).toBe('2026-01-01T01:00:00.000Z');
    expect(urlExpiry('https://b.s3.amazonaws.com/k?Expires=1700000000&Signature=x')?.getTime()).toBe(1_700_000_000_000);
    expect(urlExpiry('http://x/k')).toBeUndefined();
  });

  it('judges whether a file can be sent before the URL dies, at a conservative speed', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const url = 'http://x/k?expires=' + (now.getTime() / 1000 + 600); // 10 minutes left
    expect(expiresTooSoon(url, 100 * 1024 * 1024, now)).toBe(false); // 100 MB: ~100 s + margin
    expect(expiresTooSoon(url, 1024 * 1024 * 1024, now)).toBe(true); // 1 GB: ~17 min
  });

  it('never shows the signature', () => {
    expect(redactUrl('http://x/storage/k?expires=1&signature=secret')).toBe('http://x/storage/k?[signed]');
  });
});
