// sendParts against the real server's multipart extension (disk store): every part sent, in
// parallel, assembling to the exact bytes; a resumed run sends only the missing parts; an
// expired part URL is signed again; a file changed since the start is never sent; the read
// buffers and the file handle are shared by the parts, and the bytes stay exact.
import fs from 'node:fs';
import { type FileHandle, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { FileChangedError, type LocalFile } from '../../src/upload/send/put.js';
import { type SentPart, sendParts, sharedHandle, sliceRings } from '../../src/upload/send/parts.js';
import { pacedRead } from '../../src/upload/send/paced-read.js';
import { SLOW_IN_A_ROW } from '../../src/fs/slow-pace.js';
import { onS3 } from '../support/backend.js';
import { HAS_BINDFS, fuseMount } from '../support/fuse-mount.js';
import { skipWithout } from '../support/needs.js';
import { type TestServer, mp4, serverWithKey } from '../support/server.js';

const MIB = 1024 * 1024;
let s: TestServer;
let api: ApiClient;
let dir: string;
const bytes = mp4(30, { size: 20 * MIB + 5 });

beforeAll(async () => {
  const started = await serverWithKey();
  s = started.s;
  api = createApiClient({ baseUrl: s.url, apiKey: started.key, retry: NO_WAIT_RETRY });
  dir = await mkdtemp(join(tmpdir(), 'contentlib-parts-'));
});
afterAll(async () => {
  await api?.close();
  await s?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function localFile(name: string): Promise<LocalFile> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  const st = await stat(path);
  return { path, size: st.size, mtimeMs: st.mtimeMs };
}

async function start(name: string) {
  const p = await api.presign({ fileName: name, contentType: 'video/mp4', fileSize: bytes.length, multipart: true });
  expect(p.multipart).toEqual({ partSize: 8 * MIB, partCount: 3 });
  return { key: p.key, plan: p.multipart! };
}

const options = (extra: Partial<Parameters<typeof sendParts>[3]> = {}) => ({
  api,
  dispatcher: api.dispatcher,
  concurrency: 3,
  policy: NO_WAIT_RETRY,
  sleep: async () => {},
  now: () => new Date(),
  ...extra,
});

async function completeWith(name: string, key: string, parts: SentPart[]) {
  return api.complete({
    key,
    fileName: name,
    contentType: 'video/mp4',
    fileSize: bytes.length,
    type: 'shortform',
    parts,
  });
}

describe.skipIf(onS3)('sendParts', () => {
  it('sends every part in parallel and the service assembles the exact bytes', async () => {
    const file = await localFile('all.mp4');
    const { key, plan } = await start('all.mp4');
    const seen: number[] = [];
    const parts = await sendParts(file, key, plan, options({ onPart: (p) => seen.push(p.bytes) }));
    expect(parts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(bytes.length);
    const done = await completeWith('all.mp4', key, parts);
    const got = Buffer.from(await (await fetch(done.item.fileUrl!)).arrayBuffer());
    expect(got.equals(bytes)).toBe(true);
  });

  it('a resumed run sends only the parts the service lacks, and signs an expired URL again', async () => {
    const file = await localFile('resume.mp4');
    const { key, plan } = await start('resume.mp4');
    const first = await sendParts(file, key, { ...plan }, options({ concurrency: 1, done: [] }));
    // As after an interrupted run: parts 1 and 3 are kept, part 2 must go again.
    const kept = first.filter((p) => p.partNumber !== 2);
    const sent: number[] = [];
    // The server's clock moves past the URLs' hour between signing and sending: each is signed again.
    let moved = false;
    const resumed = await sendParts(
      file,
      key,
      plan,
      options({
        done: kept,
        onPart: (p) => sent.push(p.partNumber),
        api: {
          ...api,
          parts: async (body, o) => {
            const answer = await api.parts(body, o);
            if (!moved) {
              moved = true;
              s.clock.advance(3601_000);
            } else s.clock.advance(-3601_000);
            return answer;
          },
        },
      }),
    );
    expect(moved).toBe(true);
    expect(sent).toEqual([2]);
    const done = await completeWith('resume.mp4', key, resumed);
    expect(done.item.fileSize).toBe(bytes.length);
  });

  it('never sends a file changed since the upload started', async () => {
    const file = await localFile('changed.mp4');
    const { key, plan } = await start('changed.mp4');
    await expect(sendParts({ ...file, mtimeMs: file.mtimeMs - 5000 }, key, plan, options())).rejects.toBeInstanceOf(
      FileChangedError,
    );
    expect((await api.parts({ key })).uploaded).toEqual([]);
  });
});

describe.skipIf(onS3)('sendParts reuses what it reads with', () => {
  /** The parts' URLs of the first `parts` call expire on the way (the server's clock jumps an hour). */
  function expiringOnce() {
    let calls = 0;
    return {
      ...api,
      parts: async (body: Parameters<ApiClient['parts']>[0], o?: Parameters<ApiClient['parts']>[1]) => {
        const answer = await api.parts(body, o);
        calls++;
        if (calls === 1) s.clock.advance(3601_000);
        else if (calls === 2) s.clock.advance(-3601_000);
        return answer;
      },
    };
  }

  it.each([
    ['one part at a time (each part reads into the ring the one before gave back)', {}],
    ['a part refused on the way and sent again (its ring is not given back)', { api: expiringOnce() }],
    ['the reads turned to the thread pool partway (the disk judged slow: paced-read.ts)', { read: pacedRead(-1) }],
  ])('%s: the service assembles the exact bytes', async (_name, extra) => {
    const file = await localFile('ring.mp4');
    const { key, plan } = await start('ring.mp4');
    const parts = await sendParts(file, key, plan, options({ concurrency: 1, ...extra }));
    const done = await completeWith('ring.mp4', key, parts);
    const got = Buffer.from(await (await fetch(done.item.fileUrl!)).arrayBuffer());
    expect(got.equals(bytes)).toBe(true);
  });

  it('rings: a ring given back is the next one taken; rings taken at once are distinct', () => {
    const rings = sliceRings();
    const a = rings.take();
    const b = rings.take();
    expect(a).not.toBe(b);
    a.push(Buffer.alloc(1));
    rings.giveBack(a);
    expect(rings.take()).toBe(a);
    expect(rings.take()).not.toBe(a);
  });

  it('one handle: shared by the parts in flight, closed after the last, opened again by a later one', async () => {
    const file = await localFile('handle.mp4');
    const withHandle = sharedHandle(file.path);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const seen: Array<{ fd: number }> = [];
    const first = withHandle(async (h) => {
      seen.push(h);
      await held;
    });
    const second = withHandle(async (h) => {
      seen.push(h);
      await held;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    release();
    await Promise.all([first, second]);
    expect(seen[0]!.fd).toBe(-1); // closed
    const later = await withHandle(async (h) => h);
    expect(later).not.toBe(seen[0]);
    expect(later.fd).toBe(-1);
  });

  it('one handle: a failed open is not kept; the next part opens the file again', async () => {
    const path = join(dir, 'appears-later.mp4');
    const withHandle = sharedHandle(path);
    await expect(withHandle(async () => 'read')).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFile(path, 'now it is here');
    expect(await withHandle(async (h) => (await h.stat()).size)).toBe(14);
  });
});

describe.skipIf(onS3 || skipWithout('bindfs', HAS_BINDFS, 'apt-get install bindfs'))(
  'sendParts of a file on a share that may stall (a real FUSE mount: src/fs/stalling-fs.ts)',
  () => {
    it('reads every slice through the thread pool, never synchronously; a local file reads none so; the bytes exact', async () => {
      const fuse = await fuseMount();
      // FileHandle's class, from any handle: the pool's reads are its `read` (put.ts readThroughPool).
      const probe = await open(fuse.source, 'r');
      const throughPool = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, 'read');
      await probe.close();
      // The synchronous reads (paced-read.ts's readSync): node:fs's ES module bindings follow the
      // CommonJS object once syncBuiltinESMExports is called.
      const realReadSync = fs.readSync;
      let synchronous = 0;
      fs.readSync = ((...args: Parameters<typeof fs.readSync>) => (
        synchronous++,
        Reflect.apply(realReadSync, fs, args)
      )) as typeof fs.readSync;
      syncBuiltinESMExports();
      try {
        await writeFile(join(fuse.source, 'shared.mp4'), bytes);
        for (const [name, path, pooled] of [
          ['local.mp4', (await localFile('local.mp4')).path, false],
          ['shared.mp4', join(fuse.mountpoint, 'shared.mp4'), true],
        ] as const) {
          throughPool.mockClear();
          synchronous = 0;
          const st = await stat(path);
          const { key, plan } = await start(name);
          const parts = await sendParts({ path, size: st.size, mtimeMs: st.mtimeMs }, key, plan, options());
          // 20 MiB in 1 MiB slices: on the mount none read synchronously, each of the 21 through
          // the pool (a few more when a read comes back short or a part is sent again, as on a
          // loaded CI machine). Locally the first SLOW_IN_A_ROW at least are synchronous (the rest
          // too, unless the machine is so loaded that they are slow: paced-read.ts).
          if (pooled) {
            expect(synchronous, name).toBe(0);
            expect(throughPool.mock.calls.length, name).toBeGreaterThanOrEqual(Math.ceil(bytes.length / MIB));
          } else expect(synchronous, name).toBeGreaterThanOrEqual(SLOW_IN_A_ROW);
          const done = await completeWith(name, key, parts);
          expect(Buffer.from(await (await fetch(done.item.fileUrl!)).arrayBuffer()).equals(bytes)).toBe(true);
        }
      } finally {
        fs.readSync = realReadSync;
        syncBuiltinESMExports();
        throughPool.mockRestore();
        await fuse.dispose();
      }
    });
  },
);
