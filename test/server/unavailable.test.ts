// Which failures of a dependency are "unavailable" (503, src/server/unavailable.ts), the guard
// that turns them into UnavailableError at the Repo/Storage boundary (src/server/outage-guard.ts), the
// outage log that says each outage once (src/server/ops/outages.ts), and the judge of
// reservations (src/server/repo/reservations.ts): tables over pure functions.
import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it, vi } from 'vitest';
import { outageGuard } from '../../src/server/outage-guard.js';
import { reservationLimits } from '../../src/server/limits.js';
import { createOutageLog } from '../../src/server/ops/outages.js';
import { type Holdings, judgeReservation } from '../../src/server/repo/reservations.js';
import { UnavailableError, asUnavailable, databaseDown, storageDown } from '../../src/server/unavailable.js';

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
const s3 = (name: string, status?: number) =>
  new S3ServiceException({ name, $fault: 'server', $metadata: status === undefined ? {} : { httpStatusCode: status } });

describe('what a down database looks like', () => {
  it.each([
    [coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), true],
    [new Error('Connection terminated unexpectedly'), true],
    [new Error('Connection terminated due to connection timeout'), true],
    [new Error('timeout exceeded when trying to connect'), true],
    [new Error('Query read timeout'), true],
    [coded('canceling statement due to statement timeout', '57014'), true],
    [coded('the database system is shutting down', '57P01'), true],
    [coded('the database system is starting up', '57P03'), true],
    [coded('sorry, too many clients already', '53300'), true],
    [coded('terminating connection due to idle-in-transaction timeout', '25P03'), true],
    [coded('disk I/O error', 'SQLITE_IOERR_WRITE'), true],
    [coded('database is locked', 'SQLITE_BUSY'), true],
    [coded('duplicate key value violates unique constraint', '23505'), false],
    [coded('syntax error', '42601'), false],
    [coded('database or disk is full', 'SQLITE_FULL'), false],
    [new TypeError('x is undefined'), false],
  ])('%s → %s', (err, down) => expect(databaseDown(err)).toBe(down));
});

describe('what a down store looks like', () => {
  it.each([
    [coded('connect ECONNREFUSED', 'ECONNREFUSED'), true],
    [coded('i/o error', 'EIO'), true],
    [coded('too many open files', 'EMFILE'), true],
    [s3('SlowDown', 503), true],
    [s3('InternalError', 500), true],
    [s3('TimeoutError'), true],
    [Object.assign(new Error('Request aborted'), { name: 'AbortError' }), true],
    [s3('NoSuchKey', 404), false],
    [s3('AccessDenied', 403), false],
    [coded('no space left on device', 'ENOSPC'), false],
    [new Error('promote goes from a staging key to a final key'), false],
  ])('%s → %s', (err, down) => expect(storageDown(err)).toBe(down));

  it('wraps what is down, keeps the reason for the log, and passes anything else through', () => {
    const typed = asUnavailable('storage', coded('connect ECONNREFUSED 10.0.0.9:9000', 'ECONNREFUSED'));
    expect(typed).toBeInstanceOf(UnavailableError);
    expect((typed as UnavailableError).reason).toBe('connect ECONNREFUSED 10.0.0.9:9000');
    const bug = new TypeError('bug');
    expect(asUnavailable('storage', bug)).toBe(bug);
  });
});

describe('guard', () => {
  const outages = () => ({ failed: vi.fn(), succeeded: vi.fn(), down: () => [] });

  it('turns a down dependency into UnavailableError and tells the outage log; a bug stays a bug', async () => {
    const log = outages();
    const repo = outageGuard(
      {
        kind: 'postgres',
        ping: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
        bug: async () => {
          throw new TypeError('bug');
        },
        ok: async () => 42,
      },
      { part: 'database', outages: log },
    );
    await expect(repo.ping()).rejects.toBeInstanceOf(UnavailableError);
    expect(log.failed).toHaveBeenCalledTimes(1);
    await expect(repo.bug()).rejects.toBeInstanceOf(TypeError);
    expect(await repo.ok()).toBe(42);
    expect(log.succeeded).toHaveBeenCalledWith('database');
    expect(repo.kind).toBe('postgres');
  });

  it('a call past its deadline fails as unavailable (a hung disk); pass-through methods are left alone', async () => {
    const disk = outageGuard(
      { head: () => new Promise<never>(() => undefined), sign: async () => 'url' },
      { part: 'storage', outages: outages(), deadlineMs: 20, passThrough: ['sign'] },
    );
    await expect(disk.head()).rejects.toThrow('storage unavailable: no answer within 20 ms');
    expect(await disk.sign()).toBe('url');
  });
});

describe('outage log', () => {
  function logger() {
    const lines: Array<[string, string]> = [];
    const at = (level: string) => (_o: unknown, msg: string) => lines.push([level, msg]);
    return { lines, log: { warn: at('warn'), info: at('info') } as never };
  }

  it('one line when it starts, one when calls have succeeded for the settle time; failures meanwhile extend it', () => {
    vi.useFakeTimers();
    try {
      const { lines, log } = logger();
      const o = createOutageLog(log, 1000);
      const down = new UnavailableError('database', 'refused');
      for (let n = 0; n < 50; n++) o.failed(down);
      o.succeeded('database');
      vi.advanceTimersByTime(500);
      // A call started during the outage fails late: still the same outage.
      o.failed(down);
      o.succeeded('database');
      vi.advanceTimersByTime(999);
      expect(o.down()).toEqual(['database']);
      vi.advanceTimersByTime(1);
      expect(o.down()).toEqual([]);
      expect(lines).toEqual([
        ['warn', 'database unavailable: answering 503 with Retry-After until it recovers'],
        ['info', 'database available again'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('judgeReservation', () => {
  const limits = reservationLimits(1000, { keyReservedUploads: 3, reservationWindowMs: 60_000 });
  const held = (h: Partial<Holdings>): Holdings => ({
    brandBytes: 0,
    thumbnailBytes: 0,
    keyBytes: 0,
    keyUploads: 0,
    keyFirstExpiry: null,
    ...h,
  });
  it.each([
    ['fits', { fileSize: 100, thumbnail: false }, held({}), null],
    ['the brand is full', { fileSize: 100, thumbnail: false }, held({ brandBytes: 950 }), 'quota'],
    [
      "a key's first file, however big (the brand's quota allowing)",
      { fileSize: 900, thumbnail: false },
      held({}),
      null,
    ],
    [
      'a key holding a quarter already',
      { fileSize: 100, thumbnail: false },
      held({ keyBytes: 200, keyUploads: 1, keyFirstExpiry: 5000 }),
      'key_bytes',
    ],
    ['a key holding its count', { fileSize: 1, thumbnail: false }, held({ keyUploads: 3, keyBytes: 3 }), 'key_uploads'],
    ['a thumbnail with the brand full', { fileSize: 100, thumbnail: true }, held({ brandBytes: 1000 }), null],
    [
      'a thumbnail past their own quota',
      { fileSize: 100, thumbnail: true },
      held({ thumbnailBytes: 100 * 1024 * 1024 }),
      'thumbnail_quota',
    ],
  ])('%s', (_name, u, h, kind) => {
    expect(judgeReservation(u, h, limits)?.kind ?? null).toBe(kind);
  });
});
