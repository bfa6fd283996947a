// The server's commands in-process: `keys list` output in each mode, `serve` flags → server options,
// and the test-only flags `serve` no longer has.
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli-in-process.js';
import { type KeyView, formatKeys } from '../../src/cli/commands/keys.js';
import { drainOptions, serveOptions } from '../../src/cli/commands/serve.js';
import { UsageError } from '../../src/cli/errors.js';

describe('keys list output', () => {
  const NOW = new Date('2026-01-10T00:00:00.000Z');
  const rows: KeyView[] = [
    {
      id: '62922a20-4866-4238-af64-d3b7e6a5ef19',
      name: 'CI publisher',
      brand: 'acme',
      prefix: 'cl_abcd',
      scopes: ['content:read', 'content:write'],
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-04-01T00:00:00.000Z',
      lastUsedAt: '2026-01-09T00:00:00.000Z',
      revokedAt: null,
    },
    {
      id: '7a1e0c55-1111-4222-8333-944455556666',
      name: null,
      brand: 'globex',
      prefix: 'cl_wxyz',
      scopes: ['content:read', 'content:delete'],
      createdAt: '2026-01-02T00:00:00.000Z',
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: '2026-01-03T00:00:00.000Z',
    },
    {
      id: '8b2f1d66-2222-4333-8444-a55566667777',
      name: 'old',
      brand: 'acme',
      prefix: 'cl_old0',
      scopes: ['content:read', 'content:write', 'content:delete', 'keys:admin'],
      createdAt: '2026-01-02T00:00:00.000Z',
      expiresAt: '2026-01-05T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    },
  ];

  it('plain: the five columns of before (id, prefix, brand, created, status), then name, scopes, expiry, last use', () => {
    expect(formatKeys(rows, 'plain', 80, NOW).split('\n')).toEqual([
      '62922a20-4866-4238-af64-d3b7e6a5ef19\tcl_abcd…\tacme\t2026-01-01T00:00:00.000Z\tactive\tCI publisher\tcontent:read,content:write\t2026-04-01T00:00:00.000Z\t2026-01-09T00:00:00.000Z',
      '7a1e0c55-1111-4222-8333-944455556666\tcl_wxyz…\tglobex\t2026-01-02T00:00:00.000Z\trevoked\t\tcontent:read,content:delete\t\t',
      '8b2f1d66-2222-4333-8444-a55566667777\tcl_old0…\tacme\t2026-01-02T00:00:00.000Z\texpired\told\tcontent:read,content:write,content:delete,keys:admin\t2026-01-05T00:00:00.000Z\t',
      '',
    ]);
  });

  it('table: a header and aligned rows, scopes as a role when they are one, times relative', () => {
    const lines = formatKeys(rows, 'table', 160, NOW).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+BRAND\s+KEY\s+SCOPES\s+EXPIRES\s+LAST USED\s+STATUS$/);
    expect(lines[1]).toMatch(/CI publisher\s+acme\s+cl_abcd…\s+publisher\s+in 2 months\s+1 day ago\s+active$/);
    expect(lines[2]).toMatch(/—\s+globex\s+cl_wxyz…\s+read,delete\s+never\s+never\s+revoked$/);
    expect(lines[3]).toMatch(/admin\s+5 days ago\s+never\s+expired$/);
    expect(lines[1]!.indexOf('cl_abcd')).toBe(lines[0]!.indexOf('KEY'));
    expect(formatKeys([], 'table', 80, NOW)).toMatch(/contentlib keys create/);
  });

  it('over the API (no brand known) the table has no BRAND column', () => {
    const lines = formatKeys(
      rows.map((r) => ({ ...r, brand: null })),
      'table',
      160,
      NOW,
    ).split('\n');
    expect(lines[0]).not.toContain('BRAND');
  });

  it('names and brands print control and direction characters as escapes (the JSON keeps them exactly)', () => {
    const odd = [{ ...rows[0]!, name: 'CI \u001b[31m\u202e', brand: 'ac\tme' }];
    for (const mode of ['plain', 'table'] as const) {
      const out = formatKeys(odd, mode, 200, NOW);
      // eslint-disable-next-line no-control-regex -- the characters that must not be printed raw
      expect(out).not.toMatch(/[\u001b\u202e]/);
      expect(out).toContain('CI \\x1b[31m\\u202e');
    }
    expect(formatKeys(odd, 'plain', 200, NOW).split('\t')).toHaveLength(9);
    expect(JSON.parse(formatKeys(odd, 'json', 80, NOW))).toEqual(odd);
  });

  it('json: the rows as they are', () => {
    expect(JSON.parse(formatKeys(rows, 'json', 80, NOW))).toEqual(rows);
  });
});

