// The output layer: relative times, aligned rows, plain rows, the streamed JSON array, show.
import { describe, expect, it } from 'vitest';
import { ContentItemSchema, type ContentItem } from '../../src/api/schemas.js';
import { ITEM_FIELDS, parseFields } from '../../src/cli/output/json.js';
import { EMPTY_LIST, createItemListPrinter, plainRow } from '../../src/cli/output/items.js';
import { itemObject, plainItemLines, printItem } from '../../src/cli/output/item.js';
import { outputMode } from '../../src/cli/output/mode.js';
import { truncate } from '../../src/cli/output/table.js';
import { relativeTime } from '../../src/cli/output/time.js';
import { bufferIO } from '../support/io.js';

const now = new Date('2026-11-23T12:00:00Z');
const item = (i: number, over: Partial<ContentItem> = {}): ContentItem => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  type: 'shortform',
  title: `Clip ${i}`,
  status: 'draft',
  thumbnailUrl: null,
  createdAt: '2026-11-23T11:57:00Z',
  ...over,
});

describe('relativeTime', () => {
  it.each([
    ['2026-11-23T11:59:50Z', 'just now'],
    ['2026-11-23T11:57:00Z', '3 minutes ago'],
    ['2026-11-23T09:00:00Z', '3 hours ago'],
    ['2026-11-21T12:00:00Z', '2 days ago'],
    ['2025-11-01T12:00:00Z', '1 year ago'],
    ['2026-11-23T12:05:00Z', 'in 5 minutes'],
    ['not a date', 'not a date'],
  ])('%s → %s', (iso, text) => expect(relativeTime(iso, now)).toBe(text));
});

describe('output mode', () => {
  it('json wins, then terminal table, else plain', () => {
    expect(outputMode(bufferIO({ stdoutIsTTY: true }), true)).toBe('json');
    expect(outputMode(bufferIO({ stdoutIsTTY: true }), false)).toBe('table');
    expect(outputMode(bufferIO(), undefined)).toBe('plain');
  });
});

describe('item lists', () => {
  it('plain rows are tab-separated, untruncated, with tabs/newlines in titles flattened', () => {
    const long = 'x'.repeat(500);
    expect(plainRow(item(1, { title: `a\tb\nc ${long}` }))).toBe(
      `${item(1).id}\tshortform\tdraft\ta b c ${long}\t2026-11-23T11:57:00Z`,
    );
  });

  it('--json streams one valid array over several pages, and [] for none', async () => {
    const io = bufferIO();
    const p = createItemListPrinter(io, 'json', () => now);
    await p.page([item(1), item(2)]);
    await p.page([]);
    await p.page([item(3)]);
    expect(await p.end()).toBe(3);
    expect(JSON.parse(io.out()).map((i: ContentItem) => i.title)).toEqual(['Clip 1', 'Clip 2', 'Clip 3']);
    const none = bufferIO();
    const q = createItemListPrinter(none, 'json', () => now);
    await q.end();
    expect(JSON.parse(none.out())).toEqual([]);
  });

  it('tables align columns with one header, relative times, and truncate titles to the width', async () => {
    const io = bufferIO({ stdoutIsTTY: true, columns: 90 });
    const p = createItemListPrinter(io, 'table', () => now);
    await p.page([item(1, { title: 'T'.repeat(200) })]);
    await p.page([item(2, { type: 'carousel', status: 'published' })]);
    await p.end();
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+CREATED\s+TITLE$/);
    expect(lines[1]).toContain('3 minutes ago');
    expect(lines[1]!.length).toBeLessThanOrEqual(90);
    expect(lines[1]).toMatch(/T…$/);
    // Columns start at the same place on every row.
    expect(lines[2]!.indexOf('carousel')).toBe(lines[0]!.indexOf('TYPE'));
    expect(lines[2]!.indexOf('published')).toBe(lines[0]!.indexOf('STATUS'));
    expect(io.out()).not.toContain('\u001b['); // color off
  });

  it('colors only when io.color says so', async () => {
    const io = bufferIO({ stdoutIsTTY: true, color: true });
    const p = createItemListPrinter(io, 'table', () => now);
    await p.page([item(1, { status: 'failed' })]);
    expect(io.out()).toContain('\u001b[31m'); // red status
  });

  it('a table with no rows says so on stderr, not stdout', async () => {
    const io = bufferIO({ stdoutIsTTY: true });
    await createItemListPrinter(io, 'table', () => now).end();
    expect(io.out()).toBe('');
    expect(io.err()).toContain('No items match');
  });

  it('an empty library (no filter) says how to add something', async () => {
    const io = bufferIO({ stdoutIsTTY: true });
    await createItemListPrinter(io, 'table', () => now, EMPTY_LIST.library).end();
    expect(io.out()).toBe('');
    expect(io.err()).toBe('The library is empty. Add something with: contentlib upload <files or folders>\n');
  });

  it('truncates by display width (wide characters count twice)', () => {
    expect(truncate('日本語のタイトル', 7)).toBe('日本語…');
    expect(truncate('short', 10)).toBe('short');
  });
});

