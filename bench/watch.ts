// `contentlib upload --watch` (issue 40): what watching costs when nothing happens, and whether
// memory stays flat while files keep coming.
// - Idle: a tree of BENCH_WATCH_FILES (10,000) files in 100 folders is watched; once the first
//   look is done, the watch process's CPU time (utime + stime from /proc) is read over
//   BENCH_WATCH_IDLE_S (60) seconds, with the system's events and then with --poll. The files are
//   text files, which the rules skip: what is measured is watching them, not uploading them
//   (the bulk and scale scenarios measure that).
// - Memory: BENCH_WATCH_UPLOADS (2,000) small videos of their own (no two the same bytes) are
//   written into a watched folder, 100 at a time, and the watch's resident set (VmRSS) is read
//   as the uploads pass each quarter.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { uniqueVideo } from '../test/support/watch-process.js';
import { BIN, ROOT, cliEnv } from './lib/proc.js';
import { fixed } from './lib/stats.js';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS = 100;

export interface WatchBenchResult {
  files: number;
  idleS: number;
  /** Share of one core used while idle, in %. */
  idleCpuPct: number;
  idlePollCpuPct: number;
  uploads: number;
  /** VmRSS of the watch after each quarter of the uploads. */
  rss: Array<{ uploaded: number; rssMiB: number }>;
  uploadS: number;
  load: string;
}

interface Watch {
  child: ChildProcess;
  completed: () => number;
  ready: Promise<void>;
  stop: () => Promise<void>;
}

function startWatch(folder: string, home: string, target: { url: string; key: string }, extra: string[]): Watch {
  const child = spawn('node', [BIN, 'upload', '--watch', folder, '--json', '--settle', '1', ...extra], {
    env: cliEnv({ CONTENTLIB_HOME: home, CONTENTLIB_BASE_URL: target.url, CONTENTLIB_API_KEY: target.key }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let completed = 0;
  let rest = '';
  let started!: () => void;
  const ready = new Promise<void>((res) => (started = res));
  child.stdout!.on('data', (c: Buffer) => {
    rest += c.toString('utf8');
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.includes('"type":"watching"')) started();
      if (line.includes('"type":"completed"')) completed++;
    }
  });
  child.stderr!.resume();
  return {
    child,
    completed: () => completed,
    ready,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGINT');
      await exited;
    },
  };
}

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at index 2 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function idleCpu(
  tree: string,
  home: string,
  target: { url: string; key: string },
  idleS: number,
  extra: string[],
): Promise<number> {
  const w = startWatch(tree, home, target, extra);
  try {
    await w.ready;
    // The first look (walk, stat, a second look after the settle time) is not idle.
    await sleep(5000);
    const before = await cpuSeconds(w.child.pid!);
    await sleep(idleS * 1000);
    const after = await cpuSeconds(w.child.pid!);
    return ((after - before) / idleS) * 100;
  } finally {
    await w.stop();
  }
}

export async function benchWatch(
  target: { url: string; key: string },
  o: { dir: string; home: string; files: number; uploads: number; idleS: number; log: (s: string) => void },
): Promise<WatchBenchResult> {
  const load = loadavg()[0]!.toFixed(2);
  const tree = join(o.dir, 'watch-tree');
  const perFolder = Math.ceil(o.files / 100);
  for (let i = 0; i < o.files; i++) {
    const folder = join(tree, `f${String(Math.floor(i / perFolder)).padStart(3, '0')}`);
    if (i % perFolder === 0) await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `notes-${i}.txt`), `${i}\n`);
  }
  o.log(`  idle over ${o.files} files, ${o.idleS} s (events)…`);
  const idleCpuPct = await idleCpu(tree, join(o.home, 'watch-idle'), target, o.idleS, []);
  o.log(`    ${fixed(idleCpuPct, 2)} % of a core`);
  o.log(`  idle over ${o.files} files, ${o.idleS} s (--poll)…`);
  const idlePollCpuPct = await idleCpu(tree, join(o.home, 'watch-idle-poll'), target, o.idleS, ['--poll']);
  o.log(`    ${fixed(idlePollCpuPct, 2)} % of a core`);

  o.log(`  ${o.uploads} uploads…`);
  const inbox = join(o.dir, 'watch-inbox');
  await mkdir(inbox, { recursive: true });
  const w = startWatch(inbox, join(o.home, 'watch-rss'), target, ['--concurrency', '8']);
  const rss: WatchBenchResult['rss'] = [];
  const started = Date.now();
  try {
    await w.ready;
    // A writer that fails ends the scenario (through `finally`, which stops the watch).
    let writeError: unknown;
    const writer = (async () => {
      for (let i = 0; i < o.uploads; i++) {
        await writeFile(
          join(inbox, `clip-${String(i).padStart(5, '0')}.mp4`),
          uniqueVideo(4096 + i, join(ROOT, 'fixtures')),
        );
        // 100 at a time, then wait for the watch to catch up to within one batch.
        if (i % 100 === 99) while (w.completed() < i - 100) await sleep(200);
      }
    })().catch((err: unknown) => {
      writeError = err;
    });
    for (const quarter of [1, 2, 3, 4]) {
      const goal = Math.floor((o.uploads * quarter) / 4);
      while (w.completed() < goal) {
        if (w.child.exitCode !== null) throw new Error('upload --watch exited');
        if (writeError) throw writeError;
        await sleep(100);
      }
      rss.push({ uploaded: w.completed(), rssMiB: await rssMiB(w.child.pid!) });
      o.log(`    ${w.completed()} uploaded, RSS ${fixed(rss.at(-1)!.rssMiB, 0)} MiB`);
    }
    await writer;
    if (writeError) throw writeError;
  } finally {
    await w.stop();
  }
  return {
    files: o.files,
    idleS: o.idleS,
    idleCpuPct,
    idlePollCpuPct,
    uploads: o.uploads,
    rss,
    uploadS: (Date.now() - started) / 1000,
    load,
  };
}

export function renderWatch(r: WatchBenchResult): string[] {
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const first = r.rss[0]!;
  const last = r.rss.at(-1)!;
  const growth = last.rssMiB / first.rssMiB - 1;
  return [
    `## Watching a folder (one run; load average ${r.load} when it started)`,
    '',
    `| \`contentlib upload --watch\` | measured |`,
    '|---|---|',
    `| CPU while idle over ${r.files} files, ${r.idleS} s, system events | ${fixed(r.idleCpuPct, 2)} % of a core |`,
    `| CPU while idle over ${r.files} files, ${r.idleS} s, \`--poll\` (every 5 s) | ${fixed(r.idlePollCpuPct, 2)} % of a core |`,
    ...r.rss.map((s) => `| RSS after ${s.uploaded} uploads | ${fixed(s.rssMiB, 0)} MiB |`),
    `| ${r.uploads} uploads, wall time | ${fixed(r.uploadS, 0)} s |`,
    '',
    '| target (issue 40) | goal | measured | verdict |',
    '|---|---|---|---|',
    `| idle CPU, ${r.files} files watched | < 1 % of a core | ${fixed(r.idleCpuPct, 2)} % | ${verdict(r.idleCpuPct < 1)} |`,
    `| RSS from ${first.uploaded} to ${last.uploaded} uploads | flat (≤ 10 %) | ${fixed(growth * 100, 1)} % | ${verdict(growth <= 0.1)} |`,
    '',
  ];
}
