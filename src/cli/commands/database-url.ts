// `--db` for serve and keys: a PostgreSQL URL from the flag or CONTENTLIB_DATABASE_URL. What the
// URL leaves out (host, user, password, database) libpq's PG* variables fill in, as pg does.
import { CliError, UsageError } from '../errors.js';

/** The database URL to use, or undefined for the data dir's SQLite; a URL that is not postgres:// is a usage error. */
export function databaseUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const url = flag ?? (env.CONTENTLIB_DATABASE_URL || undefined);
  if (url === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    const from = flag !== undefined ? '--db' : 'CONTENTLIB_DATABASE_URL';
    throw new UsageError(
      `${from} must be a PostgreSQL URL (postgres://user@host:5432/db), not "${redactUrl(url)}"`,
      'Without it the data dir keeps its own SQLite database.',
    );
  }
  return url;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN']);

/** A database that cannot be reached or refuses us, said in words; undefined for anything else. */
export function databaseError(url: string, err: unknown): CliError | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // 28P01 / 28000: authentication; 3D000: no such database; 42501: no permission.
  if (UNREACHABLE.has(code) || /^(28|3D|42501)/.test(code)) {
    return new CliError(`Cannot use the database ${redactUrl(url)}: ${message}${code ? ` (${code})` : ''}.`, {
      hint: 'Check the URL (--db or CONTENTLIB_DATABASE_URL), that PostgreSQL runs and accepts this user, and PG* variables.',
      cause: err,
    });
  }
  return undefined;
}
