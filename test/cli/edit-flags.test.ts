// `contentlib edit` flags → PATCH body, checked before anything is sent.
import { describe, expect, it } from 'vitest';
import type { ContentItem } from '../../src/api/schemas.js';
import { buildPatch, needsCurrent } from '../../src/cli/commands/edit-flags.js';
import {
  applyPlatformSet,
  hashtagSpaceWarnings,
  parseFlagValue,
  parsePlatformFlag,
} from '../../src/cli/metadata-flags.js';
import { UsageError } from '../../src/cli/errors.js';

const current: ContentItem = {
  id: 'i1',
  type: 'shortform',
  title: 'Old',
  status: 'draft',
  thumbnailUrl: null,
  createdAt: '2026-01-01T00:00:00Z',
  hashtags: ['summer', 'Sale'],
  platformSettings: { youtube: { visibility: 'public', category: '22' }, tiktok: { duet: true } },
};

describe('--platform values', () => {
  it.each([
    ['22', 22],
    ['true', true],
    ['"22"', '22'],
    ['private', 'private'],
    ['{"a":1}', { a: 1 }],
    ['[1,2]', [1, 2]],
    ['null', null],
    ['', ''],
    ['a=b', 'a=b'],
  ])('%j parses to %j', (raw, value) => expect(parseFlagValue(raw)).toEqual(value));

  it.each([
    ['youtube.visibility=private', ['youtube', 'visibility'], 'private'],
    ['youtube.tags=["a","b"]', ['youtube', 'tags'], ['a', 'b']],
    ['x.y.z=1', ['x', 'y', 'z'], 1],
    ['youtube.title=a=b', ['youtube', 'title'], 'a=b'],
    ['youtube={"visibility":"private"}', ['youtube'], { visibility: 'private' }],
  ])('%s', (flag, path, value) => expect(parsePlatformFlag(flag)).toEqual({ path, value }));

  it.each(['youtube', '=x', 'youtube..x=1', 'youtube=private', '.x=1'])('rejects %j', (flag) =>
    expect(() => parsePlatformFlag(flag)).toThrow(UsageError),
  );

  it('sets nested paths without touching siblings, and null removes (empty parents too)', () => {
    const s = { youtube: { visibility: 'public', category: '22' } };
    expect(applyPlatformSet(s, { path: ['youtube', 'visibility'], value: 'private' })).toEqual({
      youtube: { visibility: 'private', category: '22' },
    });
    expect(applyPlatformSet(s, { path: ['tiktok', 'duet'], value: false })).toEqual({
      youtube: s.youtube,
      tiktok: { duet: false },
    });
    expect(applyPlatformSet({ t: { duet: true } }, { path: ['t', 'duet'], value: null })).toEqual({});
    expect(s.youtube.visibility).toBe('public'); // the input is not changed
  });
});

