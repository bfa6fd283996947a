// contentlib auth status: which library the commands talk to, which brand and key, and whether
// the service accepts the key right now (one list request with limit 1). Exit 4 when it does not.
import type { ApiClient } from '../../api/client.js';
import { ApiError, missingScopeOf } from '../../api/errors.js';
import type { CliContext, GlobalOptions } from '../context.js';
import type { TargetInfo } from '../target.js';
import { interruptible, openApi } from '../api.js';
import { keyRejectedError } from '../error-messages.js';
import { AUTH_STATUS_FIELDS, checkJq, formatJson, jsonSelection } from '../output/json.js';

export interface AuthStatus {
  target: TargetInfo;
  /**
   * The key's brand: the embedded library's, or what our own server reports (its
   * Content-Library-Brand header, an extension); null for a service that does not say.
   */
  brand: string | null;
  keyPrefix: string;
  /** The service accepted the key. */
  ok: boolean;
}

/**
 * Asks the service once; a 401 is an answer (ok: false), and so is a 403 for a missing scope
 * (ok: the key is accepted, it only may not list). Anything else that fails is thrown.
 */
export async function checkKey(client: Pick<ApiClient, 'list'>, signal?: AbortSignal): Promise<boolean> {
  try {
    await client.list({ limit: 1 }, { signal });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return false;
    if (missingScopeOf(err) !== undefined) return true;
    throw err;
  }
}

export function statusLines(s: AuthStatus): Array<[string, string]> {
  return [
    ['target', s.target.kind === 'embedded' ? `embedded library at ${s.target.dataDir}` : s.target.baseUrl],
    ...(s.target.kind === 'remote' && s.target.profile ? [['profile', s.target.profile] as [string, string]] : []),
    ['brand', s.brand ?? '(not reported by the service)'],
    ['key', s.keyPrefix],
    ['status', s.ok ? 'the service accepts this key' : 'the service REJECTED this key'],
  ];
}

/** `contentlib auth status`. */
export async function authStatusCommand(ctx: CliContext, globals: GlobalOptions): Promise<void> {
  const sel = jsonSelection(globals, AUTH_STATUS_FIELDS, 'auth status');
  if (sel?.jq !== undefined) await checkJq(sel.jq);
  const { client, target } = await openApi(ctx, globals);
  const ok = await interruptible(ctx, () => checkKey(client, ctx.signal));
  const brand = target.brand ?? client.reportedBrand() ?? null;
  const status: AuthStatus = { target: target.info, brand, keyPrefix: target.keyPrefix, ok };
  if (sel) ctx.io.stdout.write(await formatJson(status, sel));
  else {
    const rows = statusLines(status);
    const width = Math.max(...rows.map(([k]) => k.length)) + 2;
    const sep = ctx.io.stdoutIsTTY ? (k: string) => k.padEnd(width) : (k: string) => `${k}\t`;
    ctx.io.stdout.write(`${rows.map(([k, v]) => `${sep(k)}${v}`).join('\n')}\n`);
  }
  if (!ok) throw keyRejectedError(target.baseUrl);
}
