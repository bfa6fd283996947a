import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FileIdentity,
  type Journal,
  journalTargetId,
  metadataHash,
  openJournal,
} from '../../src/upload/send/journal.js';
import { createPool } from '../../src/concurrency/pool.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = { path: '/videos/a.mp4', size: 10, mtimeMs: 1700000000123.456 };

/** The file's entry when it is completed into an item: what a re-run counts as done. */
function completed(j: Journal, f: FileIdentity) {
  const r = j.lookup(f);
  return r?.state === 'completed' ? r : undefined;
}

describe('journal', () => {
  it('records a multipart upload and its parts, found by path whatever the file is now', async () => {
    const j = await openJournal(dir, 't1');
    expect(j.multipart(file.path)).toBeUndefined();
    j.recordMultipart(file, { key: 'k1', type: 'longform', partSize: 8, partCount: 2, sha256: 'ab'.repeat(32) });
    j.recordPart('k1', { partNumber: 2, etag: '"e2"', size: 2 });
    j.recordPart('k1', { partNumber: 1, etag: '"old"', size: 8 });
    // A part sent again replaces its ETag.
    j.recordPart('k1', { partNumber: 1, etag: '"e1"', size: 8 });
    j.close();
    const again = await openJournal(dir, 't1');
    expect(again.multipart(file.path)).toEqual({
      key: 'k1',
      ...file,
      sha256: 'ab'.repeat(32),
      type: 'longform',
      partSize: 8,
      partCount: 2,
      parts: [
        { partNumber: 1, etag: '"e1"', size: 8 },
        { partNumber: 2, etag: '"e2"', size: 2 },
      ],
    });
    // A new upload of the same path replaces the old one and its parts.
    again.recordMultipart({ ...file, size: 11 }, { key: 'k2', type: 'longform', partSize: 8, partCount: 2 });
    expect(again.multipart(file.path)).toMatchObject({ key: 'k2', size: 11, parts: [] });
    expect(again.multipart(file.path)?.sha256).toBeUndefined();
    again.recordPart('k2', { partNumber: 1, etag: '"x"', size: 8 });
    again.dropMultipart('k2');
    expect(again.multipart(file.path)).toBeUndefined();
    // Its parts went with it: a later upload under the same key starts with none.
    again.recordMultipart(file, { key: 'k2', type: 'longform', partSize: 8, partCount: 2 });
    expect(again.multipart(file.path)?.parts).toEqual([]);
    again.close();
  });

  it('remembers completed files across openings, keyed by path, size and mtime', async () => {
    const j = await openJournal(dir, 't1');
    await j.recordFile(file, { itemId: 'i1', key: 'u/f/a.mp4', type: 'shortform' });
    const again = await openJournal(dir, 't1');
    expect(completed(again, file)).toMatchObject({ itemId: 'i1', key: 'u/f/a.mp4' });
    expect(completed(again, { ...file, size: 11 })).toBeUndefined();
    expect(completed(again, { ...file, mtimeMs: file.mtimeMs + 1 })).toBeUndefined();
    expect(again.completedItem(file)).toBe('i1');
    expect(again.completedItem({ ...file, size: 11 })).toBeUndefined();
    // Another target library has its own journal.
    expect(completed(await openJournal(dir, 't2'), file)).toBeUndefined();
  });

  it('keeps one database per library, and records many files at a constant cost', async () => {
    const j = await openJournal(dir, 't1');
    for (let i = 0; i < 2000; i++)
      j.recordFile(
        { ...file, path: `/v/${i}.jpg` },
        { itemId: `i${i % 10}`, key: `k${i}`, type: 'carousel', sortOrder: i },
      );
    j.close();
    const names = (await readdir(join(dir, 'journals'))).filter((n) => !n.endsWith('-wal') && !n.endsWith('-shm'));
    expect(names).toEqual(['t1.db']);
    const again = await openJournal(dir, 't1');
    expect(completed(again, { ...file, path: '/v/1999.jpg' })).toMatchObject({ itemId: 'i9', sortOrder: 1999 });
    const ofI3 = Array.from({ length: 2000 }, (_, i) => completed(again, { ...file, path: `/v/${i}.jpg` })).filter(
      (r) => r?.itemId === 'i3',
    );
    expect(ofI3).toHaveLength(200);
    again.close();
  });

  it('follows a file from presigned to put to completed; only a completed one is found as done', async () => {
    const j = await openJournal(dir, 't1');
    j.recordPresigned(file, { key: 'k1', type: 'shortform' });
    expect(completed(j, file)).toBeUndefined();
    expect(j.completedItem(file)).toBeUndefined();
    expect(j.lookup(file)).toMatchObject({ state: 'presigned', key: 'k1' });
    j.recordPut(file, 'other-key'); // not the key presigned: ignored
    expect(j.lookup(file)).toMatchObject({ state: 'presigned' });
    j.recordPut(file, 'k1');
    expect(j.lookup(file)).toMatchObject({ state: 'put', key: 'k1' });
    j.dropPending(file);
    expect(j.lookup(file)).toBeUndefined();
    j.recordPresigned(file, { key: 'k2', type: 'shortform' });
    j.recordPut(file, 'k2');
    j.recordFile(file, { itemId: 'i1', key: 'k2', type: 'shortform' });
    j.dropPending(file); // a completed file is not pending: kept
    expect(completed(j, file)).toMatchObject({ state: 'completed', itemId: 'i1', key: 'k2' });
    expect(j.completedItem(file)).toBe('i1');
    j.close();
  });

  it('forgets an item with all its files, and keeps item metadata state', async () => {
    const j = await openJournal(dir, 't1');
    await j.recordFile(file, { itemId: 'c1', key: 'k1', type: 'carousel', sortOrder: 0 });
    await j.recordFile({ ...file, path: '/b.jpg' }, { itemId: 'c1', key: 'k2', type: 'carousel', sortOrder: 1 });
    await j.recordItem('c1', { metadataHash: 'h' });
    const both = [file, { ...file, path: '/b.jpg' }];
    expect(both.map((f) => completed(j, f)).map((r) => [r?.itemId, r?.key, r?.sortOrder])).toEqual([
      ['c1', 'k1', 0],
      ['c1', 'k2', 1],
    ]);
    expect(j.item('c1')?.metadataHash).toBe('h');
    await j.forgetItem('c1');
    expect(both.map((f) => j.lookup(f))).toEqual([undefined, undefined]);
    expect((await openJournal(dir, 't1')).item('c1')).toBeUndefined();
  });

  it('puts an unreadable journal aside and says so, instead of refusing to upload', async () => {
    (await openJournal(dir, 't1')).close();
    await writeFile(
      join(dir, 'journals', 't1.db'),
      'this is not a database, but it is long enough to be read as one '.repeat(100),
    );
    const j = await openJournal(dir, 't1', () => new Date('2026-01-01T00:00:00Z'));
    expect(j.warning).toMatch(/could not be read; it was moved to .*t1\.db\.unreadable-2026-01-01/);
    j.recordFile(file, { itemId: 'i1', key: 'k', type: 'shortform' });
    expect(completed(j, file)).toBeDefined();
    j.close();
    expect(await readdir(join(dir, 'journals'))).toContain('t1.db.unreadable-2026-01-01T00-00-00-000Z');
  });

  it('imports a JSON journal of version 1 once, then keeps it aside as .imported', async () => {
    const v1 = {
      version: 1,
      target: 't1',
      files: {
        a: { ...file, itemId: 'i1', key: 'u/f/a.mp4', type: 'shortform', completedAt: '2026-01-01T00:00:00.000Z' },
        b: {
          path: '/imgs/1.jpg',
          size: 5,
          mtimeMs: 1,
          itemId: 'c1',
          key: 'u/g/1.jpg',
          type: 'carousel',
          sortOrder: 0,
          completedAt: '2026-01-01T00:00:00.000Z',
        },
      },
      items: { i1: { metadataHash: 'h1', thumbnail: 'tk', updatedAt: '2026-01-01T00:00:00.000Z' } },
    };
    await mkdir(join(dir, 'journals'), { recursive: true });
    await writeFile(join(dir, 'journals', 't1.json'), JSON.stringify(v1));
    const j = await openJournal(dir, 't1');
    expect(j.warning).toBeUndefined();
    expect(completed(j, file)).toMatchObject({ itemId: 'i1', key: 'u/f/a.mp4', type: 'shortform' });
    expect(completed(j, { path: '/imgs/1.jpg', size: 5, mtimeMs: 1 })).toMatchObject({ itemId: 'c1', sortOrder: 0 });
    expect(j.item('i1')).toMatchObject({ metadataHash: 'h1', thumbnail: 'tk' });
    // Newer knowledge wins over a second import (a crash between commit and rename).
    j.recordFile(file, { itemId: 'i2', key: 'k2', type: 'shortform' });
    j.close();
    const names = await readdir(join(dir, 'journals'));
    expect(names).toContain('t1.json.imported');
    expect(names).not.toContain('t1.json');
    await writeFile(join(dir, 'journals', 't1.json'), JSON.stringify(v1));
    const again = await openJournal(dir, 't1');
    expect(completed(again, file)).toMatchObject({ itemId: 'i2' });
    again.close();
  });

  it('puts an unreadable JSON journal aside too', async () => {
    await mkdir(join(dir, 'journals'), { recursive: true });
    await writeFile(join(dir, 'journals', 't1.json'), '{"version":1,"files":');
    const j = await openJournal(dir, 't1', () => new Date('2026-01-01T00:00:00Z'));
    expect(j.warning).toMatch(/t1\.json could not be read; it was moved to .*unreadable-2026-01-01/);
    j.close();
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
