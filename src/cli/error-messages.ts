// What the user reads when a command fails: the one place an error, of any layer, becomes a
// message (what happened, what to do) and an exit code. main.ts prints it; rm.ts uses it for
// the line of each id it could not delete.
import {
  ApiError,
  missingScopeOf,
  NetworkError,
  StorageError,
  TimeoutError,
  UnexpectedResponseError,
  networkReason,
  requestIdNote,
} from '../api/errors.js';
import { SCOPE_ALLOWS, isScope } from '../api/scopes.js';
import { describeRefusal, freshUrlMayHelp } from '../api/storage-refusal.js';
import { ConfigError } from '../config/errors.js';
import { ExportLogError, HashError, MismatchError } from '../download/errors.js';
import { errorCode } from '../sqlite/codes.js';
import { AuthError, CliError, EXIT, type ExitCode } from './errors.js';

/** Why a folder cannot be used, in words, for the file-system errors a person can fix. */
const FOLDER_PROBLEMS: Record<string, string> = {
  EEXIST: 'a file is in the way where a folder should be',
  ENOENT: 'no folder can be created there',
  ENOTDIR: 'a file is in the way where a folder should be',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the disk is read-only',
  ENOSPC: 'the disk is full',
  SQLITE_CANTOPEN: 'the database cannot be opened there',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_FULL: 'the disk is full',
};

/**
 * A data folder cannot be used: which one, why, and what to do (or undefined: not that kind of
 * error). `embedded`: the CLI's own library; `data-dir`: the folder of serve or keys.
 */
export function dataDirError(
  dataDir: string,
  err: unknown,
  use: 'embedded' | 'data-dir' = 'embedded',
): CliError | undefined {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  // listen's EACCES (a port below 1024) is about the port, not the folder: describeError's job.
  if (e?.syscall === 'listen') return undefined;
  const code = errorCode(err);
  const why = code === undefined ? undefined : FOLDER_PROBLEMS[code];
  if (!why) return undefined;
  if (use === 'data-dir') {
    return new CliError(`Cannot use ${dataDir} as the data folder: ${why} (${code}).`, {
      hint: 'Move what is in the way or fix its permissions, or choose another folder with --data-dir.',
      cause: err,
    });
  }
  return new CliError(`Cannot use ${dataDir} for the embedded library: ${why} (${code}).`, {
    hint: 'Move what is in the way or fix its permissions, point CONTENTLIB_HOME at a writable folder, or use a remote service (contentlib login).',
    cause: err,
  });
}

