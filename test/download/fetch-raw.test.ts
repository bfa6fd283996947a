// A large file's GET over plain HTTP read straight off its socket (raw-get.ts, rawMinBytes 0
// here): the bytes land whole and hashed, a cut or stalled body resumes with Range, a slow disk
// holds the socket, and every answer that is not the plain 200/206 it reads (an error, a range
// other than the one asked for, a chunked body) is asked again over node:http, as before. Against
// a plain node:http server on 127.0.0.1; where a test must prove the raw path did everything,
// the node:http pool given to it fails when used.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpPool, type HttpPool } from '../../src/api/http-transport.js';
import { StorageError, TimeoutError } from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { type FetchDeps, fetchToFile } from '../../src/download/fetch.js';
import { parseHead } from '../../src/download/raw-get.js';
import { type CuttingProxy, startCuttingProxy } from '../support/cutting-proxy.js';

const SIZE = 3 * 1024 * 1024 + 123;
const bytes = randomBytes(SIZE);
const sha = createHash('sha256').update(bytes).digest('hex');

let dir: string;
let server: Server;
let base: string;
let pool: HttpPool;
/** How the server answers each GET; by default the file, with Range honoured. */
let answer: (res: ServerResponse, range: string | undefined) => void;
let gets: Array<string | undefined>;
const open = new Set<ServerResponse>();

