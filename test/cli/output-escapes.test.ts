// Text from the library reaches a terminal only escaped: a title, description, hashtag, platform
// setting or file name holding ESC, a C1 control or a direction override (stored before the
// server refused them, or sent by a remote that does not) prints as a visible escape, in every
// mode that is not JSON. JSON stays exact: it is for programs.
import { describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src/api/schemas.js';
import { createItemListPrinter, plainRow } from '../../src/cli/output/items.js';
import { printItem } from '../../src/cli/output/item.js';
import { escapeText } from '../../src/text/escape-name.js';
import { bufferIO } from '../support/io.js';

const now = new Date('2026-11-23T12:00:00Z');
const RED = '\u001b[31m';
const hostile: ContentItem = {
  id: '00000000-0000-4000-8000-000000000001',
  type: 'shortform',
  title: `${RED}red\u202eevil`,
  description: `line 1\nline 2 ${RED}\u0007`,
  hashtags: ['ok', `b\u009bad`],
  status: 'draft',
  thumbnailUrl: null,
  platformSettings: { yt: { [`k${RED}`]: `v\u2066x` } },
  createdAt: '2026-11-23T11:57:00Z',
};

/** No control or direction character but newline; the escapes show instead. */
function clean(text: string): void {
  // eslint-disable-next-line no-control-regex -- the characters that must not be printed raw
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
}

describe('escapeText', () => {
  it.each([
    ['plain text', 'plain text'],
    [`${RED}x`, '\\x1b[31mx'],
    ['a\tb\r\nc', 'a\\tb\\r\\nc'],
    ['\u202eabc', '\\u202eabc'],
    ['C1 \u0085 \u009b', 'C1 \\x85 \\x9b'],
    ['日本 🎉 \\ "', '日本 🎉 \\ "'],
  ])('%j → %j', (text, shown) => expect(escapeText(text)).toBe(shown));

  it('keeps newlines when asked (a description over several lines)', () => {
    expect(escapeText('a\nb\u001b', { lines: true })).toBe('a\nb\\x1b');
  });
});

describe('printed fields are escaped', () => {
  it('show on a terminal: every field, platformSettings included', async () => {
    const io = bufferIO({ stdoutIsTTY: true });
    await printItem(io, 'table', hostile, [], now);
    clean(io.out());
    expect(io.out()).toContain('\\x1b[31mred\\u202eevil');
    expect(io.out()).toContain('line 1\nline 2 \\x1b[31m\\x07');
    expect(io.out()).toContain('#b\\x9bad');
    expect(io.out()).toContain('k\\x1b[31m');
  });

  it('show in a pipe, ls in a pipe and on a terminal', async () => {
    const plain = bufferIO();
    await printItem(plain, 'plain', hostile, [], now);
    clean(plain.out().replace(/\t/g, ' ').replace(/\n/g, ' '));
    clean(plainRow(hostile).replace(/\t/g, ' '));
    const table = bufferIO({ stdoutIsTTY: true, columns: 200 });
    const p = createItemListPrinter(table, 'table', () => now);
    await p.page([hostile]);
    await p.end();
    clean(table.out());
    expect(table.out()).toContain('\\x1b[31mred');
  });

  it('--json keeps the text exact', async () => {
    const io = bufferIO();
    await printItem(io, 'json', hostile, [], now);
    expect(JSON.parse(io.out()).title).toBe(hostile.title);
  });
});
