// The server's commands in-process: `keys list` output in each mode and `serve` flags → server options.
import { describe, expect, it } from 'vitest';
import { formatKeys } from '../../src/cli/commands/keys.js';
import { drainOptions, serveOptions } from '../../src/cli/commands/serve.js';
import { UsageError } from '../../src/cli/errors.js';

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

describe('serveOptions (flags → server options)', () => {
  const base = { host: '127.0.0.1', port: '0' };
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
    [{ faultDropPutAfter: '100' }, { faults: { dropPutAfterBytes: 100, count: 1 } }],
    [{ faultDropPutAfter: '100', faultCount: '3' }, { faults: { dropPutAfterBytes: 100, count: 3 } }],
    [{ db: 'postgres://cl@db:5432/lib' }, { databaseUrl: 'postgres://cl@db:5432/lib' }],
    [{ storage: 's3://media/lib' }, { storageUrl: 's3://media/lib' }],
    [{ publicUrl: 'https://media.example.com/' }, { publicUrl: 'https://media.example.com' }],
    [{ publicUrl: 'http://10.0.0.5:8080/cl/' }, { publicUrl: 'http://10.0.0.5:8080/cl' }],
    [{ faultWriteError: 'ENOSPC' }, { writeError: 'ENOSPC' }],
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
    { faultCount: '2' },
    { quota: '1e9' },
    { publicUrl: 'media.example.com' },
    { publicUrl: 'ftp://media.example.com' },
    { publicUrl: 'https://media.example.com/?a=1' },
    { publicUrl: 'https://user:pw@media.example.com' },
    { faultWriteError: 'full' },
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
