// Pure pieces of the server, as tables: file name sanitising, titles, LIKE escaping, signing.
import { describe, expect, it } from 'vitest';
import { formatKeys } from '../../src/cli/commands/keys.js';
import { sanitizeFileName, titleFromFileName } from '../../src/server/object-keys.js';
import { likeLiteral } from '../../src/server/repo/items.js';
import { parseStorageUrl } from '../../src/server/routes/storage.js';
import { sign, signedUrl, verify } from '../../src/server/signing.js';

describe('sanitizeFileName', () => {
  it.each([
    ['clip.mp4', 'clip.mp4'],
    ['../../etc/passwd', '_._etc_passwd'],
    ['..\\..\\win.ini', '_._win.ini'],
    ['a/b\\c.jpg', 'a_b_c.jpg'],
    ['tab\there\u0000.jpg', 'tabhere.jpg'],
    ['...hidden', 'hidden'],
    ['  spaced  .jpg ', 'spaced  .jpg'],
    ['Café 日本 🎉.jpg', 'Café 日本 🎉.jpg'],
    ['\u0001..', ''],
  ])('%j → %j', (input, expected) => {
    expect(sanitizeFileName(input)).toBe(expected);
  });

  it('never leaves a separator or "..", and stays within 255 bytes on a character boundary', () => {
    const long = `${'日'.repeat(200)}.jpg`;
    const out = sanitizeFileName(long);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(255);
    expect(out).toBe('日'.repeat(85));
    for (const name of ['../..', 'a/../b', '..//..', '.\\./.']) {
      const clean = sanitizeFileName(name);
      expect(clean).not.toMatch(/[/\\]/);
      expect(clean).not.toContain('..');
    }
  });
});

describe('titleFromFileName', () => {
  it.each([
    ['clip.mp4', 'clip'],
    ['Holiday.Trip.mp4', 'Holiday.Trip'],
    ['noext', 'noext'],
    ['.mp4', '.mp4'],
    ['Café.jpg', 'Café'],
  ])('%j → %j', (input, expected) => {
    expect(titleFromFileName(input)).toBe(expected);
  });
});

describe('likeLiteral', () => {
  it.each([
    ['50%_off', '50\\%\\_off'],
    ['a\\b', 'a\\\\b'],
    ['plain', 'plain'],
  ])('%j → %j', (input, expected) => {
    expect(likeLiteral(input)).toBe(expected);
  });
});

describe('signing', () => {
  const secret = Buffer.alloc(32, 1);
  const fields = {
    method: 'PUT' as const,
    key: 'u/f/a.jpg',
    expires: 100,
    contentType: 'image/jpeg',
    contentLength: 10,
  };

  it('verifies its own signature and nothing else', () => {
    const sig = sign(secret, fields);
    expect(verify(secret, fields, sig)).toBe(true);
    expect(verify(Buffer.alloc(32, 2), fields, sig)).toBe(false);
    for (const change of [
      { method: 'GET' as const },
      { key: 'u/f/b.jpg' },
      { expires: 101 },
      { contentType: 'image/png' },
      { contentLength: 11 },
    ]) {
      expect(verify(secret, { ...fields, ...change }, sig)).toBe(false);
    }
    expect(verify(secret, fields, 'zz')).toBe(false);
    expect(verify(secret, fields, sig.toUpperCase())).toBe(false);
  });

  it('builds URLs that parse back to the same key, unicode and spaces included', () => {
    const key = 'u/f/Café 日本 #1?.jpg';
    const url = signedUrl('http://127.0.0.1:1', secret, { ...fields, key });
    const parsed = parseStorageUrl(url.slice('http://127.0.0.1:1'.length))!;
    expect(parsed.key).toBe(key);
    expect(parsed.expires).toBe(100);
    expect(verify(secret, { ...fields, key }, parsed.signature)).toBe(true);
  });

  it.each([
    '/storage/',
    '/storage/a?expires=1',
    '/storage/a?signature=ab',
    '/storage/%E0%A4%A?expires=1&signature=ab',
    '/other/a?expires=1&signature=ab',
  ])('rejects the malformed storage URL %s', (raw) => {
    expect(parseStorageUrl(raw)).toBeNull();
  });
});

describe('keys list output', () => {
  const rows = [
    {
      id: '62922a20-4866-4238-af64-d3b7e6a5ef19',
      brand: 'acme',
      userId: 'u1',
      createdAt: '2026-01-01T00:00:00.000Z',
      revokedAt: null,
      prefix: 'cl_abcd',
    },
    {
      id: '7a1e0c55-1111-4222-8333-944455556666',
      brand: 'globex',
      userId: 'u2',
      createdAt: '2026-01-02T00:00:00.000Z',
      revokedAt: '2026-01-03T00:00:00.000Z',
      prefix: 'cl_wxyz',
    },
  ];

  it('plain: one tab-separated row per key, prefix only', () => {
    expect(formatKeys(rows, 'plain', 80)).toBe(
      '62922a20-4866-4238-af64-d3b7e6a5ef19\tcl_abcd…\tacme\t2026-01-01T00:00:00.000Z\tactive\n' +
        '7a1e0c55-1111-4222-8333-944455556666\tcl_wxyz…\tglobex\t2026-01-02T00:00:00.000Z\trevoked\n',
    );
  });

  it('table: a header and aligned rows; an empty list says how to create a key', () => {
    const lines = formatKeys(rows, 'table', 120).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+KEY\s+BRAND\s+CREATED\s+STATUS$/);
    expect(lines[2]).toContain('revoked');
    expect(lines[1]!.indexOf('cl_abcd')).toBe(lines[0]!.indexOf('KEY'));
    expect(formatKeys([], 'table', 80)).toMatch(/contentlib keys create --brand NAME/);
  });

  it('json: the rows as they are', () => {
    expect(JSON.parse(formatKeys(rows, 'json', 80))).toEqual(rows);
  });
});
