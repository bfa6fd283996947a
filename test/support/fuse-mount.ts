// A real FUSE mount for the tests: a folder mirrored through bindfs (Debian's `bindfs`), the way
// sshfs, rclone, a cloud drive or ntfs-3g mount theirs, so that what src/fs/stalling-fs.ts
// recognises is the kernel's own answer, not a pretended one. Its daemon runs in the foreground
// as a child of the test, so that a test can stop it (SIGSTOP) as a share stops answering: every
// call on the mount then waits in the kernel until it is continued. Needs /dev/fuse and the right
// to mount (root in a container that allows it, as .ci/run's).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** bindfs is installed and the kernel offers FUSE. */
export const HAS_BINDFS =
  existsSync('/dev/fuse') && spawnSync('bindfs', ['--version'], { stdio: 'ignore' }).status === 0;

const FUSE_MAGIC = 0x65735546;

export interface FuseMount {
  /** The files as they are on the local disk. */
  source: string;
  /** The same files, through FUSE. */
  mountpoint: string;
  /** The daemon stopped (SIGSTOP): the share stops answering. */
  stop(): void;
  /** The daemon continued (SIGCONT): the share answers again, the calls that waited too. */
  resume(): void;
  dispose(): Promise<void>;
}

/** A fresh folder and its mirror through FUSE; dispose unmounts and removes both. */
export async function fuseMount(): Promise<FuseMount> {
  const root = await mkdtemp(join(tmpdir(), 'contentlib-fuse-'));
  const source = join(root, 'source');
  const mountpoint = join(root, 'mounted');
  await mkdir(source);
  await mkdir(mountpoint);
  let stderr = '';
  const daemon: ChildProcess = spawn('bindfs', ['-f', source, mountpoint], { stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const deadline = Date.now() + 10_000;
  while ((await statfs(mountpoint)).type !== FUSE_MAGIC) {
    if (daemon.exitCode !== null || Date.now() > deadline) {
      daemon.kill('SIGKILL');
      await rm(root, { recursive: true, force: true });
      throw new Error(`bindfs did not mount ${mountpoint}: ${stderr || `exit ${daemon.exitCode}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    source,
    mountpoint,
    stop: () => void daemon.kill('SIGSTOP'),
    resume: () => void daemon.kill('SIGCONT'),
    async dispose() {
      daemon.kill('SIGCONT');
      const exited = new Promise((resolve) => daemon.once('exit', resolve));
      // fusermount as a user would; umount as root where fusermount is not there. The daemon
      // in the foreground exits once unmounted.
      if (spawnSync('fusermount', ['-u', mountpoint], { stdio: 'ignore' }).status !== 0)
        spawnSync('umount', ['-l', mountpoint], { stdio: 'ignore' });
      if (daemon.exitCode === null) await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** How a process's threads wait on FUSE now, as the kernel shows them (/proc/<pid>/task). */
export interface FuseWaits {
  /**
   * Threads waiting on the share: in a FUSE request (`request_wait_answer`), or in the kernel's
   * uninterruptible sleep (state D), as a read waiting for pages that readahead asked the daemon for.
   */
  waiting: number;
  /**
   * The process is ending (its main thread has exited, state Z) but a thread still waits: the
   * daemon had taken that request before it was stopped, and the kernel waits for its answer
   * whatever signal comes (SIGKILL too), so the process ends only once the share answers.
   */
  heldByKernel: boolean;
}

export async function fuseWaits(pid: number): Promise<FuseWaits> {
  const read = (tid: string, file: string) => readFile(`/proc/${pid}/task/${tid}/${file}`, 'utf8').catch(() => '');
  // The state follows the command name, which is in parentheses and may hold spaces.
  const stateOf = async (tid: string) => {
    const stat = await read(tid, 'stat');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  };
  let waiting = 0;
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[]))
    if ((await read(tid, 'wchan')) === 'request_wait_answer' || (await stateOf(tid)) === 'D') waiting++;
  return { waiting, heldByKernel: waiting > 0 && (await stateOf(String(pid))) === 'Z' };
}
