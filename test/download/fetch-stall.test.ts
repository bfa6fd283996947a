// A download that stops getting bytes: a store that sends part of a body and then nothing fails
// with the TimeoutError within the stall time (each try), leaving the part file to resume; the
// time a slow disk holds the body back is not a stall. Against a plain node:http server on
// 127.0.0.1 that misbehaves on purpose.
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpPool, type HttpPool } from '../../src/api/http-transport.js';
import { TimeoutError } from '../../src/api/errors.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import { type FetchDeps, fetchToFile, fetchToStream } from '../../src/download/fetch.js';

const SIZE = 4 * 1024 * 1024;
const bytes = randomBytes(SIZE);

let dir: string;
let server: Server;
let url: string;
let http: HttpPool;
/** How the server answers each GET (with the Range it asked for, if any). */
let answer: (res: ServerResponse, range: string | undefined) => void;
let gets = 0;
const open = new Set<ServerResponse>();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-stall-'));
  gets = 0;
  server = createServer((req, res) => {
    gets++;
    open.add(res);
    res.on('close', () => open.delete(res));
    answer(res, req.headers.range);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file.mp4?X-Amz-Signature=secret`;
  http = createHttpPool();
});
afterEach(async () => {
  http.close();
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

function deps(over: Partial<FetchDeps> = {}): FetchDeps {
  return {
    http,
    policy: { ...NO_WAIT_RETRY, attempts: 2 },
    sleep: async () => {},
    now: () => new Date(),
    signal: new AbortController().signal,
    ...over,
  };
}

/** Sends the first `n` bytes of the file (of a 200 with its whole length), then nothing more. */
const stallAfter = (n: number) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-length': String(SIZE), 'content-type': 'video/mp4' });
  res.write(bytes.subarray(0, n));
};

describe('a store that stops sending mid-body', () => {
  it('fails with the TimeoutError after each try stalls, the bytes so far left in the part file', async () => {
    answer = stallAfter(1024 * 1024);
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile({ url, size: SIZE }, dest, `${dest}.x.part`, deps({ stallMs: 300 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/file\.mp4\?\[signed\] got no answer within/,
    );
    expect((err as Error).message).not.toContain('secret');
    expect(gets).toBe(2);
    // Resumable: the part file holds a start of the file (the second try asked for the rest,
    // which this server ignored with a 200, so it starts over from byte 0).
    expect(await readdir(dir)).toEqual(['big.mp4.x.part']);
    const part = await readFile(`${dest}.x.part`);
    expect(part.length).toBeGreaterThan(0);
    expect(part.equals(bytes.subarray(0, part.length))).toBe(true);
  });

  it('also when it stalls while hashed on a worker thread: the worker is stopped, nothing hangs', async () => {
    answer = stallAfter(1024 * 1024);
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile(
      { url, size: SIZE, sha256: 'a'.repeat(64) },
      dest,
      `${dest}.x.part`,
      deps({ stallMs: 300, hashThreadMinBytes: 0 }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('no answer headers at all: the same TimeoutError', async () => {
    answer = () => {};
    const dest = join(dir, 'big.mp4');
    const err = await fetchToFile({ url, size: SIZE }, dest, `${dest}.x.part`, deps({ stallMs: 300 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('a retry resumes with Range where the stalled try ended, and completes', async () => {
    answer = (res, range) => {
      if (!range) return stallAfter(1024 * 1024)(res);
      const from = Number(/^bytes=(\d+)-$/.exec(range)![1]);
      res.writeHead(206, {
        'content-range': `bytes ${from}-${SIZE - 1}/${SIZE}`,
        'content-length': String(SIZE - from),
      });
      res.end(bytes.subarray(from));
    };
    const dest = join(dir, 'big.mp4');
    const got = await fetchToFile({ url, size: SIZE }, dest, `${dest}.x.part`, deps({ stallMs: 300 }));
    expect(got.bytes).toBe(SIZE);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(gets).toBe(2);
  });
});

describe('a slow disk', () => {
  it('holding the body back longer than the stall time is not a stall', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-length': String(SIZE) });
      res.end(bytes);
    };
    // The first writes take 3× the stall time each, as a disk that is busy elsewhere would.
    const chunks: Buffer[] = [];
    let slow = 2;
    const out = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        if (slow-- > 0) setTimeout(cb, 1_500);
        else cb();
      },
    });
    const got = await fetchToStream({ url, size: SIZE }, out, deps({ stallMs: 500 }), 'stdout');
    expect(got.bytes).toBe(SIZE);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(gets).toBe(1);
  });
});
