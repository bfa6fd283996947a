// The three progress listeners over the same events: plain lines without escape codes, NDJSON
// that parses line by line, and a multibar that draws only where stderr is a terminal.
import { describe, expect, it } from 'vitest';
import { createJsonProgress, summaryItem } from '../../src/cli/output/progress-json.js';
import { createPlainProgress, heartbeatLines } from '../../src/cli/output/progress-plain.js';
import { summaryLines } from '../../src/cli/output/progress-summary.js';
import { createTtyProgress } from '../../src/cli/output/progress-tty.js';
import { formatEta } from '../../src/cli/output/tty-bars.js';
import type { FileRef, UploadEvent, UploadSummary } from '../../src/upload/send/events.js';
import { bufferIO } from '../support/io.js';

const clip: FileRef = { path: '/v/clip.mp4', name: 'clip.mp4', size: 4_000_000, item: 0, role: 'file' };
const bad: FileRef = { path: '/v/bad.mp4', name: 'bad.mp4', size: 1000, item: 1, role: 'file' };
const events: UploadEvent[] = [
  { type: 'planned', items: 2, files: 2, bytes: 4_001_000, alreadyDone: 1 },
  { type: 'started', file: clip },
  { type: 'started', file: bad },
  { type: 'progress', file: clip, sent: 2_000_000 },
  {
    type: 'retrying',
    step: 'put',
    file: bad,
    attempt: 1,
    delayMs: 250,
    reason: 'PUT http://x/storage/k?[signed] failed: connection reset while sending',
  },
  { type: 'progress', file: clip, sent: 4_000_000 },
  { type: 'uploaded', file: clip, ms: 1200 },
  { type: 'completed', file: clip, itemId: 'id-1', itemType: 'shortform', created: true },
  { type: 'failed', file: bad, item: 1, message: 'storage refused the upload' },
];
const summary: UploadSummary = {
  items: [
    {
      index: 0,
      type: 'shortform',
      source: 'v/clip.mp4',
      status: 'created',
      itemId: 'id-1',
      filesCompleted: 1,
      filesSkipped: 0,
      filesTotal: 1,
    },
    {
      index: 1,
      type: 'shortform',
      source: 'v/bad.mp4',
      status: 'failed',
      filesCompleted: 0,
      filesSkipped: 0,
      filesTotal: 1,
      message: 'bad.mp4: storage refused the upload',
    },
    {
      index: 2,
      type: 'carousel',
      source: 'v/pics',
      status: 'skipped',
      itemId: 'id-0',
      filesCompleted: 0,
      filesSkipped: 3,
      filesTotal: 3,
    },
  ],
  interrupted: false,
  bytesSent: 4_000_000,
  ms: 1500,
};
// eslint-disable-next-line no-control-regex
const ESC = /\u001b\[/;

describe('progress listeners', () => {
  it('plain: a line per start, end and retry, the summary, and never an escape code', async () => {
    const io = bufferIO();
    let t = 0;
    const p = createPlainProgress(io, () => (t += 100));
    events.forEach((e) => p.onEvent(e));
    await p.finish(summary);
    const err = io.err();
    expect(err).not.toMatch(ESC);
    expect(err).not.toContain('\r');
    const lines = err.trim().split('\n');
    expect(lines[0]).toBe('Uploading 2 files (3.8 MB) as 2 items; 1 already uploaded');
    expect(lines.filter((l) => l.startsWith('start'))).toHaveLength(2);
    expect(err).toMatch(/done {5}clip\.mp4 → id-1, 3\.8 MB in/);
    expect(err).toMatch(/retry {4}bad\.mp4: try 2 in 250 ms/);
    expect(err).toMatch(/failed {3}bad\.mp4: storage refused/);
    expect(err).toContain('3 already uploaded, skipped; --force uploads again.');
    expect(io.out()).toBe('id-1\tshortform\tcreated\tv/clip.mp4\nid-0\tcarousel\tskipped\tv/pics\n');
  });

  it('plain, a re-run with nothing new: one line on stderr, not a header, a line per file and a footer', async () => {
    const io = bufferIO();
    const p = createPlainProgress(io, () => 0);
    const pics: FileRef = { path: '/v/pics/1.jpg', name: '1.jpg', size: 10, item: 0, role: 'file' };
    p.onEvent({ type: 'planned', items: 0, files: 0, bytes: 0, alreadyDone: 2 });
    p.onEvent({ type: 'skipped', file: pics, itemId: 'id-0', reason: 'already uploaded' });
    p.onEvent({
      type: 'skipped',
      file: { ...pics, path: '/v/pics/2.jpg', name: '2.jpg' },
      itemId: 'id-0',
      reason: 'already uploaded',
    });
    await p.finish({ items: [summary.items.at(2)!], interrupted: false, bytesSent: 0, ms: 40 });
    expect(io.err()).toBe('Nothing new to upload: 1 item (3 files) already uploaded; --force uploads them again.\n');
    expect(io.out()).toBe('id-0\tcarousel\tskipped\tv/pics\n');
  });

  it('plain: files the library holds are not announced as uploads; the plan line waits for the first file sent', async () => {
    const file = (name: string): FileRef => ({ path: `/v/${name}`, name, size: 1000, item: 0, role: 'file' });
    const found = (name: string) =>
      ({
        type: 'skipped',
        file: file(name),
        itemId: 'id-9',
        reason: 'already in the library as shortform',
        inLibrary: true,
      }) as const;
    const none = bufferIO();
    const p = createPlainProgress(none, () => 0);
    p.onEvent({ type: 'planned', items: 2, files: 2, bytes: 2000, alreadyDone: 0 });
    p.onEvent(found('a.mp4'));
    p.onEvent(found('b.mp4'));
    await p.stop();
    expect(none.err()).not.toContain('Uploading');
    expect(none.err()).toContain('skipped  a.mp4: already in the library as shortform (id-9)');

    const some = bufferIO();
    const q = createPlainProgress(some, () => 0);
    q.onEvent({ type: 'planned', items: 2, files: 2, bytes: 2000, alreadyDone: 1 });
    q.onEvent(found('a.mp4'));
    q.onEvent({ type: 'started', file: file('c.mp4') });
    await q.stop();
    const lines = some.err().trim().split('\n');
    expect(lines[0]).toMatch(/^skipped {2}a\.mp4/);
    expect(lines[1]).toBe('Uploading 1 file (1000 B) as 2 items; 1 already uploaded, 1 already in the library');
  });

  it('plain: a resumed file says what was stored already, and its speed counts only the bytes sent now', async () => {
    const io = bufferIO();
    let t = 0;
    const p = createPlainProgress(io, () => t);
    const big: FileRef = { path: '/v/big.mp4', name: 'big.mp4', size: 400 * 1024 ** 2, item: 0, role: 'file' };
    p.onEvent({ type: 'planned', items: 1, files: 1, bytes: big.size, alreadyDone: 0 });
    p.onEvent({ type: 'started', file: big, resumedFrom: 300 * 1024 ** 2 });
    t = 2000; // 100 MB in 2 s
    p.onEvent({ type: 'completed', file: big, itemId: 'id-1', itemType: 'longform', created: true });
    await p.stop();
    const err = io.err();
    expect(err).toContain('start    big.mp4 (400 MB; resuming: 300 MB already stored by an earlier run)');
    expect(err).toMatch(/done {5}big\.mp4 → id-1, 400 MB in 2\.0 s, 50 MB\/s/);
  });

  it('json: one parseable object per line on stdout, progress left out, a summary last', async () => {
    const io = bufferIO();
    const p = createJsonProgress(io);
    events.forEach((e) => p.onEvent(e));
    await p.finish(summary);
    const objects = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(objects.map((o) => o.type)).toEqual([
      'planned',
      'started',
      'started',
      'retrying',
      'uploaded',
      'completed',
      'failed',
      'summary',
    ]);
    expect(objects.at(-1)).toMatchObject({ type: 'summary', created: 1, failed: 1, skipped: 1, bytesSent: 4_000_000 });
    expect(io.err()).toBe('');
  });

  it('tty: draws bars with names and a total on a terminal, then clears them for the summary', async () => {
    const io = bufferIO({}, { terminalStderr: true });
    const p = createTtyProgress(io);
    events.slice(0, 4).forEach((e) => p.onEvent(e));
    await new Promise((r) => setTimeout(r, 250)); // let cli-progress's 10 fps timer draw
    const drawing = io.err();
    expect(drawing).toMatch(/clip\.mp4 +█+░+ +50% 1\.9 MB\/3\.8 MB/);
    expect(drawing).toMatch(/total/);
    events.slice(4).forEach((e) => p.onEvent(e));
    await p.finish(summary);
    const all = io.err();
    expect(all).toContain('✓ clip.mp4 → shortform id-1');
    expect(all).toContain('✗ bad.mp4: storage refused the upload');
    expect(all).toContain('1 item created, 1 already there, 1 failed');
  });

  it('tty: a large file found in the library once sent loses its bar, and the total no longer counts it', async () => {
    const big: FileRef = { path: '/v/big.mp4', name: 'big.mp4', size: 40_000_000, item: 0, role: 'file' };
    const io = bufferIO({}, { terminalStderr: true });
    const p = createTtyProgress(io);
    p.onEvent({ type: 'planned', items: 2, files: 2, bytes: 44_000_000, alreadyDone: 0 });
    p.onEvent({ type: 'started', file: big });
    p.onEvent({ type: 'progress', file: big, sent: 40_000_000 });
    p.onEvent({ type: 'started', file: clip });
    p.onEvent({ type: 'progress', file: clip, sent: 1_000_000 });
    await new Promise((r) => setTimeout(r, 250)); // let cli-progress's 10 fps timer draw
    expect(io.err()).toMatch(/big\.mp4 +█+ +100%/);
    const before = io.err().length;
    p.onEvent({
      type: 'skipped',
      file: big,
      itemId: 'id-9',
      reason: 'already in the library as longform',
      inLibrary: true,
    });
    p.onEvent({ type: 'progress', file: clip, sent: 2_000_000 });
    await new Promise((r) => setTimeout(r, 250));
    const after = io.err().slice(before);
    expect(after).toContain('= big.mp4: already in the library as longform id-9');
    expect(after).toMatch(/clip\.mp4 +[█░]+ +50%/);
    expect(after).not.toMatch(/big\.mp4 +[█░]+/);
    // The total is the clip's 4 MB alone now.
    expect(after).toMatch(/total +[█░]+ +50% .*\/3\.8 MB/);
    await p.finish({ ...summary, items: [] });
  });

  it('summary after Ctrl-C says what was and was not created', () => {
    const lines = summaryLines({
      ...summary,
      interrupted: true,
      items: [
        summary.items.at(0)!,
        {
          index: 1,
          type: 'longform',
          source: 'v/big.mp4',
          status: 'interrupted',
          filesCompleted: 0,
          filesSkipped: 0,
          filesTotal: 1,
        },
      ],
    });
    expect(lines).toContain('Created: v/clip.mp4 → id-1');
    expect(lines).toContain('Not created: v/big.mp4');
  });

  it('says what a large file keeps for the next run: after Ctrl-C, after a failure, and nothing when none', () => {
    const big = {
      index: 1,
      type: 'longform' as const,
      source: 'v/big.mp4',
      filesCompleted: 0,
      filesSkipped: 0,
      filesTotal: 1,
    };
    const cut = summaryLines({
      ...summary,
      interrupted: true,
      bytesKept: 640 * 1024 * 1024,
      items: [{ ...big, status: 'interrupted' }],
    });
    expect(cut).toContain(
      'Kept for the next run: 640 MB of large files already stored as parts; the next run sends only the rest.',
    );
    expect(cut.at(-1)).toBe('Run the same command again to upload the rest; nothing is uploaded twice.');
    const failed = summaryLines({
      ...summary,
      bytesKept: 8 * 1024 * 1024,
      items: [{ ...big, status: 'failed', message: 'big.mp4: PUT failed: connection reset' }],
    });
    expect(failed).toContain(
      '8 MB of parts already stored are kept for the next run: running the same command again sends only the rest.',
    );
    expect(summaryLines({ ...summary, interrupted: true }).join('\n')).not.toContain('Kept for the next run');
  });

  it('items already in the library: what differs is named (nothing changed), what --update-metadata applied too', () => {
    const there = (id: string, o: object) => ({
      index: 0,
      type: 'shortform' as const,
      source: `v/${id}.mp4`,
      itemId: id,
      status: 'skipped' as const,
      filesCompleted: 0,
      filesSkipped: 1,
      filesInLibrary: 1,
      filesTotal: 1,
      ...o,
    });
    const lines = summaryLines({
      ...summary,
      items: [there('a', { differs: ['title', 'status'] }), there('b', { updated: ['hashtags'] }), there('c', {})],
    });
    expect(lines).toEqual([
      'Nothing new to upload: 3 items (3 files) already in the library; --force uploads them again.',
      'Updated: v/b.mp4 (b): hashtags',
      'v/a.mp4 (a): differs from the library: title, status; --update-metadata applies them',
      '1 item kept as the library has it: nothing was changed.',
    ]);
  });

  it('a failed single file is named once, a carousel by its folder then the image', () => {
    const failed = (source: string, message: string) => ({
      index: 0,
      type: 'shortform' as const,
      source,
      status: 'failed' as const,
      filesCompleted: 0,
      filesSkipped: 0,
      filesTotal: 1,
      message,
    });
    const lines = summaryLines({
      ...summary,
      items: [
        failed('v/teaser.mov', 'teaser.mov: quota exceeded (403 quota_exceeded)'),
        failed('v/album', '2.png: quota exceeded (403 quota_exceeded)'),
      ],
    });
    expect(lines).toContain('Failed: v/teaser.mov: quota exceeded (403 quota_exceeded)');
    expect(lines).toContain('Failed: v/album: 2.png: quota exceeded (403 quota_exceeded)');
  });
});

describe('heartbeat, ETA and the NDJSON names', () => {
  const keynote: FileRef = { path: '/v/keynote.mp4', name: 'keynote.mp4', size: 1024 ** 3, item: 0, role: 'file' };

  it.each([
    [412 * 1024 ** 2, 2_000, 'sending  keynote.mp4 412 MB/1 GB 206 MB/s'],
    [0, 2_000, 'sending  keynote.mp4 0 B/1 GB'],
    [1024, 0, 'sending  keynote.mp4 1 KB/1 GB'],
  ])('a transfer at %d bytes after %d ms: %s', (sent, ms, line) => {
    expect(heartbeatLines([{ file: keynote, t0: 1000, sent }], 1000 + ms)).toEqual([line]);
  });

  it('a thumbnail says so in its heartbeat', () => {
    const thumb: FileRef = { ...keynote, name: 'cover.jpg', size: 2048, role: 'thumbnail' };
    expect(heartbeatLines([{ file: thumb, t0: 0, sent: 1024 }], 1000)).toEqual([
      'sending  cover.jpg (thumbnail) 1 KB/2 KB 1 KB/s',
    ]);
  });

  it.each([
    [100, 0, 1000, '--'],
    [100, 50, 0, '--'],
    [0, 100, 1000, '0s'],
    [100, 100, 1000, '1s'],
    [90 * 100, 100, 1000, '1m30s'],
    [3700 * 100, 100, 1000, '1h01m'],
  ])('ETA with %d bytes left after %d sent in %d ms: %s', (remaining, sent, ms, eta) => {
    expect(formatEta(remaining, sent, ms)).toBe(eta);
  });

  it('summary items use the names ls uses: id, type; outcome for what the run did', () => {
    expect(summaryItem(summary.items.at(0)!)).toEqual({
      id: 'id-1',
      outcome: 'created',
      index: 0,
      type: 'shortform',
      source: 'v/clip.mp4',
      filesCompleted: 1,
      filesSkipped: 0,
      filesInLibrary: 0,
      filesTotal: 1,
      // Every field in every outcome: null or false where it does not apply.
      message: null,
      keyRejected: false,
      title: null,
      deletedItemId: null,
      differs: [],
      updated: [],
    });
    expect(summaryItem(summary.items.at(1)!)).toMatchObject({ id: null, outcome: 'failed' });
  });

  it('json: planned and summary carry the target', async () => {
    const io = bufferIO();
    const target = { kind: 'embedded' as const, dataDir: '/data' };
    const p = createJsonProgress(io, target);
    p.onEvent(events[0]!);
    await p.finish(summary);
    const [planned, last] = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; target?: unknown });
    expect(planned).toMatchObject({ type: 'planned', target });
    expect(last).toMatchObject({ type: 'summary', target });
  });
});
