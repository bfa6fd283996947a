// A real FUSE mount for the tests: a folder mirrored through bindfs (Debian's `bindfs`), the way
// sshfs, rclone, a cloud drive or ntfs-3g mount theirs, so that what src/fs/stalling-fs.ts
// recognises is the kernel's own answer, not a pretended one. Needs /dev/fuse and the right to
// mount (root in a container that allows it, as .ci/run's).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** bindfs is installed and the kernel offers FUSE. */
export const HAS_BINDFS =
  existsSync('/dev/fuse') && spawnSync('bindfs', ['--version'], { stdio: 'ignore' }).status === 0;

export interface FuseMount {
  /** The files as they are on the local disk. */
  source: string;
  /** The same files, through FUSE. */
  mountpoint: string;
  dispose(): Promise<void>;
}

/** A fresh folder and its mirror through FUSE; dispose unmounts and removes both. */
export async function fuseMount(): Promise<FuseMount> {
  const root = await mkdtemp(join(tmpdir(), 'contentlib-fuse-'));
  const source = join(root, 'source');
  const mountpoint = join(root, 'mounted');
  await mkdir(source);
  await mkdir(mountpoint);
  execFileSync('bindfs', [source, mountpoint], { stdio: 'pipe' });
  return {
    source,
    mountpoint,
    async dispose() {
      // fusermount as a user would; umount as root where fusermount is not there.
      if (spawnSync('fusermount', ['-u', mountpoint], { stdio: 'ignore' }).status !== 0)
        spawnSync('umount', [mountpoint], { stdio: 'ignore' });
      await rm(root, { recursive: true, force: true });
    },
  };
}
