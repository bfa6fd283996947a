// One upload at a time per library journal. Two runs of the same command at once would both
// find the journal empty and upload everything twice, and each would overwrite the other's
// entries; so the second waits for the first, then reads the journal and skips what it did.
//
// The lock is a file holding the owner's pid, put in place with link() (which fails if it exists). A lock whose process is gone
// (killed, or a second Ctrl-C that exits at once) is stale and taken over.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface JournalLock {
  readonly path: string;
  release(): Promise<void>;
}

export interface LockOptions {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Called once, when the lock is held by another live process, with that process's pid. */
  onWait?: (pid: number) => void;
  pollMs?: number;
  /** Whether a process is running; injectable for tests. */
  isAlive?: (pid: number) => boolean;
}

/** Beside the journal itself (openJournal's `<state>/journals/<target>.json`). */
export function lockPathOf(stateDir: string, targetId: string): string {
  return join(stateDir, 'journals', `${targetId}.lock`);
}

/**
 * Waits until this process holds the library's journal lock. Two processes finding the same
 * stale lock at the same instant could both take it; that needs a crash and a race at once, and
 * costs at worst a file uploaded twice, as before this lock existed.
 */
export async function lockJournal(stateDir: string, targetId: string, o: LockOptions): Promise<JournalLock> {
  const path = lockPathOf(stateDir, targetId);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const isAlive = o.isAlive ?? processIsAlive;
  let waited = false;
  for (;;) {
    o.signal?.throwIfAborted();
    if (await tryCreate(path)) return { path, release: () => unlink(path).catch(() => {}) };
    const owner = await ownerOf(path);
    if (owner === 'gone') continue; // released between our two calls: try again at once
    if (owner === undefined || !isAlive(owner)) {
      // Stale: its process is gone (or the file was not written by us: no pid in it).
      await unlink(path).catch(() => {});
      continue;
    }
    if (!waited) o.onWait?.(owner);
    waited = true;
    await o.sleep(o.pollMs ?? 200, o.signal);
  }
}

/** Writes our pid to a temp file and hard-links it into place: the lock never exists without its pid. */
async function tryCreate(path: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${process.pid}\n`, { mode: 0o600 });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

/** The pid in the lock file; 'gone' when the file no longer exists; undefined when it holds no pid. */
async function ownerOf(path: string): Promise<number | 'gone' | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
