// What download and export print while they work: the log line of each event (one row per
// case), the plain listener's start/done lines, and NDJSON without progress ticks.
import { describe, expect, it } from 'vitest';
import { createTransferProgress, eventLine } from '../../src/cli/output/download-progress.js';
import type { DownloadEvent, FileRef } from '../../src/download/events.js';
import { bufferIO } from '../support/io.js';

const file: FileRef = { path: '/o/clips/a.mp4', shown: 'clips/a.mp4', size: 2_000_000, itemId: 'i1', role: 'file' };
const thumb: FileRef = { path: '/o/i1/thumbnail.jpg', shown: 'i1/thumbnail.jpg', itemId: 'i1', role: 'thumbnail' };

describe('eventLine', () => {
  it.each<[DownloadEvent, string | undefined]>([
    [
      { type: 'downloaded', file, bytes: 2_000_000, resumedFrom: 0, ms: 1000 },
      'done     clips/a.mp4, 1.9 MB in 1.0 s, 1.9 MB/s',
    ],
    [
      { type: 'downloaded', file, bytes: 2_000_000, resumedFrom: 1_000_000, ms: 500 },
      'done     clips/a.mp4, 1.9 MB in 500 ms, 1.9 MB/s, resumed at 977 KB',
    ],
    [
      { type: 'skipped', file, reason: 'already there (--skip-existing)' },
      'skipped  clips/a.mp4: already there (--skip-existing)',
    ],
    [
      { type: 'retrying', file, attempt: 1, delayMs: 500, reason: 'connection reset', from: 65536 },
      'retry    clips/a.mp4: try 2 in 500 ms from 64 KB (connection reset)',
    ],
    [{ type: 'failed', file: thumb, itemId: 'i1', message: 'gone' }, 'failed   i1/thumbnail.jpg (thumbnail): gone'],
    [{ type: 'failed', itemId: 'i2', message: 'not found' }, 'failed   i2: not found'],
    [
      { type: 'exported', itemId: 'i1', itemType: 'carousel', title: 'Stills', change: 'new', folder: 'i1' },
      'new      i1 (carousel: Stills)',
    ],
    [
      { type: 'exported', itemId: 'i1', itemType: 'carousel', title: 'Stills', change: 'changed', folder: 'i1' },
      'changed  i1 (carousel: Stills)',
    ],
    [
      { type: 'exported', itemId: 'i1', itemType: 'carousel', title: 'Stills', change: 'unchanged', folder: 'i1' },
      undefined,
    ],
    [
      {
        type: 'removed',
        itemId: 'i3',
        folder: 'i3',
        reason: 'deleted from the library',
        files: 3,
        left: ['i3/mine.txt'],
      },
      'removed  i3 (deleted from the library; 3 files); left i3/mine.txt',
    ],
    [{ type: 'progress', file, have: 10 }, undefined],
  ])('%j', (event, line) => {
    expect(eventLine(event)).toBe(line);
  });
});

describe('the listeners', () => {
  it('plain: a start line and a done line per file, then the summary lines', async () => {
    const io = bufferIO();
    let t = 0;
    const p = createTransferProgress('plain', io, { clock: () => t });
    p.onEvent({ type: 'started', file, from: 0 });
    p.onEvent({ type: 'progress', file, have: 1000 });
    t = 1000;
    p.onEvent({ type: 'downloaded', file, bytes: 2_000_000, resumedFrom: 0, ms: 1000 });
    await p.finish({}, ['1 file downloaded.']);
    expect(io.err()).toBe(
      'start    clips/a.mp4 (1.9 MB)\ndone     clips/a.mp4, 1.9 MB in 1.0 s, 1.9 MB/s\n1 file downloaded.\n',
    );
    expect(io.out()).toBe('');
  });

  it('json: one line per event but progress, then the summary, on stdout', async () => {
    const io = bufferIO();
    const p = createTransferProgress('json', io);
    p.onEvent({ type: 'started', file, from: 0 });
    p.onEvent({ type: 'progress', file, have: 1000 });
    p.onEvent({ type: 'downloaded', file, bytes: 2_000_000, resumedFrom: 0, ms: 5 });
    await p.finish({ bytes: 2_000_000 }, ['ignored']);
    const lines = io
      .out()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(['started', 'downloaded', 'summary']);
    expect(lines[2]).toEqual({ type: 'summary', bytes: 2_000_000 });
    expect(io.err()).toBe('');
  });
});
