// Pure pieces of the server, as tables: file name sanitising, titles, LIKE escaping, signing.
import { describe, expect, it } from 'vitest';
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
    ['...hidden', '_.hidden'],
    ['....mp4', '_.mp4'],
    ['.', ''],
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
