// Taking files out (issue 27): `contentlib download` of one BENCH_SIZE video against `curl -o` of
// the same signed URL (wall time, and contentlib's peak RSS), and `contentlib export` of a library
// of BENCH_EXPORT_ITEMS (10,000) items against one of BENCH_EXPORT_SMALL (500): peak RSS and
// files/s, and a re-run with nothing new. Runs alternate which side goes first.
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { sparseMp4 } from '../test/support/mp4-boxes.js';
import { type Target, complete, curlPut, presign } from './lib/api.js';
import { BIN, cliEnv, run } from './lib/proc.js';
import { fixed, median } from './lib/stats.js';
import { seed } from './listing.js';

export interface DownloadResult {
  bytes: number;
  runs: number;
  curlWallMs: number;
  clWallMs: number;
  clPeakRssMiB: number;
  /** Median CPU time (user + system), ms: steadier than wall on a shared machine. */
  curlCpuMs: number;
  clCpuMs: number;
  /**
   * `openssl dgst -sha256` of curl's file, right after it (from the page cache): with `curl -o`,
   * the same work as the CLI's, which checks the library's SHA-256 of every byte it writes.
   */
  opensslWallMs: number;
  opensslCpuMs: number;
}

export interface ExportRun {
  items: number;
  ms: number;
  rssMiB: number;
  filesPerSecond: number;
  /** A second run into the same folder: nothing new. */
  rerunMs: number;
}

export interface ExportResult {
  small: ExportRun;
  large: ExportRun;
}

async function fileUrl(t: Target, id: string): Promise<string> {
  const res = await fetch(`${t.url}/api/v1/content/${id}`, { headers: { authorization: `Bearer ${t.key}` } });
  const body = (await res.json()) as { item: { fileUrl: string } };
  return body.item.fileUrl;
}

/** One longform of `bytes` in the library, sent with curl -T (its bytes are a sparse file). */
async function seedLarge(t: Target, file: string, bytes: number): Promise<string> {
  const p = await presign(t, { fileName: 'takeout.mp4', contentType: 'video/mp4', fileSize: bytes, type: 'longform' });
  await curlPut(p.presignedUrl, file);
  const done = await complete(t, {
    key: p.key,
    fileName: 'takeout.mp4',
    contentType: 'video/mp4',
    fileSize: bytes,
    type: 'longform',
  });
  return done.contentItemId;
}