describe('show', () => {
  const full = item(7, {
    type: 'carousel',
    hashtags: ['a', 'b'],
    description: 'two\tlines\n',
    platformSettings: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
    vendorField: 42,
  } as Partial<ContentItem>);
  const files = [
    { id: 'f2', fileKey: 'u/2/b.jpg', sortOrder: 1, fileName: 'b.jpg' },
    { id: 'f1', fileKey: 'u/1/a.jpg', sortOrder: 0, fileName: 'a.jpg' },
  ];

  it('plain lines hold every field, settings as paths, files by sortOrder', () => {
    const lines = plainItemLines(full, files);
    expect(lines).toContain('hashtags\ta,b');
    expect(lines).toContain('description\ttwo lines ');
    expect(lines).toContain('vendorField\t42');
    expect(lines).toContain('platformSettings.youtube.visibility\tprivate');
    expect(lines).toContain('platformSettings.youtube.tags\t["x"]');
    expect(lines).toContain('platformSettings.tiktok.duet\tfalse');
    expect(lines.indexOf('files.0.fileKey\tu/1/a.jpg')).toBeLessThan(lines.indexOf('files.1.fileKey\tu/2/b.jpg'));
    expect(lines).toContain('files.0.position\t1');
    expect(lines).toContain('files.1.position\t2');
  });

  it('the table shows settings readably and files in order', async () => {
    const io = bufferIO({ stdoutIsTTY: true });
    await printItem(io, 'table', full, files, now);
    const text = io.out();
    expect(text).toMatch(/hashtags\s+#a #b/);
    expect(text).toMatch(/createdAt\s+2026-11-23T11:57:00Z \(3 minutes ago\)/);
    expect(text).toMatch(/platformSettings\n {2}youtube\.visibility\s+private/);
    // Each image's position (from 1, as edit reads it) beside the API's sortOrder (from 0).
    expect(text).toMatch(
      /files \(2, in order\)\n\s+# {2}sortOrder {2}name[^\n]*\n\s+1 +0 {2}a\.jpg[^\n]*\n\s+2 +1 {2}b\.jpg/,
    );
  });

  it("the table shows each file's SHA-256 in full, and says when one is not computed yet", async () => {
    const io = bufferIO({ stdoutIsTTY: true });
    const digest = 'ab'.repeat(32);
    await printItem(
      io,
      'table',
      { ...full, sha256: digest, thumbnailSha256: null },
      [
        { ...files[1]!, sha256: digest },
        { ...files[0]!, sha256: null },
      ],
      now,
    );
    const text = io.out();
    expect(text).toMatch(new RegExp(`\\nsha256\\s+${digest}\\n`));
    // Rows: position (from 1), sortOrder, name, size, sha256, key; a sha256 column under its header.
    expect(text).toMatch(/\n\s+#\s+sortOrder\s+name\s+size\s+sha256\s+key\n/);
    expect(text).toMatch(new RegExp(`\\n\\s+1\\s+0 {2}a\\.jpg\\s+${digest} {2}u/1/a\\.jpg`));
    expect(text).toMatch(/\n\s+2\s+1 {2}b\.jpg\s+not computed yet \(the server fills it in\)\s+u\/2\/b\.jpg/);
    // A thumbnail's checksum is shown as a field; null without a thumbnail reads as "—".
    expect(text).toMatch(/thumbnailSha256\s+—/);
  });

  it('--json prints the item as ls lists it, the files nested by sortOrder', async () => {
    const io = bufferIO();
    await printItem(io, 'json', full, files, now);
    expect(JSON.parse(io.out())).toEqual({
      ...full,
      files: [
        { position: 1, ...files[1] },
        { position: 2, ...files[0] },
      ],
    });
  });

  it('--json FIELDS keeps those fields in that order; a missing one is null', async () => {
    const io = bufferIO();
    await printItem(io, 'json', full, files, now, { fields: ['title', 'id', 'durationSeconds'] });
    expect(io.out()).toBe(`{\n  "title": "${full.title}",\n  "id": "${full.id}",\n  "durationSeconds": null\n}\n`);
  });

  it('--jq filters with real jq, strings raw', async () => {
    const io = bufferIO();
    await printItem(io, 'json', full, files, now, { jq: '.files[] | "\\(.sortOrder) \\(.fileName)"' });
    expect(io.out()).toBe('0 a.jpg\n1 b.jpg\n');
  });

  it('a shortform has no files key; a carousel always has one', () => {
    expect(itemObject(item(1), [])).not.toHaveProperty('files');
    expect(itemObject({ ...item(2), type: 'carousel' }, undefined)).toHaveProperty('files', []);
  });
});

describe('--json FIELDS of an item', () => {
  it('is every key of the item schema, and files: nothing the schema has is refused, nothing it lacks offered', () => {
    expect([...ITEM_FIELDS].sort()).toEqual([...Object.keys(ContentItemSchema.shape), 'files'].sort());
    expect(parseFields('id,sha256,fileSize,thumbnailSha256', ITEM_FIELDS, 'show')).toEqual([
      'id',
      'sha256',
      'fileSize',
      'thumbnailSha256',
    ]);
    expect(() => parseFields('sha265', ITEM_FIELDS, 'ls')).toThrow(
      /Unknown JSON field for ls: sha265 \(did you mean sha256\?\)/,
    );
  });
});
