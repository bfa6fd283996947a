// `contentlib serve` as a child process that a test can kill -9 and start again on the same
// data dir (and port), the way a crash and a restart happen for real.
import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './helpers.js';

export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** A clean environment: no CONTENTLIB_* of the caller, no colour. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CONTENTLIB_')) env[k] = v;
  return { ...env, NODE_NO_WARNINGS: '1', NO_COLOR: '1', ...extra };
}

export async function startServe(dataDir: string, home: string, o: { port?: number; args?: string[] } = {}): Promise<ServeProcess> {
  const child = spawn('node', [BIN, 'serve', '--port', String(o.port ?? 0), '--data-dir', dataDir, ...(o.args ?? [])], {
    env: childEnv({ CONTENTLIB_HOME: home }),
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
  return { url, port: Number(new URL(url).port), child, stderr: () => err, kill9: () => stopWith('SIGKILL'), stop: () => stopWith('SIGTERM') };
}
