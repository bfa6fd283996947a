// Whether a path is on a file system whose calls may stall: a network share (NFS, SMB/CIFS,
// Ceph, AFS, 9p as WSL mounts Windows' drives…) or a FUSE mount (sshfs, rclone and cloud drives,
// ntfs-3g, virtiofs). Planning walks and inspects files, hashing reads small files, a multipart
// upload reads its parts and a download writes its part file synchronously while the disk is
// quick (src/fs/slow-pace.ts, src/upload/plan/scan-pace.ts), which a local disk answers in
// microseconds; on such a share each call waits for a server, milliseconds to seconds, and a
// synchronous one holds the whole process meanwhile (progress, the other transfers, Ctrl-C) and
// pays every wait one after another. There every call goes through the thread pool from the
// first: the waits overlap (files inspected eight and hashed two at a time) and the event loop turns.
//
// What it cannot do: a share that stops answering for good (a hard NFS mount whose server is
// gone, a FUSE daemon that hangs) keeps the call stuck in the kernel, and what waits for it (the
// part, and so the first Ctrl-C's clean stop) waits too, and so does process.exit, which joins
// Node's thread pool. The second Ctrl-C ends the process by the signal itself (src/cli/main.ts
// endBy, releaseSignals; test/e2e/stalled-share.test.ts).
//
// Asked with the promise-based statfs, so that asking never blocks the main thread either.
// Linux's statfs names the file system by its magic number; elsewhere (or when statfs fails) the
// answer is no, and the pace alone decides, as before.
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** statfs `f_type` magic numbers (linux/magic.h and the file systems' own headers) of file systems that may stall. */
export const STALLING_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x65735546, 'fuse'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'kafs'],
  [0x73757245, 'coda'],
  [0x564c, 'ncp'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
  [0x20030528, 'orangefs'],
  [0x786f4256, 'vboxsf'],
]);

export interface StallingDeps {
  /** The file system's magic number of `path` (node:fs/promises statfs's `type`). */
  typeOf?: (path: string) => Promise<number>;
  platform?: NodeJS.Platform;
}

/**
 * The name of the stalling file system `path` is on, or undefined for a local one (or an unknown
 * answer). A path that does not exist (a glob's pattern, a part file not made yet) is on the file
 * system of its nearest folder that does.
 */
export async function stallingFileSystem(path: string, deps: StallingDeps = {}): Promise<string | undefined> {
  if ((deps.platform ?? process.platform) !== 'linux') return undefined;
  const typeOf = deps.typeOf ?? (async (p: string) => (await statfs(p)).type);
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      return STALLING_FILE_SYSTEMS.get(await typeOf(at));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Refused or odd: judged by its pace, as any disk.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || at === dirname(at)) return undefined;
    }
  }
}

/** Whether `path` is on a file system that may stall (a network share or a FUSE mount). */
export async function mayStall(path: string, deps: StallingDeps = {}): Promise<boolean> {
  return (await stallingFileSystem(path, deps)) !== undefined;
}

/** Whether any of `paths` (relative to `cwd`; files, folders or glob patterns) may stall. */
export async function anyMayStall(paths: readonly string[], cwd: string, deps: StallingDeps = {}): Promise<boolean> {
  const answers = await Promise.all(paths.map((path) => mayStall(resolve(cwd, path), deps)));
  return answers.includes(true);
}
