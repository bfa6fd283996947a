import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalTargetId, metadataHash, openJournal } from '../../src/upload/journal.js';
import { createPool } from '../../src/upload/pool.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = { path: '/videos/a.mp4', size: 10, mtimeMs: 1700000000123.456 };

describe('journal', () => {
  it('remembers completed files across openings, keyed by path, size and mtime', async () => {
    const j = await openJournal(dir, 't1');
    await j.recordFile(file, { itemId: 'i1', key: 'u/f/a.mp4', type: 'shortform' });
    const again = await openJournal(dir, 't1');
    expect(again.findFile(file)).toMatchObject({ itemId: 'i1', key: 'u/f/a.mp4' });
    expect(again.findFile({ ...file, size: 11 })).toBeUndefined();
    expect(again.findFile({ ...file, mtimeMs: file.mtimeMs + 1 })).toBeUndefined();
    // Another target library has its own journal.
    expect((await openJournal(dir, 't2')).findFile(file)).toBeUndefined();
  });

  it('writes atomically: no temp files are left, and the file is always whole JSON', async () => {
    const j = await openJournal(dir, 't1');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        j.recordFile(
          { ...file, path: `/v/${i}.mp4` },
          { itemId: `i${i}`, key: `k${i}`, type: 'carousel', sortOrder: i },
        ),
      ),
    );
    const files = await readdir(join(dir, 'journals'));
    expect(files).toEqual(['t1.json']);
    const data = JSON.parse(await readFile(join(dir, 'journals', 't1.json'), 'utf8')) as {
      files: Record<string, unknown>;
    };
    expect(Object.keys(data.files)).toHaveLength(20);
  });

  it('forgets an item with all its files, and keeps item metadata state', async () => {
    const j = await openJournal(dir, 't1');
    await j.recordFile(file, { itemId: 'c1', key: 'k1', type: 'carousel', sortOrder: 0 });
    await j.recordFile({ ...file, path: '/b.jpg' }, { itemId: 'c1', key: 'k2', type: 'carousel', sortOrder: 1 });
    await j.recordItem('c1', { metadataHash: 'h' });
    expect(j.filesOfItem('c1').map((f) => f.key)).toEqual(['k1', 'k2']);
    expect(j.item('c1')?.metadataHash).toBe('h');
    await j.forgetItem('c1');
    expect(j.filesOfItem('c1')).toEqual([]);
    expect((await openJournal(dir, 't1')).item('c1')).toBeUndefined();
  });

  it('puts an unreadable journal aside and says so, instead of refusing to upload', async () => {
    await openJournal(dir, 't1');
    await writeFile(join(dir, 'journals', 't1.json'), '{"version":1,"files":');
    const j = await openJournal(dir, 't1', () => new Date('2026-01-01T00:00:00Z'));
    expect(j.warning).toMatch(/could not be read; it was moved to .*unreadable-2026-01-01/);
    expect((await readdir(join(dir, 'journals'))).sort()).toEqual(['t1.json.unreadable-2026-01-01T00-00-00-000Z']);
  });

  it('names targets without the key in them, and hashes metadata regardless of key order', () => {
    const id = journalTargetId('https://x', 'cl_secretkey');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).not.toContain('secret');
    expect(journalTargetId('https://x', 'other')).not.toBe(id);
    expect(metadataHash({ a: 1, b: { c: 2, d: 3 } })).toBe(metadataHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(metadataHash({ a: 1 })).not.toBe(metadataHash({ a: 2 }));
  });
});

describe('pool', () => {
  it('never runs more than its size at once, and runs everything', async () => {
    const pool = createPool(3);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pool.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 1));
          running--;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('starts nothing queued after the signal aborts', async () => {
    const ctl = new AbortController();
    const pool = createPool(1, ctl.signal);
    const ran: number[] = [];
    const first = pool.run(async () => {
      ran.push(1);
      ctl.abort();
    });
    const second = pool.run(async () => {
      ran.push(2);
    });
    await first;
    await expect(second).rejects.toThrow(/interrupted/);
    expect(ran).toEqual([1]);
  });
});
