// One file out of a real server on 127.0.0.1: streamed to a part file, checked and renamed; a
// transfer cut mid-body (a proxy resets the connection) resumes with Range and ends byte for
// byte; a part file left by an earlier run is resumed; bytes that are not the file (a damaged
// stored copy, a part file of something else) are refused and the part file removed.
import { createHash } from 'node:crypto';
import { type FileHandle, mkdtemp, open, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { MismatchError } from '../../src/download/errors.js';
import { type FetchDeps, fetchToFile, fetchToStream, rangeStart } from '../../src/download/fetch.js';
import { PassThrough } from 'node:stream';
import { type CuttingProxy, startCuttingProxy } from '../support/cutting-proxy.js';
import { HAS_BINDFS, fuseMount } from '../support/fuse-mount.js';
import { skipWithout } from '../support/needs.js';
import { type TestServer, mp4, serverWithKey, uploadItem } from '../support/server.js';

const SIZE = 3 * 1024 * 1024;
const bytes = mp4(10, { size: SIZE });
const sha = createHash('sha256').update(bytes).digest('hex');

let s: TestServer;
let key: string;
let dir: string;
let itemId: string;

beforeAll(async () => {
  ({ s, key } = await serverWithKey());
  itemId = (await uploadItem(s, key, { fileName: 'big.mp4', contentType: 'video/mp4', bytes })).item.id;
});
afterAll(async () => s?.dispose());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-fetch-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A client of `base` (the server, or a proxy in front of it): the URLs it gets point there. */
function clientOf(base: string) {
  return createApiClient({ baseUrl: base, apiKey: key, retry: NO_WAIT_RETRY });
}

function depsOf(client: ReturnType<typeof clientOf>, over: Partial<FetchDeps> = {}) {
  const events: Array<{ kind: string; from?: number; have?: number }> = [];
  const deps: FetchDeps = {
    http: client.http,
    policy: NO_WAIT_RETRY,
    sleep: async () => {},
    now: () => new Date(),
    signal: new AbortController().signal,
    onStart: (from) => events.push({ kind: 'start', from }),
    onRetry: ({ from }) => events.push({ kind: 'retry', from }),
    ...over,
  };
  return { deps, events };
}

async function remoteFile(client: ReturnType<typeof clientOf>, extra: { sha256?: string } = {}) {
  const { item } = await client.get(itemId);
  return { url: item.fileUrl!, size: item.fileSize!, ...extra };
}

describe('fetchToFile', () => {
  it('streams the file into place through a part file, with its SHA-256', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const { deps, events } = depsOf(client);
    const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, `${dest}.x.part`, deps);
    expect(got).toMatchObject({ bytes: SIZE, sha256: sha, resumedFrom: 0 });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(await readdir(dir)).toEqual(['big.mp4']);
    expect(events).toEqual([{ kind: 'start', from: 0 }]);
    await client.close();
  });

  describe('through a proxy that resets the connection after 1 MiB', () => {
    let proxy: CuttingProxy;
    let behind: TestServer;
    let behindId: string;
    let behindKey: string;
    beforeEach(async () => {
      let target = '';
      proxy = await startCuttingProxy(() => target, { cutAfter: 1024 * 1024, cuts: 1 });
      ({ s: behind, key: behindKey } = await serverWithKey({ publicUrl: proxy.url }));
      target = behind.url;
      behindId = (await uploadItem(behind, behindKey, { fileName: 'big.mp4', contentType: 'video/mp4', bytes })).item
        .id;
    });
    afterEach(async () => {
      await proxy.close();
      await behind.dispose();
    });
    const fileBehind = async (client: ReturnType<typeof clientOf>) => {
      const { item } = await client.get(behindId);
      return { url: item.fileUrl!, size: item.fileSize! };
    };

    it('resumes with Range from the bytes on disk and ends byte-identical', async () => {
      const client = createApiClient({ baseUrl: proxy.url, apiKey: behindKey, retry: NO_WAIT_RETRY });
      const dest = join(dir, 'big.mp4');
      const { deps, events } = depsOf(client);
      const got = await fetchToFile(await fileBehind(client), dest, `${dest}.x.part`, deps);
      expect(proxy.cut()).toBe(1);
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      expect(got.sha256).toBe(sha);
      const retry = events.find((e) => e.kind === 'retry')!;
      expect(retry.from).toBeGreaterThan(0);
      expect(events.at(-1)).toEqual({ kind: 'start', from: retry.from });
      // The second try fetched the rest, not the whole file again (what the reset dropped in
      // flight, up to a socket buffer or two, is fetched again).
      expect(proxy.bytesOut()).toBeLessThan(SIZE + 512 * 1024);
      await client.close();
    });

    it('to a stream (stdout) as well: the rest follows what was written', async () => {
      const client = createApiClient({ baseUrl: proxy.url, apiKey: behindKey, retry: NO_WAIT_RETRY });
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      const { deps } = depsOf(client);
      const got = await fetchToStream(await fileBehind(client), out, deps, 'stdout');
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(got.sha256).toBe(sha);
      expect(proxy.cut()).toBe(1);
      expect(proxy.bytesOut()).toBeLessThan(SIZE + 512 * 1024);
      await client.close();
    });
  });

  it('resumes a part file an earlier run left, fetching only the rest', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const part = `${dest}.x.part`;
    await writeFile(part, bytes.subarray(0, 1_000_000));
    const { deps, events } = depsOf(client);
    const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, part, deps);
    expect(got).toMatchObject({ bytes: SIZE, resumedFrom: 1_000_000, sha256: sha });
    expect(events).toEqual([{ kind: 'start', from: 1_000_000 }]);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    await client.close();
  });

  it('a part file of other bytes fails the SHA-256 check: reported, the part removed, nothing in place', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const part = `${dest}.x.part`;
    await writeFile(part, Buffer.alloc(1_000_000, 7));
    const { deps } = depsOf(client);
    const err = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, part, deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MismatchError);
    expect(err).toMatchObject({ kind: 'sha256', expected: sha, path: dest });
    expect(await readdir(dir)).toEqual([]);
    await client.close();
  });

  it('a part file longer than the file is started over', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const part = `${dest}.x.part`;
    await writeFile(part, Buffer.alloc(SIZE + 10, 1));
    const { deps, events } = depsOf(client);
    await fetchToFile(await remoteFile(client, { sha256: sha }), dest, part, deps);
    expect(events).toEqual([{ kind: 'start', from: 0 }]);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    await client.close();
  });

  it('an expired URL is fetched afresh and the transfer goes on', async () => {
    const client = clientOf(s.url);
    const file = await remoteFile(client);
    s.clock.advance(2 * 60 * 60 * 1000);
    const dest = join(dir, 'big.mp4');
    let refreshed = 0;
    const { deps } = depsOf(client, {
      refreshUrl: async () => {
        refreshed++;
        return (await client.get(itemId)).item.fileUrl!;
      },
    });
    await fetchToFile(file, dest, `${dest}.x.part`, deps);
    expect(refreshed).toBe(1);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    await client.close();
  });
});

