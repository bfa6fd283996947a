// Large file: `contentlib upload` of one BENCH_SIZE sparse longform MP4 to a `contentlib serve`
// process, against `curl -T` of the same bytes to a presigned URL of the same server. After an
// untimed warm-up, runs alternate which side goes first, so drift of the disk hits both alike.
// contentlib hashes the file (sent in parts, it is hashed while they are sent and its SHA-256
// declared at complete): its CPU is also set against curl's plus `openssl dgst -sha256`'s of the
// same file, the same work done by the fastest tools.
import { join } from 'node:path';
import { sparseMp4 } from '../test/support/mp4-boxes.js';
import { type Target, complete, curlPut, presign, remove } from './lib/api.js';
import { BIN, cliEnv, run } from './lib/proc.js';
import { mbPerSecond, median } from './lib/stats.js';

export interface LargeResult {
  bytes: number;
  runs: number;
  curlMBps: number;
  curlWallMs: number;
  clTransferMBps: number;
  clWallMs: number;
  clWallMBps: number;
  clPeakRssMiB: number;
  /** Median CPU time (user + system) of the whole process, ms: curl's PUT, contentlib's whole upload. */
  curlCpuMs: number;
  clCpuMs: number;
  /** Median `openssl dgst -sha256` of the same file: wall and CPU, ms. */
  opensslWallMs: number;
  opensslCpuMs: number;
}

interface UploadedEvent {
  type: 'uploaded';
  ms: number;
}

interface CompletedEvent {
  type: 'completed';
  itemId: string;
}

async function curlOnce(
  t: Target,
  file: string,
  bytes: number,
  tmp: string,
): Promise<{ transferMs: number; wallMs: number; cpuMs: number }> {
  const p = await presign(t, {
    fileName: 'bench-curl.mp4',
    contentType: 'video/mp4',
    fileSize: bytes,
    type: 'longform',
  });
  const r = await curlPut(p.presignedUrl, file, { writeOut: '%{time_total}', rssFile: join(tmp, 'curl-time.txt') });
  const done = await complete(t, {
    key: p.key,
    fileName: 'bench-curl.mp4',
    contentType: 'video/mp4',
    fileSize: bytes,
    type: 'longform',
  });
  await remove(t, done.contentItemId); // 1 GiB a run: do not let the disk fill up
  return { transferMs: Number(r.stdout.trim()) * 1000, wallMs: r.wallMs, cpuMs: r.cpuMs ?? NaN };
}

async function contentlibOnce(
  t: Target,
  file: string,
  home: string,
  tmp: string,
): Promise<{ transferMs: number; wallMs: number; rssKiB: number; cpuMs: number }> {
  const r = await run('node', [BIN, 'upload', file, '--json', '--force'], {
    env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key }),
    rssFile: join(tmp, 'rss.txt'),
  });
  const events = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string });
  const uploaded = events.find((e): e is UploadedEvent => e.type === 'uploaded');
  const completed = events.find((e): e is CompletedEvent => e.type === 'completed');
  if (!uploaded || !completed) throw new Error(`contentlib upload printed no uploaded/completed event:\n${r.stdout}`);
  await remove(t, completed.itemId);
  return { transferMs: uploaded.ms, wallMs: r.wallMs, rssKiB: r.maxRssKiB ?? NaN, cpuMs: r.cpuMs ?? NaN };
}

async function opensslOnce(file: string, tmp: string): Promise<{ wallMs: number; cpuMs: number }> {
  const r = await run('openssl', ['dgst', '-sha256', file], { rssFile: join(tmp, 'openssl-time.txt') });
  return { wallMs: r.wallMs, cpuMs: r.cpuMs ?? NaN };
}

export async function benchLarge(
  t: Target,
  o: { dir: string; home: string; bytes: number; runs: number; log: (s: string) => void },
): Promise<LargeResult> {
  const file = join(o.dir, 'longform.mp4');
  await sparseMp4(file, o.bytes, 600);
  const curl: Array<{ transferMs: number; wallMs: number; cpuMs: number }> = [];
  const cl: Array<{ transferMs: number; wallMs: number; rssKiB: number; cpuMs: number }> = [];
  const ssl: Array<{ wallMs: number; cpuMs: number }> = [];
  // The first 1 GiB written to a fresh data dir is slower (disk allocation): an untimed warm-up
  // takes that hit, and the order alternates so neither side always goes first.
  await curlOnce(t, file, o.bytes, o.dir);
  for (let i = 0; i < o.runs; i++) {
    if (i % 2 === 0) {
      curl.push(await curlOnce(t, file, o.bytes, o.dir));
      cl.push(await contentlibOnce(t, file, o.home, o.dir));
    } else {
      cl.push(await contentlibOnce(t, file, o.home, o.dir));
      curl.push(await curlOnce(t, file, o.bytes, o.dir));
    }
    ssl.push(await opensslOnce(file, o.dir));
    o.log(
      `  large run ${i + 1}/${o.runs}: curl ${curl[i]!.transferMs.toFixed(0)} ms (CPU ${curl[i]!.cpuMs.toFixed(0)} ms), contentlib ${cl[i]!.transferMs.toFixed(0)} ms (wall ${cl[i]!.wallMs.toFixed(0)} ms, CPU ${cl[i]!.cpuMs.toFixed(0)} ms, ${(cl[i]!.rssKiB / 1024).toFixed(0)} MiB)`,
    );
  }
  const clWallMs = median(cl.map((r) => r.wallMs));
  return {
    bytes: o.bytes,
    runs: o.runs,
    curlMBps: median(curl.map((r) => mbPerSecond(o.bytes, r.transferMs))),
    curlWallMs: median(curl.map((r) => r.wallMs)),
    clTransferMBps: median(cl.map((r) => mbPerSecond(o.bytes, r.transferMs))),
    clWallMs,
    clWallMBps: mbPerSecond(o.bytes, clWallMs),
    clPeakRssMiB: median(cl.map((r) => r.rssKiB / 1024)),
    curlCpuMs: median(curl.map((r) => r.cpuMs)),
    clCpuMs: median(cl.map((r) => r.cpuMs)),
    opensslWallMs: median(ssl.map((r) => r.wallMs)),
    opensslCpuMs: median(ssl.map((r) => r.cpuMs)),
  };
}
