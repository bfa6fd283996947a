// Scopes and roles (src/api/scopes.ts): parsing --scope/--role, storing, and what a key lacks.
import { describe, expect, it } from 'vitest';
import { SCOPES, holds, missingScopes, parseScopeFlags, scopesFromText, scopesToText } from '../../src/api/scopes.js';

describe('parseScopeFlags', () => {
  it.each([
    [[], undefined, undefined],
    [['content:read'], undefined, ['content:read']],
    [['content:write,content:read'], undefined, ['content:read', 'content:write']],
    [['content:delete', 'content:read content:read'], undefined, ['content:read', 'content:delete']],
    [[], 'reader', ['content:read']],
    [[], 'publisher', ['content:read', 'content:write']],
    [[], 'editor', ['content:read', 'content:write', 'content:delete', 'audit:read']],
    [['audit:read'], undefined, ['audit:read']],
    [[], 'admin', [...SCOPES]],
    [['keys:admin'], 'reader', ['content:read', 'keys:admin']],
  ] as const)('%j with role %s → %j', (values, role, expected) => {
    expect(parseScopeFlags([...values], role)).toEqual(expected);
  });

  it.each([
    [['content:all'], undefined, 'unknown scope "content:all"'],
    [['read'], undefined, 'unknown scope "read"'],
    [[], 'owner', 'unknown role "owner"; roles: reader, publisher, editor, admin'],
  ])('%j with role %s is refused: %s', (values, role, message) => {
    expect(() => parseScopeFlags(values, role)).toThrow(message);
  });
});

describe('stored scopes', () => {
  it('round-trip in the table order; unknown words (a newer version’s) are dropped', () => {
    expect(scopesToText(['keys:admin', 'content:read'])).toBe('content:read keys:admin');
    expect(scopesFromText('keys:admin  content:read')).toEqual(['content:read', 'keys:admin']);
    expect(scopesFromText('content:read media:transcode')).toEqual(['content:read']);
    expect(scopesFromText('')).toEqual([]);
  });

  it('missingScopes: what is wanted and not held, in the table order', () => {
    expect(missingScopes(['content:read', 'keys:admin'], ['content:delete', 'content:read', 'content:write'])).toEqual([
      'content:write',
      'content:delete',
    ]);
    expect(missingScopes([...SCOPES], [...SCOPES])).toEqual([]);
    // keys:admin brings audit:read: an admin key may grant it.
    expect(missingScopes(['keys:admin'], ['audit:read', 'content:read'])).toEqual(['content:read']);
  });

  it.each([
    [['audit:read'], 'audit:read', true],
    [['keys:admin'], 'audit:read', true],
    [['audit:read'], 'keys:admin', false],
    [['content:read', 'content:write', 'content:delete'], 'audit:read', false],
    [['content:write'], 'content:read', false],
  ] as const)('holds(%j, %s) is %s', (held, needed, yes) => {
    expect(holds(held, needed)).toBe(yes);
  });
});
