// `contentlib serve` as a child process, the way users run it: for end-to-end tests that need a
// remote service, and for crash tests that kill -9 it and start it again on the same data dir
// (and port). The one place tests start the built server as a process.
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './paths.js';

export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  kill9(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** The exit code once it has exited (null while running or when killed by a signal). */
  exitCode(): number | null;
}

/** A clean environment: no CONTENTLIB_* or XDG_* of the caller, no colour. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CONTENTLIB_') && !k.startsWith('XDG_')) env[k] = v;
  return { ...env, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...extra };
}

export async function startServe(
  dataDir: string,
  home: string,
  o: { port?: number; args?: string[]; env?: Record<string, string>; fileLimit?: number; previews?: boolean } = {},
): Promise<ServeProcess> {
  // No drain grace period: tests stop servers often and have no load balancer to wait for.
  // Posters and previews only where a test asks (`previews`): the others count the objects a
  // background job would add under them.
  const args = [
    'serve',
    '--port',
    String(o.port ?? 0),
    '--data-dir',
    dataDir,
    '--drain-grace',
    '0',
    ...(o.previews ? [] : ['--no-previews']),
    ...(o.args ?? []),
  ];
  // fileLimit: the process runs under `ulimit -n`, as on a machine with few descriptors to spare.
  const [file, argv] =
    o.fileLimit === undefined
      ? ['node', [BIN, ...args]]
      : ['bash', ['-c', `ulimit -n ${o.fileLimit}; exec node "$@"`, 'bash', BIN, ...args]];
  const child = spawn(file, argv, {
    env: childEnv({ CONTENTLIB_HOME: home, ...o.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`contentlib serve printed no URL in 20 s: ${err}`)), 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('\n')) {
        clearTimeout(timer);
        res(out.split('\n')[0]!.trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`contentlib serve exited early (${code}): ${err}`));
    });
  });
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    kill9: () => stopWith('SIGKILL'),
    stop: () => stopWith('SIGTERM'),
    exitCode: () => child.exitCode,
  };
}
