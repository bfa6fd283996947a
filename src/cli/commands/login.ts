// contentlib login / logout: saves a base URL and API key as a profile (and makes it the active
// one) after checking that the key works; logout forgets it. Keys come from a hidden prompt or
// from stdin (--with-token), so they never land in shell history.
import { createApiClient } from '../../api/client.js';
import { ApiError, NetworkError, missingScopeOf, networkReason, redactKey } from '../../api/errors.js';
import { normalizeBaseUrl } from '../../config/resolve.js';
import { type ConfigStore, openConfig } from '../../config/store.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { AuthError, CliError, EXIT, InterruptedError, UsageError } from '../errors.js';
import { canPrompt } from '../io.js';
import { resultJson } from '../output/json.js';
import { askLine as ask } from '../prompt.js';

export const DEFAULT_PROFILE = 'default';

export interface LoginDeps {
  store: ConfigStore;
  /** Throws when the key does not work at that base URL (a list call with limit 1). */
  verify: (baseUrl: string, apiKey: string) => Promise<void>;
}

export interface LoginResult {
  profile: string;
  baseUrl: string;
  key: string;
}

export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new UsageError(
      `"${name}" is not a usable profile name.`,
      'Use letters, digits, ".", "_" or "-", e.g. --profile staging',
    );
  }
  return name;
}

export async function runLogin(
  o: { baseUrl: string; apiKey: string; profile: string },
  deps: LoginDeps,
): Promise<LoginResult> {
  const baseUrl = normalizeBaseUrl(o.baseUrl, 'The base URL');
  const apiKey = o.apiKey.trim();
  if (!apiKey)
    throw new UsageError(
      'The API key is empty; nothing was saved.',
      'Paste the key when asked, or pipe it: printf %s "$KEY" | contentlib login --with-token --base-url URL',
    );
  try {
    await deps.verify(baseUrl, apiKey);
  } catch (err) {
    // A key refused only for a scope it lacks (one that may upload but not list) is a valid key.
    if (missingScopeOf(err) === undefined) throw loginError(err, baseUrl, apiKey);
  }
  const data = deps.store.read();
  data.profiles[o.profile] = { baseUrl, apiKey };
  data.activeProfile = o.profile;
  await deps.store.write(data);
  return { profile: o.profile, baseUrl, key: redactKey(apiKey) };
}

/** Why the check of a key failed, in a login's words (nothing was saved). */
function loginError(err: unknown, baseUrl: string, apiKey: string): unknown {
  if (err instanceof ApiError && err.status === 401) {
    return new AuthError(
      `${baseUrl} rejected the key ${redactKey(apiKey)}; nothing was saved.`,
      'Check that the key was issued for this service (keys are per brand) and try again.',
    );
  }
  // The generic hint (check your profile, or use --embedded) does not fit a login.
  if (err instanceof NetworkError) {
    return new CliError(`Could not reach ${baseUrl}: ${networkReason(err)}; nothing was saved.`, {
      hint: 'Check the base URL and that the service is running there, then run contentlib login again.',
      exitCode: EXIT.failure,
      cause: err,
    });
  }
  return err;
}

export interface LogoutResult {
  profile?: string;
  removed: boolean;
  /**
   * The active profile after the logout (null: none). Logging out of the active profile makes
   * `default` active when it exists, never silently nothing: the command says which.
   */
  activeProfile: string | null;
}

/** Removes a profile (false when there was none to remove); the active one falls back to `default`. */
export async function runLogout(profile: string | undefined, store: ConfigStore): Promise<LogoutResult> {
  const data = store.read();
  const name = profile ?? data.activeProfile;
  const active = data.activeProfile ?? null;
  if (!name || !data.profiles[name])
    return name ? { profile: name, removed: false, activeProfile: active } : { removed: false, activeProfile: active };
  delete data.profiles[name];
  if (data.activeProfile === name) {
    if (data.profiles[DEFAULT_PROFILE]) data.activeProfile = DEFAULT_PROFILE;
    else delete data.activeProfile;
  }
  await store.write(data);
  return { profile: name, removed: true, activeProfile: data.activeProfile ?? null };
}

