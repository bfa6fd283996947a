// The journal lock: one upload at a time per library; the second waits, a dead owner's lock is taken over.
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockJournal, lockPathOf } from '../../src/upload/journal-lock.js';

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
    const lock = await lockJournal(dir, 't1', { sleep: () => Promise.reject(new Error('must not wait')), isAlive: (pid) => pid === process.pid });
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