describe('serveOptions (flags → server options)', () => {
  const base = { host: '127.0.0.1', port: '0' };
  it('looks for ffmpeg on PATH unless told', () => {
    expect(serveOptions(base, '/d', false, {}).previews).toBeUndefined();
  });
  it.each([
    [{}, { dataDir: '/d', host: '127.0.0.1', port: 0 }],
    [
      { port: '8080', dataDir: '/x' },
      { dataDir: '/x', port: 8080 },
    ],
    [
      { urlTtl: '5', quota: '0' },
      { urlLifetimeSeconds: 5, quotaBytes: 0 },
    ],
    [{ rateLimit: '10/1000' }, { rateLimit: { max: 10, windowMs: 1000 } }],
    [{ db: 'postgres://cl@db/lib' }, { rateLimit: { max: 10_000, windowMs: 60_000 } }],
    [{ dbTimeout: '3', storageTimeout: '4' }, { timeouts: { databaseMs: 3000, storageMs: 4000 } }],
    [
      { putMinRate: '100/5', putMaxTime: '60' },
      { putLimits: { minBytesPerSecond: 100, rateWindowMs: 5000, maxMs: 60_000 } },
    ],
    [{ putMinRate: '100' }, { putLimits: { minBytesPerSecond: 100 } }],
    [{ db: 'postgres://cl@db:5432/lib' }, { databaseUrl: 'postgres://cl@db:5432/lib' }],
    [{ storage: 's3://media/lib' }, { storageUrl: 's3://media/lib' }],
    [{ publicUrl: 'https://media.example.com/' }, { publicUrl: 'https://media.example.com' }],
    [{ publicUrl: 'http://10.0.0.5:8080/cl/' }, { publicUrl: 'http://10.0.0.5:8080/cl' }],
    [{ ffmpeg: '/opt/ffmpeg/bin/ffmpeg' }, { previews: { ffmpeg: '/opt/ffmpeg/bin/ffmpeg' } }],
    [{ ffmpeg: 'none' }, { previews: { ffmpeg: null } }],
    [{ previews: false }, { previews: { enabled: false } }],
  ])('%j → %j', (flags, expected) => {
    expect(serveOptions({ ...base, ...flags }, '/d', false, {})).toMatchObject(expected);
  });

  it('takes the database from CONTENTLIB_DATABASE_URL unless --db says otherwise; none means SQLite', () => {
    const env = { CONTENTLIB_DATABASE_URL: 'postgresql://cl@env/lib' };
    expect(serveOptions(base, '/d', false, env).databaseUrl).toBe('postgresql://cl@env/lib');
    expect(serveOptions({ ...base, db: 'postgres://cl@flag/lib' }, '/d', false, env).databaseUrl).toBe(
      'postgres://cl@flag/lib',
    );
    expect(serveOptions(base, '/d', false, {}).databaseUrl).toBeUndefined();
  });

  it('the rate limit is on by default for a team (PostgreSQL) and off for one SQLite library; off turns it off', () => {
    expect(serveOptions(base, '/d', false, {}).rateLimit).toBeUndefined();
    expect(serveOptions({ ...base, db: 'postgres://cl@db/lib', rateLimit: 'off' }, '/d', false, {}).rateLimit).toBe(
      undefined,
    );
  });

  it('refuses a database URL that is not PostgreSQL, without echoing its password', () => {
    expect(() => serveOptions({ ...base, db: 'mysql://u:hunter2@h/db' }, '/d', false, {})).toThrow(
      /must be a PostgreSQL URL/,
    );
    expect(() => serveOptions({ ...base, db: 'mysql://u:hunter2@h/db' }, '/d', false, {})).not.toThrow(/hunter2/);
    expect(() => serveOptions(base, '/d', false, { CONTENTLIB_DATABASE_URL: 'sqlite:x' })).toThrow(
      /CONTENTLIB_DATABASE_URL/,
    );
  });

  it.each([
    { port: '-1' },
    { port: 'http' },
    { port: '65536' },
    { urlTtl: '0' },
    { rateLimit: '10' },
    { rateLimit: '0/10' },
    { rateLimit: 'on' },
    { dbTimeout: '0' },
    { storageTimeout: 'ten' },
    { putMinRate: '1/0' },
    { putMinRate: 'fast' },
    { putMaxTime: '0' },
    { quota: '1e9' },
    { publicUrl: 'media.example.com' },
    { publicUrl: 'ftp://media.example.com' },
    { publicUrl: 'https://media.example.com/?a=1' },
    { publicUrl: 'https://user:pw@media.example.com' },
    { storage: 'https://media.example.com/lib' },
    { storage: 's3://Bad_Bucket' },
  ])('%j is a usage error', (flags) => {
    expect(() => serveOptions({ ...base, ...flags }, '/d', false, {})).toThrow(UsageError);
  });
});

