// Multipart uploads (issue 28): a BENCH_MULTIPART_SIZE sparse longform MP4 (1 GiB by default)
// sent by `contentlib upload` as parts, against three references measured in the same run:
// - capped: through a proxy that caps each TCP connection at BENCH_CAP_MBPS (20 MB/s, as one
//   stream over a long round trip is capped), against `curl -T` of the same file to a presigned
//   URL through the same proxy (target: ≥ 3× faster);
// - loopback, no cap: against contentlib's own single PUT of the same file (the same CLI against
//   the same server, its presign's `multipart` removed by a proxy in front of the API, as a
//   service without the extension; targets: wall ≥ 0.95× as fast, CPU ≤ 1.1×);
// - interrupted: SIGINT once 60 % of the parts are stored (the journal says so), then the same
//   command again: the bytes the proxy received from the re-run (target: ≤ 45 % of the file).
// Two `contentlib serve` processes: one whose storage URLs name the capping proxy, one plain.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { planParts } from '../src/rules/parts.js';
import { journalParts } from '../test/support/journal-parts.js';
import { sparseMp4 } from '../test/support/mp4-boxes.js';
import { startSpecOnlyProxy } from '../test/support/spec-only-proxy.js';
import { startThrottleProxy } from '../test/support/throttle-proxy.js';
import { type Target, complete, curlPut, presign, remove } from './lib/api.js';
import { BIN, cliEnv, createKey, run, serve } from './lib/proc.js';
import { median } from './lib/stats.js';

export interface MultipartResult {
  bytes: number;
  runs: number;
  capMBps: number;
  partConcurrency: number;
  /** Capped: wall ms of `curl -T` and of contentlib's upload (medians). */
  cappedCurlWallMs: number;
  cappedPartsWallMs: number;
  /** Loopback: contentlib's single PUT and its parts, wall and CPU ms (medians). */
  singleWallMs: number;
  singleCpuMs: number;
  partsWallMs: number;
  partsCpuMs: number;
  /** Interrupted at `stoppedAt` of `partCount` parts stored; the re-run's bytes through the proxy. */
  partCount: number;
  stoppedAt: number;
  rerunBytes: number;
}

async function served(dir: string, name: string, args: string[] = []) {
  const dataDir = join(dir, `${name}-data`);
  const home = join(dir, `${name}-home`);
  await mkdir(dataDir, { recursive: true });
  const s = await serve(dataDir, home, args);
  return { ...s, key: await createKey(dataDir, home, `bench-${name}`) };
}

async function upload(t: Target, file: string, home: string, extra: string[] = []) {
  const r = await run('node', [BIN, 'upload', file, '--json', '--force', ...extra], {
    env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key }),
    rssFile: join(home, 'time.txt'),
  });
  const completed = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; itemId?: string })
    .find((e) => e.type === 'completed');
  if (!completed?.itemId) throw new Error(`contentlib upload printed no completed event:\n${r.stdout}`);
  await remove(t, completed.itemId); // 1 GiB a run: do not let the disk fill up
  return { wallMs: r.wallMs, cpuMs: r.cpuMs ?? NaN };
}

async function curlOnce(t: Target, file: string, bytes: number) {
  const body = { fileName: 'bench-curl.mp4', contentType: 'video/mp4', fileSize: bytes, type: 'longform' };
  const p = await presign(t, body);
  const r = await curlPut(p.presignedUrl, file);
  const done = await complete(t, { key: p.key, ...body });
  await remove(t, done.contentItemId);
  return { wallMs: r.wallMs };
}

