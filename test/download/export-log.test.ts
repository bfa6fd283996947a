// The export folder's log (manifest.jsonl): appended to, read back as the current set, and
// robust to a line cut short by a crash.
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ItemRecord, LOG_NAME, openLog, readExportState } from '../../src/download/export-log.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-log-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const item = (id: string, title: string): ItemRecord => ({
  kind: 'item',
  id,
  type: 'shortform',
  title,
  status: 'draft',
  createdAt: '2026-01-01T00:00:00.000Z',
  folder: id,
  files: [{ path: `${id}/clip.mp4`, size: 3, sha256: 'a'.repeat(64), source: 's' }],
  sidecar: { path: `${id}/clip.mp4.json`, size: 2, sha256: 'b'.repeat(64) },
  exportedAt: '2026-01-01T00:00:00.000Z',
});

describe('the export log', () => {
  it('holds the latest line of each item, forgets removed ones, and keeps the last run', async () => {
    const log = await openLog(dir);
    await log.append(item('a', 'first'));
    await log.append(item('b', 'été ☀'));
    await log.append(item('a', 'second'));
    await log.append({ kind: 'removed', id: 'b', folder: 'b', reason: 'deleted', exportedAt: 'now' });
    await log.append({
      kind: 'run',
      at: 'now',
      from: 'x',
      filters: { type: 'shortform' },
      items: 1,
      new: 2,
      changed: 1,
      removed: 1,
      failed: 0,
    });
    await log.close();
    const state = await readExportState(dir);
    expect([...state.items.keys()]).toEqual(['a']);
    expect((await state.record('a'))?.title).toBe('second');
    expect(await state.record('b')).toBeUndefined();
    expect(state.lastRun?.filters).toEqual({ type: 'shortform' });
    await state.close();
  });

  it('a line cut short by a crash is passed over and ended before the next append', async () => {
    const log = await openLog(dir);
    await log.append(item('a', 'whole'));
    await log.close();
    await appendFile(join(dir, LOG_NAME), '{"kind":"item","id":"b","ti');
    const after = await openLog(dir);
    const ref = await after.append(item('c', 'after the crash'));
    await after.close();
    const state = await readExportState(dir);
    expect(state.unreadable).toBe(1);
    expect([...state.items.keys()]).toEqual(['a', 'c']);
    expect(state.items.get('c')).toEqual(ref);
    expect((await state.record('c'))?.title).toBe('after the crash');
    expect((await readFile(join(dir, LOG_NAME), 'utf8')).split('\n')).toHaveLength(4);
    await state.close();
  });

  it('a folder without a log is an empty set', async () => {
    const state = await readExportState(join(dir, 'nothing-here'));
    expect(state.items.size).toBe(0);
    expect(state.lastRun).toBeUndefined();
    await state.close();
  });
});
