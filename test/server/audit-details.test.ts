// What an audit entry says a PATCH changed (src/server/repo/audit.ts), as a table.
import { describe, expect, it } from 'vitest';
import { changedPaths, patchDetails } from '../../src/server/repo/audit.js';
import type { ItemRow } from '../../src/server/repo/items.js';

const item: ItemRow = {
  id: 'i',
  brandId: 'b',
  type: 'shortform',
  title: 'Teaser',
  description: '',
  hashtags: ['a'],
  status: 'draft',
  platformSettings: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
  fileKey: 'k',
  fileName: 'f.mp4',
  contentType: 'video/mp4',
  fileSize: 1,
  fileCount: 1,
  durationSeconds: 5,
  thumbnailKey: null,
  sha256: null,
  thumbnailSha256: null,
  media: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('changedPaths', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, []],
    [{ a: 1 }, { a: 2 }, ['a']],
    [{ a: { b: 1, c: 2 } }, { a: { b: 1, c: 3 } }, ['a.c']],
    [{ a: { b: 1 } }, {}, ['a']],
    [{}, { a: { b: 1 } }, ['a']],
    [{ a: [1, 2] }, { a: [2, 1] }, ['a']],
    [{ z: 1, a: 1 }, { z: 2, a: 2, m: 0 }, ['a', 'm', 'z']],
  ])('%j → %j: %j', (a, b, expected) => {
    expect(changedPaths(a, b)).toEqual(expected);
  });
});

describe('patchDetails', () => {
  it('every field with its old and new value (platformSettings whole, for an undo) and the paths that changed', () => {
    expect(
      patchDetails(item, {
        title: 'Teaser v2',
        status: 'scheduled',
        hashtags: ['a', 'b'],
        description: 'new',
        platformSettings: { youtube: { visibility: 'public', tags: ['x'] } },
      }),
    ).toEqual({
      fields: ['title', 'description', 'status', 'hashtags', 'platformSettings'],
      changes: {
        title: { from: 'Teaser', to: 'Teaser v2' },
        description: { from: '', to: 'new' },
        status: { from: 'draft', to: 'scheduled' },
        hashtags: { from: ['a'], to: ['a', 'b'] },
        platformSettings: {
          from: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
          to: { youtube: { visibility: 'public', tags: ['x'] } },
        },
      },
      platformSettings: ['tiktok', 'youtube.visibility'],
    });
  });

  it('a field sent with its current value is still listed (it was sent); a thumbnail alone is its own entry', () => {
    expect(patchDetails(item, { title: 'Teaser' })).toEqual({
      fields: ['title'],
      changes: { title: { from: 'Teaser', to: 'Teaser' } },
    });
    expect(patchDetails(item, { thumbnailKey: 't' })).toBeNull();
  });
});