/** Runs the upload and SIGINTs it once `parts` parts are stored; resolves when it has exited. */
async function interruptAt(t: Target, file: string, home: string, parts: number): Promise<number> {
  const child: ChildProcess = spawn('node', [BIN, 'upload', file, '--force'], {
    env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stored: number;
  while ((stored = await journalParts(home)) < parts) {
    if (child.exitCode !== null) throw new Error(`the upload ended before ${parts} parts were stored: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGINT');
  const code = await exited;
  if (code !== 130) throw new Error(`the interrupted upload exited ${code}, not 130: ${stderr}`);
  return stored;
}

export async function benchMultipart(o: {
  dir: string;
  bytes: number;
  runs: number;
  capMBps: number;
  partConcurrency: number;
  log: (s: string) => void;
}): Promise<MultipartResult> {
  const file = join(o.dir, 'multipart.mp4');
  await mkdir(o.dir, { recursive: true });
  await sparseMp4(file, o.bytes, 600);
  let target = '';
  const cap = await startThrottleProxy(() => target, o.capMBps * 1e6);
  const capped = await served(o.dir, 'capped', ['--public-url', cap.url]);
  target = capped.url;
  const plain = await served(o.dir, 'plain');
  // The plain server as a service without the extension: presign's `multipart` is dropped.
  const single = await startSpecOnlyProxy(plain.url, { check: 'kept', sha256: 'kept', multipart: 'ignored' });
  const home = join(o.dir, 'multipart-cli-home');
  await mkdir(home, { recursive: true });
  const parts = ['--part-concurrency', String(o.partConcurrency)];
  try {
    const c = { curl: [] as number[], cl: [] as number[] };
    const l = {
      single: [] as Array<{ wallMs: number; cpuMs: number }>,
      parts: [] as Array<{ wallMs: number; cpuMs: number }>,
    };
    // Untimed warm-up: the first write of the file's size to a fresh data dir is slower.
    await upload({ url: plain.url, key: plain.key }, file, home, parts);
    for (let i = 0; i < o.runs; i++) {
      const curlFirst = i % 2 === 0;
      if (curlFirst) c.curl.push((await curlOnce(capped, file, o.bytes)).wallMs);
      c.cl.push((await upload(capped, file, home, parts)).wallMs);
      if (!curlFirst) c.curl.push((await curlOnce(capped, file, o.bytes)).wallMs);
      const s = { url: single.url, key: plain.key };
      if (curlFirst) l.single.push(await upload(s, file, home));
      l.parts.push(await upload(plain, file, home, parts));
      if (!curlFirst) l.single.push(await upload(s, file, home));
      o.log(
        `  multipart run ${i + 1}/${o.runs}: capped curl ${c.curl[i]!.toFixed(0)} ms, parts ${c.cl[i]!.toFixed(0)} ms; loopback single PUT ${l.single[i]!.wallMs.toFixed(0)} ms (CPU ${l.single[i]!.cpuMs.toFixed(0)}), parts ${l.parts[i]!.wallMs.toFixed(0)} ms (CPU ${l.parts[i]!.cpuMs.toFixed(0)})`,
      );
    }
    // Interrupted at 60 % of the parts stored, then the same command again.
    // The server's plan for this size (src/rules/parts.ts), as the journal will record it.
    const { partCount } = planParts(o.bytes);
    const resumeHome = join(o.dir, 'multipart-resume-home');
    const stoppedAt = await interruptAt(capped, file, resumeHome, Math.ceil(partCount * 0.6));
    // What the stopped run left in its sockets' buffers reaches the proxy after it is gone.
    for (let last = -1; cap.received() !== last; await new Promise((r) => setTimeout(r, 1000))) last = cap.received();
    cap.resetCount();
    await upload(capped, file, resumeHome, parts);
    const rerunBytes = cap.received();
    o.log(`  interrupted at ${stoppedAt} of ${partCount} parts; the re-run sent ${rerunBytes} bytes`);
    return {
      bytes: o.bytes,
      runs: o.runs,
      capMBps: o.capMBps,
      partConcurrency: o.partConcurrency,
      cappedCurlWallMs: median(c.curl),
      cappedPartsWallMs: median(c.cl),
      singleWallMs: median(l.single.map((r) => r.wallMs)),
      singleCpuMs: median(l.single.map((r) => r.cpuMs)),
      partsWallMs: median(l.parts.map((r) => r.wallMs)),
      partsCpuMs: median(l.parts.map((r) => r.cpuMs)),
      partCount,
      stoppedAt,
      rerunBytes,
    };
  } finally {
    await single.close();
    await cap.close();
    await capped.stop();
    await plain.stop();
  }
}

/** The section of bench/results.md, with each target beside its figure. */
export function renderMultipart(r: MultipartResult): string[] {
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  const speedup = r.cappedCurlWallMs / r.cappedPartsWallMs;
  const wall = r.singleWallMs / r.partsWallMs;
  const cpu = r.partsCpuMs / r.singleCpuMs;
  const rerun = r.rerunBytes / r.bytes;
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    `## Multipart uploads (issue 28): ${mib(r.bytes)}, ${r.runs} run${r.runs === 1 ? '' : 's'}, ${r.partConcurrency} parts at once`,
    '',
    '| figure | measured | target | |',
    '|---|---|---|---|',
    `| through a ${r.capMBps} MB/s-per-connection cap: curl -T / contentlib wall | ${(r.cappedCurlWallMs / 1000).toFixed(1)} s / ${(r.cappedPartsWallMs / 1000).toFixed(1)} s = ${speedup.toFixed(2)}× | ≥ 3× | ${met(speedup >= 3)} |`,
    `| loopback, no cap: speed of parts vs the single PUT (single wall / parts wall) | ${(r.singleWallMs / 1000).toFixed(2)} s / ${(r.partsWallMs / 1000).toFixed(2)} s = ${wall.toFixed(2)}× | ≥ 0.95× | ${met(wall >= 0.95)} |`,
    `| loopback, no cap: CPU of parts / the single PUT | ${r.partsCpuMs.toFixed(0)} ms / ${r.singleCpuMs.toFixed(0)} ms = ${cpu.toFixed(2)}× | ≤ 1.1× | ${met(cpu <= 1.1)} |`,
    `| interrupted at ${r.stoppedAt} of ${r.partCount} parts stored (${((100 * r.stoppedAt) / r.partCount).toFixed(0)} %), the re-run's bytes / the file | ${mib(r.rerunBytes)} / ${mib(r.bytes)} = ${(100 * rerun).toFixed(1)} % | ≤ 45 % | ${met(rerun <= 0.45)} |`,
    '',
  ];
}
