// What a GET of a stored file answers, as a table over the pure decision
// (src/server/file-answer.ts); test/server/storage-get.test.ts sends the same over HTTP.
import { describe, expect, it } from 'vitest';
import { parseByteRange, planFileAnswer, type StoredFileFacts } from '../../src/server/file-answer.js';

describe('parseByteRange', () => {
  const cases: Array<[string, number, ReturnType<typeof parseByteRange>]> = [
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=100-199', 1000, { start: 100, end: 199 }],
    ['bytes=500-', 1000, { start: 500, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    // A suffix longer than the file is the whole file, not an error.
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    // A last byte past the end is cut to the end.
    ['bytes=990-5000', 1000, { start: 990, end: 999 }],
    ['bytes=999-999', 1000, { start: 999, end: 999 }],
    ['BYTES = 0-1', 1000, 'ignore'],
    ['Bytes=0-1', 1000, { start: 0, end: 1 }],
    ['bytes=1000-', 1000, 'unsatisfiable'],
    ['bytes=5000-6000', 1000, 'unsatisfiable'],
    ['bytes=-0', 1000, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=99999999999999999999-', 1000, 'unsatisfiable'],
    // Not one byte range: ignored (the whole file answers).
    ['bytes=5-2', 1000, 'ignore'],
    ['bytes=0-1,5-6', 1000, 'ignore'],
    ['items=0-1', 1000, 'ignore'],
    ['bytes=-', 1000, 'ignore'],
    ['bytes=a-b', 1000, 'ignore'],
    ['', 1000, 'ignore'],
  ];
  it.each(cases)('%j of %i bytes → %j', (header, size, expected) => {
    expect(parseByteRange(header, size)).toEqual(expected);
  });
});

describe('planFileAnswer', () => {
  const facts: StoredFileFacts = {
    size: 1000,
    etag: 'abc-1',
    lastModified: new Date('2026-01-01T00:00:00Z'),
    contentType: 'video/mp4',
    fileName: 'clip.mp4',
  };

  it('no Range: the whole file, with the headers a browser needs to seek and save', () => {
    const a = planFileAnswer(facts, {});
    expect(a).toMatchObject({ status: 200, start: 0, end: 999 });
    expect(a.headers).toMatchObject({
      'Accept-Ranges': 'bytes',
      ETag: '"abc-1"',
      'Content-Length': '1000',
      'Content-Type': 'video/mp4',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': 'inline; filename="clip.mp4"',
      'Last-Modified': 'Thu, 01 Jan 2026 00:00:00 GMT',
    });
  });

  it('a range: 206 with Content-Range and the range length', () => {
    const a = planFileAnswer(facts, { range: 'bytes=10-19' });
    expect(a).toMatchObject({ status: 206, start: 10, end: 19 });
    expect(a.headers).toMatchObject({ 'Content-Range': 'bytes 10-19/1000', 'Content-Length': '10' });
  });

  it('an unsatisfiable range: 416 naming the size, no body', () => {
    const a = planFileAnswer(facts, { range: 'bytes=1000-' });
    expect(a.status).toBe(416);
    expect(a.headers['Content-Range']).toBe('bytes */1000');
    expect('start' in a).toBe(false);
  });

  it('If-None-Match of this version (or *, or weak): 304; of another: the file', () => {
    for (const tag of ['"abc-1"', 'W/"abc-1"', '"x", "abc-1"', '*'])
      expect(planFileAnswer(facts, { ifNoneMatch: tag }).status).toBe(304);
    expect(planFileAnswer(facts, { ifNoneMatch: '"other"' }).status).toBe(200);
  });

  it('If-Range: the range only while the file is that version (ETag or date)', () => {
    expect(planFileAnswer(facts, { range: 'bytes=0-9', ifRange: '"abc-1"' }).status).toBe(206);
    expect(planFileAnswer(facts, { range: 'bytes=0-9', ifRange: '"changed"' }).status).toBe(200);
    // A weak tag never matches for If-Range (strong comparison).
    expect(planFileAnswer(facts, { range: 'bytes=0-9', ifRange: 'W/"abc-1"' }).status).toBe(200);
    expect(planFileAnswer(facts, { range: 'bytes=0-9', ifRange: 'Thu, 01 Jan 2026 00:00:00 GMT' }).status).toBe(206);
    expect(planFileAnswer(facts, { range: 'bytes=0-9', ifRange: 'Wed, 31 Dec 2025 00:00:00 GMT' }).status).toBe(200);
  });

  it('names beyond ASCII get the RFC 5987 form; quotes cannot break out of the header', () => {
    const a = planFileAnswer({ ...facts, fileName: 'café "menu".jpg' }, {});
    expect(a.headers['Content-Disposition']).toBe(
      `inline; filename="caf? \\"menu\\".jpg"; filename*=UTF-8''caf%C3%A9%20%22menu%22.jpg`,
    );
    const b = planFileAnswer({ ...facts, fileName: '夏 summer.mp4' }, {});
    expect(b.headers['Content-Disposition']).toBe(
      `inline; filename="? summer.mp4"; filename*=UTF-8''%E5%A4%8F%20summer.mp4`,
    );
  });
});
