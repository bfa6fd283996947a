// Running things the way a user would: the built CLI as a child process (measured with
// /usr/bin/time for peak RSS), curl and bash scripts, and `contentlib serve` as a separate
// process whose first stdout line is its base URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

export const ROOT = resolve(import.meta.dirname, '../../../..'); // bench/dist/bench/lib → the repository;
export const BIN = join(ROOT, 'bin/contentlib.js');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident set size in KiB, when run through /usr/bin/time. */
  maxRssKiB?: number;
  /** CPU time (user + system) in ms, when run through /usr/bin/time: less swayed by other load than wall time. */
  cpuMs?: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Measure peak RSS and CPU time with /usr/bin/time (written to `rssFile`). */
  rssFile?: string;
}

/** Runs a command to its end, collecting output; throws on a non-zero exit with what it said. */
export async function run(cmd: string, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  const [file, argv] = o.rssFile
    ? ['/usr/bin/time', ['-f', '%U %S %M', '-o', o.rssFile, cmd, ...args]]
    : [cmd, [...args]];
  const started = performance.now();
  const child = spawn(file, argv, {
    env: { ...process.env, ...o.env },
    cwd: o.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  const code = await new Promise<number>((res, rej) => {
    child.on('error', rej);
    child.on('close', (c) => res(c ?? -1));
  });
  const wallMs = performance.now() - started;
  const result: RunResult = {
    code,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    wallMs,
  };
  if (o.rssFile) {
    const [user, sys, rss] = ((await readFile(o.rssFile, 'utf8')).trim().split('\n').pop() ?? '').split(' ');
    result.maxRssKiB = Number(rss);
    result.cpuMs = (Number(user) + Number(sys)) * 1000;
    await rm(o.rssFile, { force: true });
  }
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${result.stderr.slice(-2000)}`);
  return result;
}

/** The environment of a clean machine for the CLI: no CONTENTLIB_* of the caller leaks in. */
export function cliEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('CONTENTLIB_')) env[k] = v;
  }
  return { ...env, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...extra };
}

export interface Served {
  url: string;
  stop(): Promise<void>;
}

/** `contentlib serve --data-dir DIR` (and `args`, e.g. --public-url) in its own process, until stop(). */
export async function serve(dataDir: string, home: string, args: readonly string[] = []): Promise<Served> {
  const child: ChildProcess = spawn('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    env: cliEnv({ CONTENTLIB_HOME: home }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const url = await new Promise<string>((res, rej) => {
    let text = '';
    const timer = setTimeout(() => rej(new Error(`contentlib serve printed no URL in 20 s: ${stderr}`)), 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.includes('\n')) {
        clearTimeout(timer);
        res(text.split('\n')[0]!.trim());
      }
    });
    child.on('exit', (code) => rej(new Error(`contentlib serve exited early (${code}): ${stderr}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((res) => child.on('exit', res));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A fresh API key of `brand` from `contentlib keys create`. */
export async function createKey(dataDir: string, home: string, brand: string): Promise<string> {
  const r = await run('node', [BIN, 'keys', 'create', '--brand', brand, '--data-dir', dataDir], {
    env: cliEnv({ CONTENTLIB_HOME: home }),
  });
  const key = /cl_[A-Za-z0-9_-]{20,}/.exec(r.stdout)?.[0];
  if (!key) throw new Error(`keys create printed no key: ${r.stdout} ${r.stderr}`);
  return key;
}
