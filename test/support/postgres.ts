// A real PostgreSQL for tests: Debian's server binaries (package `postgresql`, installed by
// .ci/run when missing) run on a temporary folder and a free port, listening on 127.0.0.1 only.
// PostgreSQL refuses to run as root, so under root (CI) every server command runs as the
// `postgres` user the package creates, on a folder that user owns. One server per test file at
// most: start it in beforeAll, and give each test its own database with `createDatabase`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** postgres://postgres[:password]@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A fresh, empty database (`options`: CREATE DATABASE's, e.g. a collation); returns its URL. */
  createDatabase(prefix?: string, options?: string): Promise<string>;
  /**
   * Shuts the server down, keeping its data: `start()` brings it back. 'fast' (the default) ends
   * every session with 57P01 and checkpoints; 'immediate' kills the backends (crash recovery at
   * the next start).
   */
  shutDown(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data after shutDown(). */
  start(): Promise<void>;
  /** SIGSTOP to the server and every backend: connections stay open and nothing answers. */
  freeze(): Promise<void>;
  /** SIGCONT to the processes freeze() stopped. */
  thaw(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder, or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** The uid and gid of the `postgres` user (the owner of the server's files under root). */
async function postgresIds(): Promise<[number, number]> {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
  return [id('-u'), id('-g')];
}

/** Runs a server binary, as `postgres` when we are root. */
function run(bin: string, args: string[]): void {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

export interface PostgresOptions {
  /**
   * The `postgres` user's password, asked on TCP connections (scram-sha-256); without it every
   * connection is trusted. Local socket connections are always trusted.
   */
  password?: string;
}

export async function startPostgres(o: PostgresOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql; .ci/run does it)');
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-pg-'));
  if (asRoot) await chown(dir, ...(await postgresIds()));
  const data = join(dir, 'data');
  const auth = ['--auth=trust'];
  if (o.password !== undefined) {
    const pwfile = join(dir, 'pwfile');
    await writeFile(pwfile, `${o.password}\n`);
    if (asRoot) await chown(pwfile, ...(await postgresIds()));
    auth.push('--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
  }
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', ...auth, '-E', 'UTF8', '--no-sync', '-N']);
  const port = await freePort();
  // fsync off: a test database need not survive a power cut, and the shared machine is slow.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const startServer = () =>
    run(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  startServer();
  let frozen: number[] = [];
  async function thaw(): Promise<void> {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // A backend that ended meanwhile.
      }
    }
    frozen = [];
  }
  const login = o.password === undefined ? 'postgres' : `postgres:${encodeURIComponent(o.password)}`;
  const url = `postgres://${login}@127.0.0.1:${port}/postgres`;
  let count = 0;
  return {
    url,
    port,
    async createDatabase(prefix = 'test', options = '') {
      const name = `${prefix}_${process.pid}_${++count}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name} ${options}`);
      } finally {
        await client.end();
      }
      return `postgres://${login}@127.0.0.1:${port}/${name}`;
    },
    async shutDown(mode = 'fast') {
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
    },
    async start() {
      startServer();
    },
    async freeze() {
      // The postmaster's pid is the first line of postmaster.pid; the backends are its children.
      const postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
        .toString()
        .split('\n')
        .map((l) => Number(l.trim()))
        .filter((pid) => pid > 0);
      frozen = [];
      for (const pid of [postmaster, ...children]) {
        try {
          process.kill(pid, 'SIGSTOP');
          frozen.push(pid);
        } catch {
          // A backend that ended since ps listed it.
        }
      }
    },
    thaw,
    async stop() {
      await thaw();
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
