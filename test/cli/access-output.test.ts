// The pure parts of keys and log on the command line: durations, --since, and what `log` prints.
import { describe, expect, it } from 'vitest';
import type { AuditEntryWire } from '../../src/api/schemas.js';
import { UsageError } from '../../src/cli/errors.js';
import { parseDuration, parseSince } from '../../src/cli/flags.js';
import { actorLabel, formatLog, summary } from '../../src/cli/output/log.js';

describe('durations (--expires, --since, --audit-retention)', () => {
  it.each([
    ['90d', 90 * 86400],
    ['12h', 12 * 3600],
    ['30m', 1800],
    ['45s', 45],
    [' 7D ', 7 * 86400],
  ])('%s → %i s', (raw, seconds) => {
    expect(parseDuration('--expires')(raw)).toBe(seconds);
  });

  it.each(['90', '0d', '-1d', '1w', '1.5d', 'soon', ''])('%j is a usage error with an example', (raw) => {
    expect(() => parseDuration('--expires')(raw)).toThrow(UsageError);
    expect(() => parseDuration('--expires')(raw)).toThrow(/--expires must be a positive duration/);
  });

  const now = () => new Date('2026-01-10T12:00:00.000Z');
  it.each([
    ['7d', '2026-01-03T12:00:00.000Z'],
    ['1h', '2026-01-10T11:00:00.000Z'],
    ['2026-01-01', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T09:30:00+02:00', '2026-01-01T07:30:00.000Z'],
  ])('--since %s → %s', (raw, iso) => {
    expect(parseSince(now)(raw)).toBe(iso);
  });

  it.each(['yesterday', '2026-13-45'])('--since %j is a usage error', (raw) => {
    expect(() => parseSince(now)(raw)).toThrow(UsageError);
  });
});

describe('log output', () => {
  const entry = (o: Partial<AuditEntryWire>): AuditEntryWire => ({
    id: 1,
    at: '2026-01-02T10:20:30.000Z',
    action: 'item.created',
    itemId: '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11',
    keyId: '62922a20-4866-4238-af64-d3b7e6a5ef19',
    keyName: 'CI',
    requestId: 'req-1',
    details: {},
    ...o,
  });

  it.each([
    [{ details: { type: 'shortform', title: 'Teaser', fileName: 't.mp4' } }, 'shortform "Teaser" from t.mp4'],
    [{ action: 'item.image_added', details: { fileName: 'b.jpg', sortOrder: 1 } }, 'b.jpg at position 2'],
    [
      { action: 'item.images_reordered', details: { order: [3, 1, 2] } },
      'images in the order 3,1,2 (their positions before)',
    ],
    [{ action: 'item.image_removed', details: { fileName: 'b.jpg', sortOrder: 1 } }, 'b.jpg removed from position 2'],
    [
      { action: 'item.image_replaced', details: { fileName: 'c.jpg', replacedFileName: 'b.jpg', sortOrder: 0 } },
      'b.jpg at position 1 replaced by c.jpg',
    ],
    [
      {
        action: 'item.updated',
        details: {
          fields: ['title', 'platformSettings'],
          changes: { title: { from: 'A', to: 'B' } },
          platformSettings: ['youtube.visibility'],
        },
      },
      'title "A" → "B"; platformSettings youtube.visibility',
    ],
    [{ action: 'item.thumbnail_set', details: { thumbnailKey: 'k', replaced: null } }, 'thumbnail set'],
    [{ action: 'item.thumbnail_set', details: { thumbnailKey: 'k', replaced: 'old' } }, 'thumbnail replaced'],
    [{ action: 'item.deleted', details: { type: 'carousel', title: 'Launch' } }, 'carousel "Launch"'],
    [
      {
        action: 'key.created',
        itemId: null,
        details: { prefix: 'cl_abcd', name: 'dash', scopes: ['content:read'], expiresAt: null },
      },
      'key cl_abcd… "dash" (content:read)',
    ],
    [{ action: 'key.revoked', itemId: null, details: { prefix: 'cl_abcd', name: null } }, 'key cl_abcd…'],
    [{ action: 'item.reordered', details: { order: [2, 1] } }, '{"order":[2,1]}'],
  ] as const)('%j → %s', (o, text) => {
    expect(summary(entry(o as Partial<AuditEntryWire>))).toBe(text);
  });

  it('names the key by name, else by id, else the server’s own admin', () => {
    expect(actorLabel({ keyId: 'k', keyName: 'Alice' })).toBe('Alice');
    expect(actorLabel({ keyId: '62922a20-4866-4238-af64-d3b7e6a5ef19', keyName: null })).toBe('key 62922a20…');
    expect(actorLabel({ keyId: null, keyName: null })).toBe('server admin');
  });

  it('table: time, who, action, item, what; plain: tab-separated with ids and the request id', () => {
    const e = entry({ details: { type: 'shortform', title: 'T', fileName: 't.mp4' } });
    const table = formatLog([e], 'table', 140).split('\n');
    expect(table[0]).toMatch(/^TIME\s+BY\s+ACTION\s+ITEM\s+WHAT$/);
    expect(table[1]).toMatch(/^2026-01-02 10:20:30\s+CI\s+item\.created\s+3f0c2a4e-\S+\s+shortform "T" from t\.mp4$/);
    expect(formatLog([e], 'plain', 80)).toBe(
      `2026-01-02T10:20:30.000Z\titem.created\t${e.itemId}\t${e.keyId}\tCI\treq-1\tshortform "T" from t.mp4\n`,
    );
    expect(formatLog([], 'table', 80)).toBe('No entries.\n');
  });

  it('names and titles from the service print control and direction characters as escapes', () => {
    const e = entry({
      keyName: 'CI\u001b]0;pwned\u0007',
      details: { type: 'shortform', title: 'T\u202eevil', fileName: 't\u009b.mp4' },
    });
    for (const mode of ['table', 'plain'] as const) {
      const out = formatLog([e], mode, 200);
      // eslint-disable-next-line no-control-regex -- the characters that must not be printed raw
      expect(out).not.toMatch(/[\u001b\u0007\u202e\u009b]/);
      expect(out).toContain('T\\u202eevil');
    }
    expect(formatLog([e], 'plain', 200)).toContain('\tCI\\x1b]0;pwned\\x07\t');
  });
});
