// Space held back for the one write that frees space. On a full disk SQLite cannot grow its
// write-ahead log, so even a DELETE would fail; a small file kept in the data dir is given up
// for that DELETE, and made again by the sweeper once there is room.
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export const RESERVE_BYTES = 256 * 1024;

export interface Reserve {
  /** Makes the reserve file when it is missing; false when the disk has no room for it now. */
  ensure(): Promise<boolean>;
  /** Gives the space up; false when there was none held. */
  release(): Promise<boolean>;
}

export function createReserve(dataDir: string, bytes = RESERVE_BYTES): Reserve {
  const file = join(dataDir, 'reserve');
  return {
    async ensure() {
      let handle;
      try {
        handle = await open(file, 'wx', 0o600);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return true;
        throw err;
      }
      try {
        // Real blocks, not a sparse file: zeros written out.
        await handle.write(Buffer.alloc(bytes), 0, bytes, 0);
        await handle.sync();
        await handle.close();
        return true;
      } catch (err) {
        await handle.close().catch(() => undefined);
        await unlink(file).catch(() => undefined);
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return false;
        throw err;
      }
    },
    async release() {
      try {
        await unlink(file);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
  };
}
