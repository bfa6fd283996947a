// SQLite's result codes by name. node:sqlite throws an Error whose `code` is Node's generic
// ERR_SQLITE_ERROR and whose `errcode` is SQLite's extended result code (a number); the code that
// decides what an error means (an outage, a full disk, a corrupt journal, a folder that cannot
// be used) speaks of SQLITE_BUSY, SQLITE_FULL…, so every such decision reads the name from here.

/** Primary result codes (the low byte of an extended code), from sqlite3.h. */
const PRIMARY: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};

/** The extended codes a decision names (the rest keep their primary name with a number). */
const EXTENDED: Record<number, string> = {
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  266: 'SQLITE_IOERR_READ',
  778: 'SQLITE_IOERR_WRITE',
  1034: 'SQLITE_IOERR_FSYNC',
  3338: 'SQLITE_IOERR_SHORT_READ',
  517: 'SQLITE_BUSY_SNAPSHOT',
  261: 'SQLITE_BUSY_RECOVERY',
};

/** SQLite's name for a result code number (`SQLITE_IOERR_10250` for an unnamed extended one). */
export function sqliteCodeName(errcode: number): string {
  const named = EXTENDED[errcode];
  if (named) return named;
  const primary = PRIMARY[errcode & 0xff] ?? 'SQLITE_UNKNOWN';
  return errcode > 0xff ? `${primary}_${errcode}` : primary;
}

/**
 * The code by which to judge `err`: SQLite's name for an error node:sqlite threw, else the
 * error's own `code` (ENOSPC, 57P01, ECONNRESET…), else undefined.
 */
export function errorCode(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; errcode?: unknown };
  if (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') return sqliteCodeName(e.errcode);
  return typeof e.code === 'string' ? e.code : undefined;
}
