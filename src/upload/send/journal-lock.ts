// One upload at a time per library journal. Two runs of the same command at once would both
// find the journal empty and upload everything twice, and each would overwrite the other's
// entries; so the second waits for the first, then reads the journal and skips what it did.
//
// The lock is a file holding the owner's pid, put in place with link() (which fails if it exists). A lock whose process is gone
// (killed, or a second Ctrl-C that exits at once) is stale and taken over.
import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDir } from '../../fs/make-dir.js';

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
 * Waits until this process holds the library's journal lock. A stale lock is taken over by one
 * taker at a time (takeOver); only a run that dies while taking over leaves a claim that the
 * next taker has to clear, and it does.
 */
export async function lockJournal(stateDir: string, targetId: string, o: LockOptions): Promise<JournalLock> {
  const path = lockPathOf(stateDir, targetId);
  await makeDir(dirname(path));
  const isAlive = o.isAlive ?? processIsAlive;
  let waited = false;
  for (;;) {
    o.signal?.throwIfAborted();
    if (await tryCreate(path)) return held(path);
    const owner = await ownerOf(path);
    if (owner === 'gone') continue; // released between our two calls: try again at once
    if (owner === undefined || !isAlive(owner)) {
      // Stale: its process is gone (or the file was not written by us: no pid in it).
      const took = await takeOver(path, isAlive);
      if (took === 'taken') return held(path);
      if (took === 'busy') await o.sleep(Math.min(o.pollMs ?? 200, 20), o.signal);
      continue;
    }
    if (!waited) o.onWait?.(owner);
    waited = true;
    await o.sleep(o.pollMs ?? 200, o.signal);
  }
}

function held(path: string): JournalLock {
  return { path, release: () => unlink(path).catch(() => {}) };
}

/**
 * Replaces a stale lock with ours. Removing it is only safe for one taker at a time: two runs
 * that both saw it stale would otherwise each remove it, the second removing the first's fresh
 * lock, and both would upload. So a taker first claims the takeover (a second lock file, made
 * the same way), then checks under the claim that the lock is still a dead one before removing
 * it. 'busy': another run holds the claim; 'live': someone took the lock over meanwhile.
 */
async function takeOver(path: string, isAlive: (pid: number) => boolean): Promise<'taken' | 'busy' | 'live'> {
  const claim = `${path}.takeover`;
  if (!(await tryCreate(claim))) {
    // A claimant that died mid-way leaves its claim behind: that one is stale too.
    const claimant = await ownerOf(claim);
    if (claimant !== 'gone' && (claimant === undefined || !isAlive(claimant))) await unlink(claim).catch(() => {});
    return 'busy';
  }
  try {
    // Under the claim only its holder removes a dead lock, and a new lock cannot appear while
    // the dead one is in place: what we read now stays true until we act on it.
    const owner = await ownerOf(path);
    if (owner !== 'gone' && owner !== undefined && isAlive(owner)) return 'live';
    if (owner !== 'gone') await unlink(path).catch(() => {});
    return (await tryCreate(path)) ? 'taken' : 'live';
  } finally {
    await unlink(claim).catch(() => {});
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
