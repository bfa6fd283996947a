// `--db` for serve and keys: a PostgreSQL URL from the flag or CONTENTLIB_DATABASE_URL. What the
// URL leaves out (host, user, password, database) libpq's PG* variables fill in, as pg does.
import { parse } from 'pg-connection-string';
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
/** pg's words when no connection came within its connection timeout (no code). */
const CONNECT_TIMEOUT =
  /^(timeout expired|timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;

type Part = 'host' | 'port' | 'user' | 'database';
const PG_VARIABLE: Record<Part, string> = { host: 'PGHOST', port: 'PGPORT', user: 'PGUSER', database: 'PGDATABASE' };

export interface ConnectionTarget {
  host: string;
  port: string;
  user: string;
  database: string;
  /** Parts neither the URL nor a PG* variable gave: libpq's defaults were used. */
  defaulted: Part[];
}

/**
 * Where a PostgreSQL URL connects, the way pg (and libpq) fill it: the URL's own parts, else the
 * PG* variables, else localhost, 5432, the login user and a database named after the user.
 */
export function connectionTarget(url: string, env: NodeJS.ProcessEnv): ConnectionTarget {
  // pg's own parser (what pg connects with): encoded names, IPv6 hosts, ?host= socket folders.
  const parsed = parse(url);
  const fromUrl: Record<Part, string> = {
    user: parsed.user ?? '',
    host: parsed.host ?? '',
    port: parsed.port ?? '',
    database: parsed.database ?? '',
  };
  const defaulted: Part[] = [];
  const pick = (part: Part, fallback: string): string => {
    const value = fromUrl[part] || env[PG_VARIABLE[part]];
    if (value) return value;
    defaulted.push(part);
    return fallback;
  };
  const picked = pick('host', 'localhost');
  // An IPv6 address is shown as it is written in a URL.
  const host = picked.includes(':') && !picked.startsWith('[') ? `[${picked}]` : picked;
  const port = pick('port', '5432');
  const user = pick('user', env.USER ?? '');
  return { host, port, user, database: pick('database', user), defaulted };
}

/**
 * The hint of a database that cannot be used: what was tried, and what filled the gaps.
 * `reached`: the server answered (and refused us), so we did connect; otherwise we only tried.
 */
function databaseHint(url: string, env: NodeJS.ProcessEnv, reached: boolean): string {
  const t = connectionTarget(url, env);
  const tried = `It ${reached ? 'connected' : 'tried to connect'} as "${t.user}" to ${t.host}:${t.port}, database "${t.database}".`;
  if (t.defaulted.length === 0)
    return `${tried} Check the URL (--db or CONTENTLIB_DATABASE_URL), that PostgreSQL runs and accepts this user, and PG* variables.`;
  const parts = t.defaulted.join(', ');
  const vars = t.defaulted.map((p) => PG_VARIABLE[p]).join(', ');
  return `${tried} Neither the URL nor ${vars} gave the ${parts}, so libpq's defaults were used: put them in the URL (--db or CONTENTLIB_DATABASE_URL) or set ${vars}.`;
}

/** A database that cannot be reached or refuses us, said in words; undefined for anything else. */
export function databaseError(url: string, err: unknown, env: NodeJS.ProcessEnv = process.env): CliError | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // pg's words when the server asks for a password and none was given (no SQLSTATE code).
  if (/^SASL: .*client password must be a (non-empty )?string/.test(message)) {
    return new CliError(
      `Cannot use the database ${redactUrl(url)}: the server asks for a password, and neither the URL nor PGPASSWORD gives one.`,
      { hint: databaseHint(url, env, true), cause: err },
    );
  }
  if (CONNECT_TIMEOUT.test(message)) {
    return new CliError(
      `Cannot use the database ${redactUrl(url)}: no connection within the time limit (${message}).`,
      {
        hint: databaseHint(url, env, false),
        cause: err,
      },
    );
  }
  // 28P01 / 28000: authentication; 3D000: no such database; 42501: no permission.
  if (UNREACHABLE.has(code) || /^(28|3D|42501)/.test(code)) {
    return new CliError(`Cannot use the database ${redactUrl(url)}: ${message}${code ? ` (${code})` : ''}.`, {
      hint: databaseHint(url, env, !UNREACHABLE.has(code)),
      cause: err,
    });
  }
  return undefined;
}
