// Target resolution is one pure function: each row is flags, environment, config → result.
import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl, resolveTarget } from '../../src/config/resolve.js';
import type { TargetEnv, TargetFlags } from '../../src/config/resolve.js';
import type { ConfigData } from '../../src/config/store.js';
import { describeError } from '../../src/cli/error-messages.js';
import { EXIT } from '../../src/cli/errors.js';
import { ConfigError } from '../../src/config/errors.js';

const KEY_A = 'cl_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'cl_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const KEY_C = 'cl_cccccccccccccccccccccccccccccccc';
const config: ConfigData = {
  activeProfile: 'prod',
  profiles: {
    prod: { baseUrl: 'https://prod.example.com/', apiKey: KEY_C },
    staging: { baseUrl: 'https://staging.example.com', apiKey: KEY_B },
  },
};
const empty: ConfigData = { profiles: {} };

type Row = [
  string,
  TargetFlags,
  TargetEnv,
  ConfigData,
  { kind: string; baseUrl?: string; apiKey?: string; source?: string; profile?: string } | RegExp,
];

const rows: Row[] = [
  ['nothing configured → embedded', {}, {}, empty, { kind: 'embedded' }],
  [
    'active profile',
    {},
    {},
    config,
    { kind: 'remote', baseUrl: 'https://prod.example.com', apiKey: KEY_C, source: 'profile', profile: 'prod' },
  ],
  [
    'env profile beats the active one',
    {},
    { CONTENTLIB_PROFILE: 'staging' },
    config,
    { kind: 'remote', profile: 'staging', apiKey: KEY_B },
  ],
  [
    '--profile beats env profile',
    { profile: 'prod' },
    { CONTENTLIB_PROFILE: 'staging' },
    config,
    { kind: 'remote', profile: 'prod' },
  ],
  [
    'env URL + key beat the profile',
    {},
    { CONTENTLIB_BASE_URL: 'http://h:1', CONTENTLIB_API_KEY: KEY_A },
    config,
    { kind: 'remote', baseUrl: 'http://h:1', apiKey: KEY_A, source: 'env' },
  ],
  [
    'flags beat env',
    { baseUrl: 'http://flag:2', apiKey: KEY_B },
    { CONTENTLIB_BASE_URL: 'http://h:1', CONTENTLIB_API_KEY: KEY_A },
    config,
    { kind: 'remote', baseUrl: 'http://flag:2', apiKey: KEY_B, source: 'flags' },
  ],
  [
    'flag URL + env key combine',
    { baseUrl: 'http://flag:2' },
    { CONTENTLIB_API_KEY: KEY_A },
    empty,
    { kind: 'remote', baseUrl: 'http://flag:2', apiKey: KEY_A, source: 'flags' },
  ],
  [
    '--embedded beats everything configured',
    { embedded: true },
    { CONTENTLIB_BASE_URL: 'http://h:1', CONTENTLIB_API_KEY: KEY_A },
    config,
    { kind: 'embedded' },
  ],
  ['env key without URL is a usage error', {}, { CONTENTLIB_API_KEY: KEY_A }, config, /without a base URL/],
  ['unknown profile names the known ones', { profile: 'nope' }, {}, config, /No profile named "nope"/],
  ['active profile gone from the file', {}, {}, { activeProfile: 'gone', profiles: {} }, /No profile named "gone"/],
  ['--embedded with --base-url', { embedded: true, baseUrl: 'http://h:1' }, {}, empty, /cannot be combined/],
  ['--profile with --api-key', { profile: 'prod', apiKey: KEY_A }, {}, config, /cannot be combined/],
  ['not a URL', { baseUrl: 'content.example.com', apiKey: KEY_A }, {}, empty, /is not a URL|must start with http/],
  ['ftp URL', { baseUrl: 'ftp://h', apiKey: KEY_A }, {}, empty, /must start with http/],
  [
    'blank env values are ignored',
    {},
    { CONTENTLIB_BASE_URL: '  ', CONTENTLIB_API_KEY: '' },
    empty,
    { kind: 'embedded' },
  ],
];

describe('resolveTarget', () => {
  it('a base URL without a key is an authentication error (exit 4): the key secret is missing', () => {
    let err: unknown;
    try {
      resolveTarget({ baseUrl: 'http://h:1' }, {}, config);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(describeError(err).exitCode).toBe(EXIT.auth);
    expect((err as Error).message).toMatch(/without an API key/);
  });

  it.each(rows)('%s', (_name, flags, env, cfg, expected) => {
    if (expected instanceof RegExp) {
      let err: unknown;
      try {
        resolveTarget(flags, env, cfg);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect(describeError(err).exitCode).toBe(EXIT.usage);
      expect((err as Error).message).toMatch(expected);
      // A key is never printed in full, not even in a usage error.
      for (const k of [KEY_A, KEY_B, KEY_C])
        expect(`${(err as Error).message} ${(err as ConfigError).hint}`).not.toContain(k);
    } else {
      expect(resolveTarget(flags, env, cfg)).toMatchObject(expected);
    }
  });

  it('labels never carry a whole key', () => {
    const t = resolveTarget({}, {}, config);
    expect(t.label).toContain('cl_cccc…');
    expect(t.label).not.toContain(KEY_C);
  });
});

describe('a base URL typed without its scheme', () => {
  it.each([
    ['content.example.com', 'Did you mean https://content.example.com?'],
    ['localhost:8080', 'Did you mean http://localhost:8080?'],
    ['127.0.0.1:1', 'Did you mean http://127.0.0.1:1?'],
  ])('%s → %s', (raw, hint) => {
    expect(() => normalizeBaseUrl(raw, '--base-url')).toThrow(ConfigError);
    try {
      normalizeBaseUrl(raw, '--base-url');
    } catch (e) {
      expect((e as ConfigError).hint).toContain(hint);
    }
  });

  it('a wrong scheme gets no guess', () => {
    try {
      normalizeBaseUrl('ftp://h', '--base-url');
    } catch (e) {
      expect((e as ConfigError).hint).toBe('Give the service root, e.g. https://content.example.com');
    }
    expect.assertions(1);
  });
});