/** The file, or the range asked for. */
function serveFile(res: ServerResponse, range: string | undefined): void {
  if (!range) {
    res.writeHead(200, { 'content-length': String(SIZE), 'content-type': 'video/mp4' });
    res.end(bytes);
    return;
  }
  const from = Number(/^bytes=(\d+)-$/.exec(range)![1]);
  res.writeHead(206, { 'content-range': `bytes ${from}-${SIZE - 1}/${SIZE}`, 'content-length': String(SIZE - from) });
  res.end(bytes.subarray(from));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-raw-'));
  gets = [];
  answer = serveFile;
  server = createServer((req, res) => {
    gets.push(req.headers.range);
    open.add(res);
    res.on('close', () => open.delete(res));
    answer(res, req.headers.range);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createHttpPool();
});
afterEach(async () => {
  pool.close();
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A pool that fails the test if the download falls back to node:http. */
const noFallback: Pick<HttpPool, 'open'> = {
  open: () => Promise.reject(new Error('node:http was used')),
};

function deps(over: Partial<FetchDeps> = {}): FetchDeps {
  return {
    http: noFallback,
    policy: { ...NO_WAIT_RETRY, attempts: 3 },
    sleep: async () => {},
    now: () => new Date(),
    signal: new AbortController().signal,
    rawMinBytes: 0,
    ...over,
  };
}

const fileUrl = () => `${base}/file.mp4?X-Amz-Signature=secret`;

/** fetchToFile of the served file, with its size and SHA-256, to `dest` (its part file beside it). */
function fetchBig(dest: string, over: Partial<FetchDeps> = {}) {
  return fetchToFile({ url: fileUrl(), size: SIZE, sha256: sha }, dest, `${dest}.x.part`, deps(over));
}

describe('read off the socket', () => {
  it('streams the file into place with its SHA-256, node:http unused', async () => {
    const dest = join(dir, 'big.mp4');
    const starts: number[] = [];
    const got = await fetchBig(dest, { onStart: (from) => starts.push(from) });
    expect(got).toMatchObject({ bytes: SIZE, sha256: sha, resumedFrom: 0 });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(await readdir(dir)).toEqual(['big.mp4']);
    expect(starts).toEqual([0]);
    expect(gets).toEqual([undefined]);
  });

  it('resumes a part file an earlier run left with a 206 of the rest', async () => {
    const dest = join(dir, 'big.mp4');
    await writeFile(`${dest}.x.part`, bytes.subarray(0, 1_000_000));
    const got = await fetchBig(dest);
    expect(got).toMatchObject({ bytes: SIZE, resumedFrom: 1_000_000, sha256: sha });
    expect(gets).toEqual(['bytes=1000000-']);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  it('hashed on a worker thread (hashThreadMinBytes 0, as a large file is with 2 cores), resumed part included', async () => {
    const dest = join(dir, 'big.mp4');
    await writeFile(`${dest}.x.part`, bytes.subarray(0, 1_000_000));
    const got = await fetchBig(dest, { hashThreadMinBytes: 0 });
    expect(got).toMatchObject({ bytes: SIZE, resumedFrom: 1_000_000, sha256: sha });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  it('bytes that are not the file fail the SHA-256 check, the part file removed', async () => {
    const dest = join(dir, 'big.mp4');
    await writeFile(`${dest}.x.part`, Buffer.alloc(1_000_000, 7));
    const err = await fetchBig(dest).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'MismatchError', kind: 'sha256', expected: sha });
    expect(await readdir(dir)).toEqual([]);
  });

  it('on a disk slower than syncWriteMs (-1: every write is), copies go through the thread pool and the file ends whole', async () => {
    const dest = join(dir, 'big.mp4');
    const got = await fetchBig(dest, { syncWriteMs: -1 });
    expect(got.sha256).toBe(sha);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  describe('through a proxy that resets the connection after 1 MiB', () => {
    let proxy: CuttingProxy;
    beforeEach(async () => {
      proxy = await startCuttingProxy(base, { cutAfter: 1024 * 1024, cuts: 1 });
    });
    afterEach(async () => proxy.close());

    it('resumes with Range from the bytes on disk and ends byte-identical', async () => {
      const dest = join(dir, 'big.mp4');
      const retries: number[] = [];
      const got = await fetchToFile(
        { url: `${proxy.url}/file.mp4?X-Amz-Signature=secret`, size: SIZE, sha256: sha },
        dest,
        `${dest}.x.part`,
        deps({ onRetry: ({ from }) => retries.push(from) }),
      );
      expect(proxy.cut()).toBe(1);
      expect(got.sha256).toBe(sha);
      expect((await readFile(dest)).equals(bytes)).toBe(true);
      expect(retries).toHaveLength(1);
      expect(retries[0]).toBeGreaterThan(0);
      // The second GET asked for the rest after the bytes on disk, not for the whole file.
      expect(gets).toEqual([undefined, `bytes=${retries[0]}-`]);
    });
  });

  it('a body that stalls: the TimeoutError after the stall time, the bytes so far kept, the retry resumes', async () => {
    answer = (res, range) => {
      if (range) return serveFile(res, range);
      res.writeHead(200, { 'content-length': String(SIZE) });
      res.write(bytes.subarray(0, 1024 * 1024));
    };
    const dest = join(dir, 'big.mp4');
    const got = await fetchBig(dest, { stallMs: 300 });
    expect(got.sha256).toBe(sha);
    expect(gets).toHaveLength(2);
    expect(gets[1]).toMatch(/^bytes=\d+-$/);

    gets = [];
    answer = (res) => {
      res.writeHead(200, { 'content-length': String(SIZE) });
      res.write(bytes.subarray(0, 1024 * 1024));
    };
    const again = join(dir, 'again.mp4');
    const err = await fetchToFile({ url: fileUrl(), size: SIZE }, again, `${again}.x.part`, {
      ...deps({ stallMs: 300 }),
      policy: { ...NO_WAIT_RETRY, attempts: 1 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).not.toContain('secret');
    const part = await readFile(`${again}.x.part`);
    expect(part.length).toBe(1024 * 1024);
    expect(part.equals(bytes.subarray(0, part.length))).toBe(true);
  });

  it('no answer head at all: the TimeoutError', async () => {
    answer = () => {};
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile({ url: fileUrl(), size: SIZE }, dest, `${dest}.x.part`, {
      ...deps({ stallMs: 300 }),
      policy: { ...NO_WAIT_RETRY, attempts: 1 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('stopped by its signal mid-body: rejects with the reason, the part file kept', async () => {
    const stop = new AbortController();
    answer = (res) => {
      res.writeHead(200, { 'content-length': String(SIZE) });
      res.write(bytes.subarray(0, 512 * 1024), () => setTimeout(() => stop.abort(new Error('stopped')), 50));
    };
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile({ url: fileUrl(), size: SIZE }, dest, `${dest}.x.part`, {
      ...deps({ signal: stop.signal }),
      policy: { ...NO_WAIT_RETRY, attempts: 1 },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: expect.stringContaining('stopped') });
    expect(await readdir(dir)).toEqual(['big.mp4.x.part']);
  });
});

describe('answers asked again over node:http', () => {
  it('an error status: the same typed error as before, from node:http', async () => {
    answer = (res) => {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end('<Error><Code>NoSuchKey</Code></Error>');
    };
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile({ url: fileUrl(), size: SIZE }, dest, `${dest}.x.part`, deps({ http: pool })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(gets).toHaveLength(2);
  });

  it('a chunked body: read over node:http, whole', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' }); // no length: node:http sends it chunked
      res.write(bytes.subarray(0, 1000));
      res.end(bytes.subarray(1000));
    };
    const dest = join(dir, 'big.mp4');
    const got = await fetchBig(dest, { http: pool });
    expect(got.sha256).toBe(sha);
    expect(gets).toHaveLength(2);
  });

  it('a store that ignores Range on a resume: the whole file again over node:http, written from byte 0', async () => {
    answer = (res) => serveFile(res, undefined);
    const dest = join(dir, 'big.mp4');
    await writeFile(`${dest}.x.part`, bytes.subarray(0, 1_000_000));
    const got = await fetchBig(dest, { http: pool });
    expect(got.sha256).toBe(sha);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(gets).toEqual(['bytes=1000000-', 'bytes=1000000-']);
  });

  it('below rawMinBytes (the default 16 MiB for this 3 MiB file): node:http only', async () => {
    const dest = join(dir, 'big.mp4');
    const { rawMinBytes: _, ...rest } = deps({ http: pool });
    const got = await fetchToFile({ url: fileUrl(), size: SIZE, sha256: sha }, dest, `${dest}.x.part`, rest);
    expect(got.sha256).toBe(sha);
    expect(gets).toEqual([undefined]);
  });
});

describe('parseHead', () => {
  it('reads the status and headers, names lowercased', () => {
    const head = parseHead('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nContent-Range: bytes 5-14/15');
    expect(head?.status).toBe(206);
    expect(head?.headers.get('content-length')).toBe('10');
    expect(head?.headers.get('content-range')).toBe('bytes 5-14/15');
  });

  it.each([
    ['not HTTP/1.x', 'HTTP/2 200\r\nContent-Length: 1'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n  folded'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 1'],
    ['two different lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2'],
  ])('refuses %s', (_, text) => {
    expect(parseHead(text)).toBeUndefined();
  });
});