/** What a logout says about the library commands use now (one line, or two). */
export function afterLogout(r: LogoutResult, others: readonly string[]): string {
  if (r.activeProfile) return `Profile "${r.activeProfile}" is now the active one.`;
  if (others.length > 0)
    return `No profile is active now; commands use the embedded library on this machine until you choose one: contentlib config set active-profile ${others[0]}  (saved: ${others.join(', ')})`;
  return 'No profile is left: commands now use the embedded library on this machine (contentlib login adds a remote).';
}

async function readAllStdin(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function loginInputs(
  ctx: CliContext,
  globals: GlobalOptions,
  withToken: boolean,
): Promise<{ baseUrl: string; apiKey: string }> {
  // Ctrl-C or Ctrl-D at a question is the person stopping, not an empty answer.
  const askLine = async (question: string, opts?: { hidden?: boolean }) => {
    const answer = await ask(ctx.io, question, opts);
    if (answer === undefined) throw new InterruptedError('Interrupted; nothing was saved.');
    return answer;
  };
  const interactive = canPrompt(ctx.io);
  let baseUrl = globals.baseUrl ?? ctx.env.CONTENTLIB_BASE_URL;
  if (!baseUrl && interactive && !withToken)
    baseUrl = await askLine('Base URL of the service (e.g. https://content.example.com): ');
  if (!baseUrl?.trim())
    throw new UsageError('No base URL given; nothing was saved.', 'Add --base-url https://content.example.com');
  let apiKey: string | undefined;
  if (withToken) apiKey = await readAllStdin(ctx);
  else if (globals.apiKey) apiKey = globals.apiKey;
  else if (interactive) apiKey = await askLine('API key (input hidden): ', { hidden: true });
  else
    throw new UsageError(
      'No terminal to ask for the API key on; nothing was saved.',
      'Pipe the key in: printf %s "$KEY" | contentlib login --with-token --base-url URL',
    );
  return { baseUrl: baseUrl.trim(), apiKey: apiKey ?? '' };
}

/** `contentlib login`: checks the key with one list request, then saves the profile. */
export async function loginCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  opts: { withToken?: boolean },
): Promise<void> {
  const profile = checkProfileName(globals.profile ?? DEFAULT_PROFILE);
  const store = openConfig(ctx.paths.config);
  const inputs = await loginInputs(ctx, globals, Boolean(opts.withToken));
  const trace = globals.verbose ? (l: string) => ctx.io.stderr.write(`[http] ${l}\n`) : undefined;
  const result = await runLogin(
    { ...inputs, profile },
    {
      store,
      verify: async (baseUrl, apiKey) => {
        const client = createApiClient({
          baseUrl,
          apiKey,
          now: ctx.now,
          sleep: ctx.sleep,
          trace,
          retry: { attempts: 2, baseMs: 200, capMs: 1000 },
        });
        try {
          await client.list({ limit: 1 }, { signal: ctx.signal });
        } finally {
          await client.close();
        }
      },
    },
  );
  const json = await resultJson(globals, result, 'login');
  if (json !== undefined) ctx.io.stdout.write(json);
  ctx.io.stderr.write(
    `Logged in to ${result.baseUrl} as profile "${result.profile}" (key ${result.key}); it is now the active profile.\n`,
  );
}

/** `contentlib logout`: forgets the active profile (or --profile NAME). */
export async function logoutCommand(ctx: CliContext, globals: GlobalOptions): Promise<void> {
  const store = openConfig(ctx.paths.config);
  const result = await runLogout(globals.profile ?? ctx.env.CONTENTLIB_PROFILE, store);
  const json = await resultJson(globals, result, 'logout');
  if (json !== undefined) ctx.io.stdout.write(json);
  if (result.removed) {
    const others = Object.keys(store.read().profiles).sort();
    ctx.io.stderr.write(
      `Logged out: profile "${result.profile}" and its key were removed. ${afterLogout(result, others)}\n`,
    );
  } else
    ctx.io.stderr.write(
      result.profile ? `No profile named "${result.profile}"; nothing to do.\n` : 'Not logged in; nothing to do.\n',
    );
}
