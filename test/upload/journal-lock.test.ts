// The journal lock: one upload at a time per library; the second waits, a dead owner's lock is taken over.
import { unlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockJournal, lockPathOf } from '../../src/upload/send/journal-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noSleep = async () => {};

describe('lockJournal', () => {
  it('holds a file with our pid, removed on release', async () => {
    const lock = await lockJournal(dir, 't1', { sleep: noSleep });
    expect(lock.path).toBe(lockPathOf(dir, 't1'));
    expect(await readFile(lock.path, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
    await expect(readFile(lock.path, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a second taker waits (saying who holds it, once) until the first releases', async () => {
    const first = await lockJournal(dir, 't1', { sleep: noSleep });
    const waits: number[] = [];
    let sleeps = 0;
    const second = await lockJournal(dir, 't1', {
      onWait: (pid) => waits.push(pid),
      // The first run finishes while the second sleeps its third time.
      sleep: async () => {
        if (++sleeps === 3) await first.release();
      },
    });
    expect(waits).toEqual([process.pid]);
    expect(sleeps).toBe(3);
    await second.release();
  });

  it('other libraries are not blocked', async () => {
    const a = await lockJournal(dir, 'a', { sleep: noSleep });
    const b = await lockJournal(dir, 'b', { sleep: () => Promise.reject(new Error('must not wait')) });
    await Promise.all([a.release(), b.release()]);
  });

  it.each([
    ['a process that is gone', '4194305\n'],
    ['no pid at all', 'garbage'],
  ])('takes over a stale lock: %s', async (_what, content) => {
    const path = lockPathOf(dir, 't1');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    const lock = await lockJournal(dir, 't1', {
      sleep: () => Promise.reject(new Error('must not wait')),
      isAlive: (pid) => pid === process.pid,
    });
    expect(await readFile(path, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
  });

  // Two runs starting at once after a crash: before the takeover claim, both removed the stale
  // lock, each created its own (one over the other's) and both uploaded.
  it('two takers of the same stale lock: one takes it over, the other waits for it', async () => {
    const path = lockPathOf(dir, 't1');
    await mkdir(dirname(path), { recursive: true });
    const opts = {
      sleep: () => new Promise<void>((r) => setTimeout(r, 2)),
      isAlive: (pid: number) => pid === process.pid,
    };
    const holding = new Set<string>();
    let most = 0;
    const run = async (name: string) => {
      const lock = await lockJournal(dir, 't1', opts);
      holding.add(name);
      most = Math.max(most, holding.size);
      await new Promise((r) => setTimeout(r, 5));
      holding.delete(name);
      await lock.release();
    };
    // The race is a matter of interleaving: a few rounds, each starting from a stale lock.
    for (let round = 0; round < 15; round++) {
      await writeFile(path, '4194305\n');
      await Promise.all(['a', 'b', 'c', 'd'].map(run));
    }
    expect(most).toBe(1);
    await expect(readFile(path, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFile(`${path}.takeover`, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a stale lock that another run takes over between our look and our move is left to that run', async () => {
    const path = lockPathOf(dir, 't1');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '4194305\n');
    let tookOver = false;
    const isAlive = (pid: number) => {
      // Just as we find 4194305 dead, run 777 (alive) removes its lock and puts its own.
      if (pid === 4194305 && !tookOver) {
        tookOver = true;
        unlinkSync(path);
        writeFileSync(path, '777\n');
      }
      return pid === process.pid || pid === 777;
    };
    const waits: number[] = [];
    let sleeps = 0;
    const lock = await lockJournal(dir, 't1', {
      isAlive,
      onWait: (pid) => waits.push(pid),
      sleep: async () => {
        if (++sleeps === 2) unlinkSync(path); // run 777 finishes
      },
    });
    expect(waits).toEqual([777]);
    expect(await readFile(path, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
  });

  it('a takeover claim left by a run that died is itself taken over', async () => {
    const path = lockPathOf(dir, 't1');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '4194305\n');
    await writeFile(`${path}.takeover`, '4194306\n');
    const lock = await lockJournal(dir, 't1', { sleep: async () => {}, isAlive: (pid) => pid === process.pid });
    expect(await readFile(path, 'utf8')).toBe(`${process.pid}\n`);
    await lock.release();
  });

  it('Ctrl-C while waiting stops waiting and leaves the other run its lock', async () => {
    const first = await lockJournal(dir, 't1', { sleep: noSleep });
    const ctl = new AbortController();
    const waiting = lockJournal(dir, 't1', { signal: ctl.signal, sleep: async () => ctl.abort(new Error('SIGINT')) });
    await expect(waiting).rejects.toThrow('SIGINT');
    expect(await readFile(first.path, 'utf8')).toBe(`${process.pid}\n`);
    await first.release();
  });
});