/** The base URL a request went to: everything before /api/v1, or the origin for storage URLs. */
function baseOf(url: string): string {
  const at = url.indexOf('/api/v1/');
  if (at >= 0) return url.slice(0, at);
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The item id of a /api/v1/content/<id> URL, if it is one. */
function itemIdOf(url: string): string | undefined {
  const m = /\/api\/v1\/content\/([^/?#]+)/.exec(url);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** The request id, on a line of its own after a message that has no parenthesis for it. */
function requestIdLine(err: { requestId?: string | undefined }): string {
  return err.requestId ? `\nRequest id: ${err.requestId} (quote it when reporting the problem)` : '';
}

function detailLines(details: readonly unknown[]): string {
  // The request id entry is quoted beside the status instead.
  const fields = details.filter((d) => typeof (d as { requestId?: unknown } | null)?.requestId !== 'string');
  const lines = fields.slice(0, 10).map((d) => {
    const { path, message } = (d ?? {}) as { path?: unknown; message?: unknown };
    const where = Array.isArray(path) ? path.join('.') : typeof path === 'string' ? path : '';
    return `  ${where ? `${where}: ` : ''}${typeof message === 'string' ? message : JSON.stringify(d)}`;
  });
  return lines.length ? `\n${lines.join('\n')}` : '';
}

/** A 401's message and what to do; upload reports it too, after its items each said why they failed. */
function keyRejected(base: string, why: string): { message: string; hint: string } {
  return {
    message: `${base} rejected the API key (${why}).`,
    hint: `Log in again with a valid key: contentlib login --base-url ${base}  (or set CONTENTLIB_API_KEY; --embedded uses the library on this machine)`,
  };
}

/** The error for a command whose every request was refused with a 401 (exit 4). */
export function keyRejectedError(baseUrl: string, why = 'unknown or revoked key'): AuthError {
  const { message, hint } = keyRejected(baseUrl.replace(/\/+$/, ''), why);
  return new AuthError(message, hint);
}

/** A key refused for a scope it lacks: which scope the command needs, and how to get a key with it. */
function scopeRefused(base: string, scope: string): { message: string; hint: string } {
  const what = isScope(scope) ? ` (to ${SCOPE_ALLOWS[scope]})` : '';
  return {
    message: `${base} refused the API key: this command needs the scope ${scope}${what}, which the key lacks.`,
    hint: `Ask an admin of the brand for a key with ${scope} (contentlib keys create --scope ${scope}), then use it: contentlib login --base-url ${base}`,
  };
}

/** The error for a command stopped by a key that lacks a scope (exit 4); upload reports it after its items. */
export function scopeRefusedError(baseUrl: string, scope: string): AuthError {
  const { message, hint } = scopeRefused(baseUrl.replace(/\/+$/, ''), scope);
  return new AuthError(message, hint);
}

/** A service that answers 404 for the key or audit endpoints does not have contentlib's extensions. */
export function extensionMissing(baseUrl: string, what: string, instead: string): CliError {
  return new CliError(
    `The service at ${baseUrl} does not offer ${what} over its API (an extension of contentlib serve).`,
    {
      hint: instead,
      exitCode: EXIT.failure,
    },
  );
}

/** HTTP failures (src/api/errors.ts): 401 and 403 `forbidden` → 4, 404 → 5, anything else → 1, each with what to do. */
function describeHttpFailure(
  err: unknown,
  targetNames: TargetNames,
): { message: string; exitCode: ExitCode } | undefined {
  if (err instanceof ApiError) {
    const base = baseOf(err.url);
    if (err.status === 401) {
      const { message, hint } = keyRejected(base, err.message);
      return { message: `${message}\n${hint}${requestIdLine(err)}`, exitCode: EXIT.auth };
    }
    const scope = missingScopeOf(err);
    if (scope !== undefined) {
      const { message, hint } = scopeRefused(base, scope);
      return { message: `${message}\n${hint}${requestIdLine(err)}`, exitCode: EXIT.auth };
    }
    if (err.status === 403 && err.is('forbidden'))
      return {
        message: `${base} refused: ${err.message}.\nAsk an admin of the brand for a key that may do this.${requestIdLine(err)}`,
        exitCode: EXIT.auth,
      };
    if (err.status === 404) {
      const id = itemIdOf(err.url);
      // A library named here is the embedded one: one brand, the machine's own key; brands and
      // keys are a remote service's matter, and talking about them there only misleads.
      const named = targetNames.get(base);
      const hint = named
        ? 'Check the id with: contentlib ls'
        : 'Check the id with: contentlib ls   (ids of another brand are not visible with this key)';
      return {
        message: `${id ? `Item ${id}` : 'That item'} is not in ${named ?? `this brand's library at ${base}`}.\n${hint}${requestIdLine(err)}`,
        exitCode: EXIT.notFound,
      };
    }
    const hint =
      err.status === 429
        ? 'The service is rate limiting this key; wait a minute and run the command again.'
        : err.status >= 500
          ? `The service at ${base} failed; try again later, and report it if it keeps happening (run with --verbose for the trace).`
          : 'Fix the request as the message says and run the command again.';
    return {
      message: `${err.message} (${err.status} ${err.code}${requestIdNote(err)})${detailLines(err.details)}\n${hint}`,
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof StorageError) {
    const hint = freshUrlMayHelp(err)
      ? 'The upload URL was refused; run the upload again to get a fresh one.'
      : 'Run the upload again; if it keeps failing, run with --verbose and report the trace.';
    return {
      message: `Object storage refused the upload: ${describeRefusal(err, requestIdNote(err))}.\n${hint}`,
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof NetworkError) {
    const base = baseOf(err.url);
    return {
      message: `Could not reach ${base}: ${networkReason(err)}.\nCheck the base URL (contentlib config list, --base-url or CONTENTLIB_BASE_URL) and that the service is running, or use the library on this machine with --embedded.`,
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof TimeoutError) {
    return {
      message: `${err.message}.\nCheck your network and the base URL (${baseOf(err.url)}), then try again.`,
      exitCode: EXIT.failure,
    };
  }
  if (err instanceof UnexpectedResponseError) {
    return {
      message: `${err.message}.\nCheck that ${baseOf(err.url)} is the root of a Content Library Service (no /api/v1 at the end); run with --verbose to see the answer.${requestIdLine(err)}`,
      exitCode: EXIT.failure,
    };
  }
  return undefined;
}

/** A server that could not listen (contentlib serve): the address, why, and what to do. */
function describeListenFailure(err: unknown): { message: string; exitCode: ExitCode } | undefined {
  const e = err as { syscall?: unknown; code?: unknown; address?: unknown; port?: unknown; hostname?: unknown } | null;
  // A --host name that does not resolve fails in getaddrinfo; the HTTP client wraps its own (NetworkError).
  const lookup = e?.syscall === 'getaddrinfo' && typeof e.hostname === 'string';
  if ((e?.syscall !== 'listen' && !lookup) || typeof e?.code !== 'string') return undefined;
  const address = lookup ? e.hostname : e.address;
  const where =
    typeof address === 'string'
      ? `${address}${typeof e.port === 'number' && e.port > 0 ? `:${e.port}` : ''}`
      : 'that address';
  const why: Record<string, string> = {
    ENOTFOUND: `the host ${where} is not known`,
    EAI_AGAIN: `the host ${where} could not be looked up`,
    EADDRINUSE: `${where} is already in use (another contentlib serve, or another program)`,
    EACCES: `no permission to listen on ${where} (ports below 1024 need privileges)`,
    EADDRNOTAVAIL: `${where} is not an address of this machine`,
  };
  const text = why[e.code];
  if (!text) return undefined;
  return {
    message: `Cannot listen: ${text}.\nChoose another with --port (--port 0 takes any free port) or --host.`,
    exitCode: EXIT.failure,
  };
}

/**
 * Names for base URLs that mean nothing to a person, by base URL without a trailing slash: the
 * embedded library listens on a fresh 127.0.0.1 port each run, so its errors name its data
 * folder instead. openApi adds to the run's map (CliContext.targetNames).
 */
export type TargetNames = ReadonlyMap<string, string>;

export interface DescribeOptions {
  /** --verbose: the stack of an unexpected error, the body of an unexpected answer. */
  verbose?: boolean;
  targetNames?: TargetNames;
}

/** The message and exit code for anything thrown, typed or not. */
export function describeError(
  err: unknown,
  { verbose = false, targetNames = new Map() }: DescribeOptions = {},
): { message: string; exitCode: ExitCode } {
  if (err instanceof CliError || err instanceof ConfigError) {
    const text = err.hint ? `${err.message}\n${err.hint}` : err.message;
    const exitCode =
      err instanceof CliError
        ? err.exitCode
        : err.kind === 'usage'
          ? EXIT.usage
          : err.kind === 'auth'
            ? EXIT.auth
            : EXIT.failure;
    return { message: text, exitCode };
  }
  // The bytes are not the file the library describes: say which and how (exit 1).
  if (err instanceof MismatchError) return { message: err.message, exitCode: EXIT.failure };
  // The download's checksum could not be computed (its hashing thread failed): not the bytes' fault.
  if (err instanceof HashError)
    return {
      message: `${err.message}\nThe partial file is kept: run the same command again to resume; its bytes are hashed again.`,
      exitCode: EXIT.failure,
    };
  // A line of an export folder's log that leads outside it: the line is named, nothing was done for it.
  if (err instanceof ExportLogError) return { message: err.message, exitCode: EXIT.failure };
  const listen = describeListenFailure(err);
  if (listen) return listen;
  const http = describeHttpFailure(err, targetNames);
  if (http)
    return verbose && err instanceof UnexpectedResponseError
      ? { ...http, message: `${http.message}\nBody: ${err.bodySnippet}` }
      : http;
  const e = err instanceof Error ? err : new Error(String(err));
  const detail = verbose && e.stack ? `\n${e.stack}` : '';
  return {
    message: `Unexpected error: ${e.message}${detail}\nThis is a bug in contentlib; run again with --verbose and report what it prints.`,
    exitCode: EXIT.failure,
  };
}