export async function benchDownload(
  t: Target,
  o: { dir: string; home: string; bytes: number; runs: number; log: (s: string) => void },
): Promise<DownloadResult> {
  const source = join(o.dir, 'takeout-source.mp4');
  await sparseMp4(source, o.bytes, 600);
  const id = await seedLarge(t, source, o.bytes);
  await rm(source, { force: true });
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });
  const out = join(o.dir, 'takeout-out');
  const rssFile = join(o.dir, 'rss.txt');
  const curlOnce = async () => {
    const url = await fileUrl(t, id);
    const file = join(o.dir, 'curl.mp4');
    const r = await run('curl', ['-sS', '--fail', '-o', file, url], { rssFile });
    const ssl = await run('openssl', ['dgst', '-sha256', file], { rssFile });
    await rm(file, { force: true });
    return { ms: r.wallMs, cpu: r.cpuMs ?? NaN, sslMs: ssl.wallMs, sslCpu: ssl.cpuMs ?? NaN };
  };
  const clOnce = async () => {
    const r = await run('node', [BIN, 'download', id, '-o', out, '--clobber'], { env, rssFile });
    await rm(out, { recursive: true, force: true });
    return { ms: r.wallMs, cpu: r.cpuMs ?? NaN, rss: (r.maxRssKiB ?? NaN) / 1024 };
  };
  // Warm-ups: the first read of the object fills the page cache, the first download writes its code cache.
  await curlOnce();
  await clOnce();
  const curl: Array<{ ms: number; cpu: number; sslMs: number; sslCpu: number }> = [];
  const cl: Array<{ ms: number; cpu: number; rss: number }> = [];
  for (let i = 0; i < o.runs; i++) {
    if (i % 2 === 0) {
      curl.push(await curlOnce());
      cl.push(await clOnce());
    } else {
      cl.push(await clOnce());
      curl.push(await curlOnce());
    }
    const [c, l] = [curl[i]!, cl[i]!];
    o.log(
      `  download run ${i + 1}/${o.runs}: curl -o ${c.ms.toFixed(0)} ms (CPU ${c.cpu.toFixed(0)} ms) + openssl ${c.sslMs.toFixed(0)} ms (CPU ${c.sslCpu.toFixed(0)} ms), contentlib ${l.ms.toFixed(0)} ms (CPU ${l.cpu.toFixed(0)} ms, ${l.rss.toFixed(0)} MiB), load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  return {
    bytes: o.bytes,
    runs: o.runs,
    curlWallMs: median(curl.map((c) => c.ms)),
    clWallMs: median(cl.map((c) => c.ms)),
    clPeakRssMiB: median(cl.map((c) => c.rss)),
    curlCpuMs: median(curl.map((c) => c.cpu)),
    clCpuMs: median(cl.map((c) => c.cpu)),
    opensslWallMs: median(curl.map((c) => c.sslMs)),
    opensslCpuMs: median(curl.map((c) => c.sslCpu)),
  };
}

async function exportOnce(
  t: Target,
  o: { dir: string; home: string },
  items: number,
  log: (s: string) => void,
): Promise<ExportRun> {
  const env = cliEnv({ CONTENTLIB_HOME: o.home, CONTENTLIB_BASE_URL: t.url, CONTENTLIB_API_KEY: t.key });
  const dir = join(o.dir, `export-${items}`);
  const first = await run('node', [BIN, 'export', dir], { env, rssFile: join(o.dir, 'rss.txt') });
  const again = await run('node', [BIN, 'export', dir], { env });
  await rm(dir, { recursive: true, force: true });
  const result = {
    items,
    ms: first.wallMs,
    rssMiB: (first.maxRssKiB ?? NaN) / 1024,
    filesPerSecond: (items * 1000) / first.wallMs,
    rerunMs: again.wallMs,
  };
  log(
    `  export of ${items} items: ${(result.ms / 1000).toFixed(1)} s, ${result.filesPerSecond.toFixed(0)} files/s, ${result.rssMiB.toFixed(0)} MiB; re-run ${(result.rerunMs / 1000).toFixed(1)} s`,
  );
  return result;
}

export async function benchExport(
  target: (brand: string) => Promise<Target>,
  o: { dir: string; home: string; items: number; small: number; log: (s: string) => void },
): Promise<ExportResult> {
  const smallTarget = await target('bench-export-small');
  const largeTarget = await target('bench-export-large');
  await seed(smallTarget, o.small);
  await seed(largeTarget, o.items);
  o.log(`  seeded ${o.small} and ${o.items} items`);
  return {
    small: await exportOnce(smallTarget, o, o.small, o.log),
    large: await exportOnce(largeTarget, o, o.items, o.log),
  };
}

export function renderTakeout(d: DownloadResult | undefined, e: ExportResult | undefined): string[] {
  const lines = ['## Taking files out (issue 27)', ''];
  if (d) {
    const ratio = d.clWallMs / d.curlWallMs;
    lines.push(
      `- \`download\` of ${fixed(d.bytes / 1024 ** 2, 0)} MiB (median of ${d.runs}): ${fixed(d.clWallMs, 0)} ms against \`curl -o\` ${fixed(d.curlWallMs, 0)} ms = ${fixed(ratio, 2)}× (target ≤ 1.1×: ${ratio <= 1.1 ? 'met' : 'missed'}); peak RSS ${fixed(d.clPeakRssMiB, 0)} MiB (target ≤ 100 MB, binary as everywhere here: ${d.clPeakRssMiB <= 100 ? 'met' : 'missed'}). ${downloadReference(d)}`,
    );
  }
  if (e) {
    const growth = e.large.rssMiB / e.small.rssMiB - 1;
    const rate = e.large.filesPerSecond / e.small.filesPerSecond;
    lines.push(
      `- \`export\` of ${e.large.items} items: ${fixed(e.large.ms / 1000, 1)} s, ${fixed(e.large.filesPerSecond, 0)} files/s, peak RSS ${fixed(e.large.rssMiB, 0)} MiB (target ≤ 150 MB: ${e.large.rssMiB <= 150 ? 'met' : 'missed'}); ${e.small.items} items: ${fixed(e.small.filesPerSecond, 0)} files/s, ${fixed(e.small.rssMiB, 0)} MiB. RSS +${fixed(growth * 100, 1)} % (target ≤ 10 %: ${growth <= 0.1 ? 'met' : 'missed'}), files/s ${fixed(rate, 2)}× the small export's (target ≥ 0.8×: ${rate >= 0.8 ? 'met' : 'missed'}). A re-run with nothing new: ${fixed(e.large.rerunMs / 1000, 1)} s.`,
    );
  }
  return [...lines, ''];
}

/**
 * The download beside the same work done by the fastest tools: CPU against `curl -o`'s, and wall
 * and CPU against `curl -o` followed by `openssl dgst -sha256` of its file (curl checks nothing;
 * the CLI hashes every byte it writes, ~0.55 s of CPU per GiB here).
 */
export function downloadReference(d: DownloadResult): string {
  const withHash = d.clWallMs / (d.curlWallMs + d.opensslWallMs);
  const cpuWithHash = d.clCpuMs / (d.curlCpuMs + d.opensslCpuMs);
  return `CPU ${fixed(d.clCpuMs, 0)} against \`curl -o\`'s ${fixed(d.curlCpuMs, 0)} ms (${fixed(d.clCpuMs / d.curlCpuMs, 2)}×); against \`curl -o\` + \`openssl dgst -sha256\` (${fixed(d.opensslWallMs, 0)} ms, CPU ${fixed(d.opensslCpuMs, 0)} ms): wall ${fixed(withHash, 2)}×, CPU ${fixed(cpuWithHash, 2)}×.`;
}
