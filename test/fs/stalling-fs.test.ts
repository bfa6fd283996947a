// Which file systems may stall (src/fs/stalling-fs.ts): the table of statfs magic numbers, then
// the kernel's own answers for this machine's local disk and tmpfs, and for a real FUSE mount.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALLING_FILE_SYSTEMS, anyMayStall, mayStall, stallingFileSystem } from '../../src/fs/stalling-fs.js';
import { type FuseMount, HAS_BINDFS, fuseMount } from '../support/fuse-mount.js';
import { skipWithout } from '../support/needs.js';

const typed = (type: number) => ({ typeOf: async () => type, platform: 'linux' as const });

describe('stallingFileSystem', () => {
  it.each([
    ['nfs', 0x6969],
    ['smb', 0x517b],
    ['cifs', 0xff534d42],
    ['smb2', 0xfe534d42],
    ['fuse', 0x65735546],
    ['9p', 0x01021997],
    ['ceph', 0x00c36400],
    ['vboxsf', 0x786f4256],
  ])('%s may stall', async (name, type) => {
    expect(await stallingFileSystem('/any', typed(type))).toBe(name);
  });

  it.each([
    ['ext4', 0xef53],
    ['xfs', 0x58465342],
    ['btrfs', 0x9123683e],
    ['tmpfs', 0x01021994],
    ['overlayfs', 0x794c7630],
    ['zfs', 0x2fc12fc1],
    ['exfat', 0x2011bab0],
    ['vfat', 0x4d44],
    ['ntfs3', 0x7366746e],
  ])('%s is a local disk', async (_name, type) => {
    expect(STALLING_FILE_SYSTEMS.has(type)).toBe(false);
    expect(await mayStall('/any', typed(type))).toBe(false);
  });

  it('says no when statfs is refused and, off Linux, without asking; a path not there is asked of its folder', async () => {
    const refused = {
      typeOf: () => Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })),
      platform: 'linux' as const,
    };
    expect(await mayStall('/share/clip.mp4', refused)).toBe(false);
    const tried: string[] = [];
    const nfsAtShare = {
      typeOf: async (p: string) => {
        tried.push(p);
        if (p !== '/share') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return 0x6969;
      },
      platform: 'linux' as const,
    };
    expect(await stallingFileSystem('/share/videos/*.mp4', nfsAtShare)).toBe('nfs');
    expect(tried).toEqual(['/share/videos/*.mp4', '/share/videos', '/share']);
    const nothingThere = {
      typeOf: () => Promise.reject(Object.assign(new Error('ENOENT'), { code: 'ENOENT' })),
      platform: 'linux' as const,
    };
    expect(await mayStall('/gone/clip.mp4', nothingThere)).toBe(false);
    let asked = false;
    const darwin = {
      typeOf: async () => ((asked = true), 0x6969),
      platform: 'darwin' as const,
    };
    expect(await mayStall('/Volumes/share', darwin)).toBe(false);
    expect(asked).toBe(false);
  });

  it('this machine: its temporary folder and /dev/shm are local, a path that is not there says no', async () => {
    expect(await mayStall(tmpdir())).toBe(false);
    expect(await mayStall('/dev/shm')).toBe(false);
    expect(await mayStall(join(tmpdir(), 'no-such-folder', 'clip.mp4'))).toBe(false);
    expect(await stallingFileSystem('/dev/shm/no-such-file')).toBeUndefined();
  });
});

describe.skipIf(skipWithout('bindfs', HAS_BINDFS, 'apt-get install bindfs'))('a real FUSE mount (bindfs)', () => {
  let fuse: FuseMount;
  beforeAll(async () => {
    fuse = await fuseMount();
    await writeFile(join(fuse.source, 'clip.mp4'), 'bytes');
  });
  afterAll(() => fuse?.dispose());

  it('is recognised by the kernel’s answer, the folder and a file in it; its source folder is not', async () => {
    expect(await stallingFileSystem(fuse.mountpoint)).toBe('fuse');
    expect(await mayStall(join(fuse.mountpoint, 'clip.mp4'))).toBe(true);
    expect(await mayStall(join(fuse.source, 'clip.mp4'))).toBe(false);
  });

  it('anyMayStall: one input on it is enough; relative inputs are read from cwd; a glob by its folder', async () => {
    expect(await anyMayStall([fuse.source, 'mounted/clip.mp4'], join(fuse.mountpoint, '..'))).toBe(true);
    expect(await anyMayStall([join(fuse.mountpoint, 'videos', '*.mp4')], tmpdir())).toBe(true);
    expect(await anyMayStall([fuse.source, 'missing'], tmpdir())).toBe(false);
    expect(await anyMayStall([], tmpdir())).toBe(false);
  });
});