describe('buildPatch', () => {
  it('sends only what changes', () => {
    expect(buildPatch({ title: 'New', status: 'published' })).toEqual({ title: 'New', status: 'published' });
    expect(buildPatch({ description: '' })).toEqual({ description: '' });
  });

  it('normalises --hashtags: trims, drops #, splits on commas and spaces, de-duplicates', () => {
    expect(buildPatch({ hashtags: ' a, #b  c,#A,, ' })).toEqual({ hashtags: ['a', 'b', 'c'] });
    expect(buildPatch({ hashtags: '' })).toEqual({ hashtags: [] });
  });

  it('refuses a hashtag value that holds no tag ("###"), instead of clearing the hashtags', () => {
    expect(() => buildPatch({ hashtags: '###' })).toThrow(UsageError);
    expect(() => buildPatch({ hashtags: ' # , ## ' })).toThrow('--hashtags " # , ## " holds no hashtag.');
    expect(() => buildPatch({ addHashtag: ['#'] }, current)).toThrow('--add-hashtag "#" holds no hashtag.');
    expect(() => buildPatch({ removeHashtag: [''] }, current)).toThrow('--remove-hashtag "" holds no hashtag.');
    const thrown = (() => {
      try {
        buildPatch({ hashtags: '#' });
      } catch (err) {
        return err;
      }
    })();
    expect((thrown as UsageError).hint).toContain('to remove every hashtag, pass --hashtags ""');
    // Only the empty value clears them.
    expect(buildPatch({ hashtags: '  ' })).toEqual({ hashtags: [] });
  });

  it('adds and removes hashtags on the current ones (case-insensitive)', () => {
    const f = { addHashtag: ['#new', 'summer'], removeHashtag: ['sale'] };
    expect(needsCurrent(f)).toBe(true);
    expect(buildPatch(f, current)).toEqual({ hashtags: ['summer', 'new'] });
    // With --hashtags, add/remove work on that list and the current item is not needed.
    const g = { hashtags: 'x, y', addHashtag: ['z'], removeHashtag: ['#x'] };
    expect(needsCurrent(g)).toBe(false);
    expect(buildPatch(g)).toEqual({ hashtags: ['y', 'z'] });
  });

  it('merges --platform into the current settings unless --replace-platform', () => {
    const f = { platform: ['youtube.visibility=private', 'instagram.firstComment=hi'] };
    expect(needsCurrent(f)).toBe(true);
    expect(buildPatch(f, current).platformSettings).toEqual({
      youtube: { visibility: 'private', category: '22' },
      tiktok: { duet: true },
      instagram: { firstComment: 'hi' },
    });
    const r = { ...f, replacePlatform: true };
    expect(needsCurrent(r)).toBe(false);
    expect(buildPatch(r).platformSettings).toEqual({
      youtube: { visibility: 'private' },
      instagram: { firstComment: 'hi' },
    });
  });

  it('merges --platform-json, then --platform on top', () => {
    const f = { platformJson: { youtube: { category: '10' }, x: { a: 1 } }, platform: ['x.a=2'] };
    expect(buildPatch(f, current).platformSettings).toEqual({
      youtube: { visibility: 'public', category: '10' },
      tiktok: { duet: true },
      x: { a: 2 },
    });
    expect(() => buildPatch({ platformJson: [1, 2], replacePlatform: true })).toThrow(
      /--platform-json must hold an object/,
    );
    expect(() => buildPatch({ platformJson: { youtube: 'private' }, replacePlatform: true })).toThrow(UsageError);
  });

  it('checks limits from the rules table before sending, listing each problem', () => {
    const err = (() => {
      try {
        buildPatch({ title: 'x'.repeat(301), hashtags: 'a'.repeat(101) });
      } catch (e) {
        return e as UsageError;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err!.message).toContain('nothing was sent');
    expect(err!.message).toMatch(/title: .*300/);
    expect(err!.message).toMatch(/hashtags\.0: .*100/);
    expect(() => buildPatch({ title: '   ' })).toThrow(/title: must not be empty/);
    expect(() => buildPatch({ platform: [`big.x=${'"' + 'a'.repeat(70_000) + '"'}`], replacePlatform: true })).toThrow(
      /65536 bytes/,
    );
  });

  it('refuses an edit with nothing to change', () => {
    expect(() => buildPatch({})).toThrow(/Nothing to change/);
    expect(() => buildPatch({ addHashtag: [] })).toThrow(/Nothing to change/);
  });
});

describe('hashtags written with a space', () => {
  it.each([
    ['--hashtags', 'daily life', ['#daily and #life']],
    ['--hashtags', 'vlog, #daily life', ['#daily and #life']],
    ['--hashtags', 'summer time, beach day', ['#summer and #time', '#beach and #day']],
    ['--add-hashtag', 'daily life', ['#daily and #life']],
    ['--hashtags', '#summer #sale', []],
    ['--hashtags', 'summer, sale', []],
    ['--hashtags', 'summer', []],
  ])('%s %j warns for %j', (flag, value, warned) => {
    const warnings = hashtagSpaceWarnings(flag, value);
    expect(warnings).toHaveLength(warned.length);
    warned.forEach((w, i) => expect(warnings[i]).toContain(w));
  });
});