describe('serve: logs, metrics and drain flags', () => {
  const base = { host: '127.0.0.1', port: '0' };
  it.each([
    [{}, false, { log: { level: 'info', format: 'json' } }],
    [{}, true, { log: { level: 'info', format: 'pretty' } }],
    [{ logFormat: 'json' }, true, { log: { format: 'json' } }],
    [{ logLevel: 'silent', logFormat: 'pretty' }, false, { log: { level: 'silent', format: 'pretty' } }],
    [{ metrics: true }, false, { metrics: {} }],
    [{ metricsPort: '9464' }, false, { metrics: { port: 9464 } }],
    [{ metrics: true, metricsPort: '0' }, false, { metrics: { port: 0 } }],
  ])('%j (stderr a terminal: %s) → %j', (flags, tty, expected) => {
    expect(serveOptions({ ...base, ...flags }, '/d', tty)).toMatchObject(expected);
  });

  it('metrics are off unless asked for', () => {
    expect(serveOptions(base, '/d').metrics).toBeUndefined();
  });

  it.each([{ logLevel: 'verbose' }, { logFormat: 'text' }, { metricsPort: '70000' }, { metricsPort: 'x' }])(
    '%j is a usage error',
    (flags) => {
      expect(() => serveOptions({ ...base, ...flags }, '/d')).toThrow(UsageError);
    },
  );

  it('drain: seconds on the command line, 5 s grace and 60 s limit by default', () => {
    expect(drainOptions({ ...base })).toEqual({ graceMs: 5000, timeoutMs: 60_000 });
    expect(drainOptions({ ...base, drainGrace: '0', drainTimeout: '300' })).toEqual({ graceMs: 0, timeoutMs: 300_000 });
    expect(() => drainOptions({ ...base, drainGrace: '-1' })).toThrow(UsageError);
    expect(() => drainOptions({ ...base, drainTimeout: '1.5' })).toThrow(UsageError);
  });
});

describe('serve has no fault flags', () => {
  it.each([
    ['--fault-drop-put-after', '100'],
    ['--fault-count', '1'],
    ['--fault-write-error', 'ENOSPC'],
  ])('%s is an unknown option (exit 2), and nothing is started', async (flag, value) => {
    const home = await tempHome();
    try {
      const r = await cli(home.dir, ['serve', '--port', '0', flag, value]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`Error: Unknown option '${flag}'`);
    } finally {
      await home.remove();
    }
  });
});