describe('hashed on a worker thread (hashThreadMinBytes 0, as a large file is)', () => {
  const onThread = { hashThreadMinBytes: 0 };

  it('streams the file into place with its SHA-256', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const { deps } = depsOf(client, onThread);
    const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, `${dest}.x.part`, deps);
    expect(got).toMatchObject({ bytes: SIZE, sha256: sha, resumedFrom: 0 });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    await client.close();
  });

  it('resumes a part file an earlier run left, its bytes read by the worker', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const part = `${dest}.x.part`;
    await writeFile(part, bytes.subarray(0, 1_000_000));
    const { deps } = depsOf(client, onThread);
    const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, part, deps);
    expect(got).toMatchObject({ bytes: SIZE, resumedFrom: 1_000_000, sha256: sha });
    await client.close();
  });

  it('a part file of other bytes fails the SHA-256 check, the part removed', async () => {
    const client = clientOf(s.url);
    const dest = join(dir, 'big.mp4');
    const part = `${dest}.x.part`;
    await writeFile(part, Buffer.alloc(1_000_000, 7));
    const { deps } = depsOf(client, onThread);
    const err = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, part, deps).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MismatchError', kind: 'sha256', expected: sha });
    expect(await readdir(dir)).toEqual([]);
    await client.close();
  });
});

describe('on a disk slower than syncWriteMs (-1: every write is), writes go through the thread pool', () => {
  it('and the file still ends whole, with its SHA-256, hashed in-thread or on a worker', async () => {
    const client = clientOf(s.url);
    for (const hashThreadMinBytes of [Infinity, 0]) {
      const dest = join(dir, `big-${hashThreadMinBytes}.mp4`);
      const { deps } = depsOf(client, { syncWriteMs: -1, hashThreadMinBytes });
      const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, `${dest}.x.part`, deps);
      expect(got).toMatchObject({ bytes: SIZE, sha256: sha });
      expect((await readFile(dest)).equals(bytes)).toBe(true);
    }
    await client.close();
  });
});

