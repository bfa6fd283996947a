// Helpers of the operations tests: the CLI as a process against a `contentlib serve` process,
// and the server's JSON log lines read back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { BIN } from './paths.js';
import { type ServeProcess, childEnv, startServe } from './serve-process.js';

export interface Served {
  home: string;
  dataDir: string;
  server: ServeProcess;
  key: string;
  /** The CLI against this server with its key (plus any global flags given). */
  cli(args: string[], env?: Record<string, string>): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** The JSON log lines written so far. */
  logs(): LogLine[];
  dispose(): Promise<void>;
}

export type LogLine = Record<string, unknown> & { level: string; msg: string };

export function parseLogs(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as LogLine);
}

export async function run(home: string, args: string[], env: Record<string, string> = {}) {
  const r = await execa('node', [BIN, ...args], {
    env: childEnv({ CONTENTLIB_HOME: home, CONTENTLIB_RETRY_BASE_MS: '0', ...env }),
    extendEnv: false,
    reject: false,
    input: '',
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `contentlib serve` (JSON logs, since its stderr is a pipe) on a fresh data dir, with one key. */
export async function serveWithKey(args: string[] = []): Promise<Served> {
  const home = await mkdtemp(join(tmpdir(), 'contentlib-ops-'));
  const dataDir = join(home, 'lib');
  const server = await startServe(dataDir, home, { args });
  const created = await run(home, ['keys', 'create', '--brand', 'acme', '--data-dir', dataDir]);
  if (created.exitCode !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  const key = created.stdout.trim();
  return {
    home,
    dataDir,
    server,
    key,
    cli: (a, env = {}) => run(home, ['--base-url', server.url, ...a], { CONTENTLIB_API_KEY: key, ...env }),
    logs: () => parseLogs(server.stderr()),
    dispose: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
