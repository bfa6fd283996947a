// Scale-out: BENCH_INSTANCES_FILES (200) copies of fixtures/video/clip-5s.mp4, uploaded by one
// `contentlib upload DIR --force --json --concurrency 8` to one `serve` instance, then to three
// instances behind a round-robin TCP balancer (test/support/tcp-proxy.ts), every instance on one
// PostgreSQL and one S3 bucket on a RADOS Gateway (started here the way the tests start them). Reports files/s
// for each, their ratio, and each setting's highest peak RSS of a `serve` process (VmHWM).
// Fresh instances for each setting, so a peak belongs to its run.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startPostgres } from '../test/support/postgres.js';
import { startS3 } from '../test/support/s3.js';
import { startTcpProxy } from '../test/support/tcp-proxy.js';
import { BIN, ROOT, cliEnv, run } from './lib/proc.js';
import { MIB, fixed, median } from './lib/stats.js';

const CONCURRENCY = 8;

export interface InstancesRun {
  instances: number;
  filesPerS: number;
  wallMs: number;
  /** The highest peak resident set of any `serve` process in the setting. */
  servePeakRssMiB: number;
  /** Connections the balancer gave each instance (one entry with one instance: none counted). */
  connections: number[];
}

export interface InstancesResult {
  files: number;
  runs: number;
  one: InstancesRun;
  three: InstancesRun;
  load: string;
}

interface Instance {
  url: string;
  child: ChildProcess;
}

async function startInstance(dataDir: string, home: string, args: string[], env: Record<string, string>) {
  const child = spawn('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--drain-grace', '0', ...args], {
    env: cliEnv({ CONTENTLIB_HOME: home, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const url = await new Promise<string>((res, rej) => {
    let text = '';
    child.stdout!.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.includes('\n')) res(text.split('\n')[0]!.trim());
    });
    child.on('exit', (code) => rej(new Error(`contentlib serve exited early (${code}): ${stderr}`)));
  });
  return { url, child } satisfies Instance;
}

/** Peak resident set of a running process (Linux: VmHWM in /proc), in MiB. */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  return (kib * 1024) / MIB;
}

async function stopAll(instances: Instance[]): Promise<void> {
  await Promise.all(
    instances.map(async ({ child }) => {
      if (child.exitCode !== null) return;
      const exited = new Promise((res) => child.on('exit', res));
      child.kill('SIGTERM');
      await exited;
    }),
  );
}

function createdCount(ndjson: string): number {
  const lines = ndjson.split('\n').filter(Boolean);
  const summary = JSON.parse(lines[lines.length - 1]!) as { type: string; created: number };
  if (summary.type !== 'summary') throw new Error(`contentlib upload ended without a summary:\n${ndjson.slice(-500)}`);
  return summary.created;
}

export async function benchInstances(o: {
  dir: string;
  home: string;
  files: number;
  runs: number;
  log: (s: string) => void;
}): Promise<InstancesResult> {
  const { loadavg } = await import('node:os');
  const load = loadavg()[0]!.toFixed(2);
  const folder = join(o.dir, 'instances');
  await mkdir(folder, { recursive: true });
  const clip = join(ROOT, 'fixtures/video/clip-5s.mp4');
  for (let i = 0; i < o.files; i++) await copyFile(clip, join(folder, `clip-${String(i).padStart(4, '0')}.mp4`));

  const postgres = await startPostgres();
  const s3 = await startS3();
  const bucket = await s3.createBucket('bench');
  try {
    const setting = async (count: number): Promise<InstancesRun> => {
      const databaseUrl = await postgres.createDatabase(`bench_x${count}`);
      const home = join(o.home, `instances-${count}`);
      await mkdir(home, { recursive: true });
      const keys = await run('node', [BIN, 'keys', 'create', '--brand', 'bench', '--db', databaseUrl], {
        env: cliEnv({ CONTENTLIB_HOME: home }),
      });
      const key = keys.stdout.trim();
      const args = ['--db', databaseUrl, '--storage', `s3://${bucket}/x${count}`, '--log-level', 'warn'];
      const instances = await Promise.all(
        Array.from({ length: count }, (_, n) => startInstance(join(o.dir, `serve-${count}-${n}`), home, args, s3.env)),
      );
      const balancer = count > 1 ? await startTcpProxy(instances.map((i) => i.url)) : undefined;
      try {
        const url = balancer?.url ?? instances[0]!.url;
        const walls: number[] = [];
        for (let r = 0; r < o.runs; r++) {
          const upload = await run(
            'node',
            [BIN, 'upload', folder, '--force', '--json', '--concurrency', String(CONCURRENCY)],
            { env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: url, CONTENTLIB_API_KEY: key }) },
          );
          const created = createdCount(upload.stdout);
          if (created !== o.files) throw new Error(`created ${created} items, expected ${o.files}`);
          walls.push(upload.wallMs);
          o.log(`  ${count} instance(s), run ${r + 1}/${o.runs}: ${fixed(upload.wallMs, 0)} ms`);
        }
        const peaks = await Promise.all(instances.map((i) => peakRssMiB(i.child.pid!)));
        const wallMs = median(walls);
        const spread = instances.map((i) => balancer?.connections().get(i.url) ?? 0);
        if (balancer) o.log(`  connections per instance: ${spread.join(', ')}`);
        return {
          instances: count,
          wallMs,
          filesPerS: (o.files * 1000) / wallMs,
          servePeakRssMiB: Math.max(...peaks),
          connections: spread,
        };
      } finally {
        await balancer?.close();
        await stopAll(instances);
      }
    };
    const one = await setting(1);
    const three = await setting(3);
    return { files: o.files, runs: o.runs, one, three, load };
  } finally {
    await s3.stop();
    await postgres.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/** Its section of bench/results.md. */
export function renderInstances(r: InstancesResult): string[] {
  const row = (x: InstancesRun) =>
    `| ${x.instances === 1 ? 'one instance' : `${x.instances} instances behind a round-robin TCP balancer`} | ${fixed(x.filesPerS, 1)} | ${fixed(x.wallMs / 1000, 2)} s | ${fixed(x.servePeakRssMiB, 0)} MiB |`;
  return [
    `## Scale-out on PostgreSQL + S3 (Ceph RGW): ${r.files} copies of fixtures/video/clip-5s.mp4, ${r.runs} runs, load average ${r.load} when it started`,
    '',
    `| \`contentlib upload DIR --force --concurrency ${CONCURRENCY}\` | files/s | wall time (median) | peak RSS of a \`serve\` |`,
    '|---|---|---|---|',
    row(r.one),
    row(r.three),
    '',
    `Three instances vs one: ${fixed(r.three.filesPerS / r.one.filesPerS, 2)}× the files/s; the balancer gave the three instances ${r.three.connections.join(', ')} connections.`,
    '',
  ];
}