describe.skipIf(skipWithout('bindfs', HAS_BINDFS, 'apt-get install bindfs'))(
  'into a folder on a share that may stall (a real FUSE mount: src/fs/stalling-fs.ts)',
  () => {
    it('no write is synchronous, through node:http or the raw reader; locally none goes through the pool; the file whole', async () => {
      const fuse = await fuseMount();
      const probe = await open(fuse.source, 'r');
      const fileHandle = Object.getPrototypeOf(probe) as FileHandle;
      await probe.close();
      const writev = vi.spyOn(fileHandle, 'writev');
      const write = vi.spyOn(fileHandle, 'write');
      const throughPool = [writev, write];
      const client = clientOf(s.url);
      try {
        for (const rawMinBytes of [Infinity, 0])
          for (const [where, folder, pooled, stalls] of [
            ['local', dir, false, undefined],
            ['on the mount', fuse.mountpoint, true, undefined],
            // The caller's word, asked once for all its files (export), is taken as it is.
            ['local, said to stall by the caller', dir, true, true],
          ] as const) {
            for (const spy of throughPool) spy.mockClear();
            const dest = join(folder, `shared-${rawMinBytes}-${String(stalls)}.mp4`);
            const { deps } = depsOf(client, { rawMinBytes, ...(stalls ? { stalls } : {}) });
            const got = await fetchToFile(await remoteFile(client, { sha256: sha }), dest, `${dest}.x.part`, deps);
            expect(got).toMatchObject({ bytes: SIZE, sha256: sha });
            expect((await readFile(dest)).equals(bytes)).toBe(true);
            // On the mount every byte is written through the pool; locally the first
            // SLOW_IN_A_ROW writes at least are synchronous (the rest too, unless the machine is
            // so loaded that they are slow: then the pace sends them to the pool).
            const pooledBytes =
              writev.mock.calls.reduce((n, [buffers]) => n + buffers.reduce((m, b) => m + b.byteLength, 0), 0) +
              write.mock.calls.reduce((n, call) => n + (call[0] as unknown as Buffer).length - Number(call[1] ?? 0), 0);
            if (pooled) expect(pooledBytes, `${where}, rawMinBytes ${rawMinBytes}`).toBe(SIZE);
            else expect(pooledBytes, `${where}, rawMinBytes ${rawMinBytes}`).toBeLessThan(SIZE);
          }
      } finally {
        for (const spy of throughPool) spy.mockRestore();
        await client.close();
        await fuse.dispose();
      }
    });
  },
);

describe('a damaged stored copy', () => {
  it('of another size: a size mismatch, the part file removed', async () => {
    const { s: own, key: ownKey } = await serverWithKey();
    try {
      const done = await uploadItem(own, ownKey, { fileName: 'cut.mp4', contentType: 'video/mp4', bytes });
      await truncate(own.disk!.pathOf(done.storageKey), SIZE - 100);
      const client = createApiClient({ baseUrl: own.url, apiKey: ownKey, retry: NO_WAIT_RETRY });
      const { item } = await client.get(done.item.id);
      const dest = join(dir, 'cut.mp4');
      const { deps } = depsOf(client);
      const err = await fetchToFile({ url: item.fileUrl!, size: item.fileSize! }, dest, `${dest}.x.part`, deps).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({
        name: 'MismatchError',
        kind: 'size',
        expected: String(SIZE),
        actual: String(SIZE - 100),
      });
      expect(await readdir(dir)).toEqual([]);
      await client.close();
    } finally {
      await own.dispose();
    }
  });

  it('with a byte changed: a SHA-256 mismatch where the library knows the checksum', async () => {
    const { s: own, key: ownKey } = await serverWithKey();
    try {
      const done = await uploadItem(own, ownKey, { fileName: 'flip.mp4', contentType: 'video/mp4', bytes });
      const path = own.disk!.pathOf(done.storageKey);
      const stored = await readFile(path);
      stored.writeUInt8(stored.readUInt8(SIZE - 1) ^ 0xff, SIZE - 1);
      await writeFile(path, stored);
      const client = createApiClient({ baseUrl: own.url, apiKey: ownKey, retry: NO_WAIT_RETRY });
      const { item } = await client.get(done.item.id);
      const dest = join(dir, 'flip.mp4');
      const { deps } = depsOf(client);
      const err = await fetchToFile(
        { url: item.fileUrl!, size: SIZE, sha256: sha },
        dest,
        `${dest}.x.part`,
        deps,
      ).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'MismatchError', kind: 'sha256', expected: sha });
      expect(await readdir(dir)).toEqual([]);
      await client.close();
    } finally {
      await own.dispose();
    }
  });
});

describe('rangeStart', () => {
  it.each([
    ['bytes 100-199/200', 100],
    ['bytes 0-0/*', 0],
    ['BYTES 5-9/10', 5],
    ['bytes */200', undefined],
    [undefined, undefined],
    ['nonsense', undefined],
  ])('%s → %s', (header, start) => {
    expect(rangeStart(header)).toBe(start);
  });
});
