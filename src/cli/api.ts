// Opens the API for a command: resolves the target (flags → env → profile → embedded), starts
// the embedded server in-process when that is the target, and returns a client that talks real
// HTTP either way. Everything it opens is closed through ctx.onClose. The server (Fastify,
// SQLite) loads only when the embedded library is the target: a remote never needs it.
import type * as Crypto from 'node:crypto';
import { type ApiClient, createApiClient } from '../api/client.js';
import { outageReason, redactKey } from '../api/errors.js';
import { DEFAULT_RETRY, createOutageWatch } from '../api/retry.js';
import type { RetryPolicy } from '../api/retry.js';
import { openConfig } from '../config/store.js';
import type { ConfigStore, EmbeddedKey } from '../config/store.js';
import { resolveTarget } from '../config/resolve.js';
import type { CliContext, GlobalOptions } from './context.js';
import { dataDirError } from './error-messages.js';
import { InterruptedError } from './errors.js';
import { makeDir } from '../fs/make-dir.js';
import { automationReason, embeddedByEnv, noRemoteError, targetLine } from './target.js';
import { parseRetryFor } from './flags.js';
import type { TargetInfo } from './target.js';

export interface ApiTarget {
  baseUrl: string;
  embedded: boolean;
  profile?: string;
  label: string;
  /** Where the requests go, as the target line and the NDJSON events name it. */
  info: TargetInfo;
  /** The key as it may be shown: cl_abcd… */
  keyPrefix: string;
  /** The brand, when known here (the embedded library's; the API does not say a remote's). */
  brand?: string;
  /**
   * Which library this is and whose key, never the key itself: what the upload journal is kept
   * per. Remote: the base URL and a hash of the key; embedded: its data directory and brand.
   */
  library: { where: string; who: string };
}

/**
 * A hash of the key (the upload journal's name for whose library it is). node:crypto is loaded
 * here, when the hash is made, not by every command that opens the API: ~4 ms of a remote `ls`.
 */
function keyHash(key: string): string {
  const { createHash } = process.getBuiltinModule('node:crypto') as typeof Crypto;
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Why the embedded library is the target when nobody chose it, after the target line: nothing is
 * configured, or profiles are saved but none is active (after a logout): never a silent fallback.
 */
export function defaultNote(profiles: readonly string[]): string {
  if (profiles.length === 0) return ' (no remote configured; see contentlib login)';
  return ` (no active profile; saved: ${profiles.join(', ')}; choose one with contentlib config set active-profile ${profiles[0]}, or --profile NAME)`;
}

/** The brand the embedded library creates on first use. */
export const EMBEDDED_BRAND = 'local';
/** The name of the embedded library's own key (what `log` and `show` name as the author). */
export const EMBEDDED_KEY_NAME = 'local';

// The target is named once per run (per context: tests run many in one process), however many
// times a command opens the API.
const named = new WeakSet<CliContext>();

function nameTargetOnce(ctx: CliContext, info: TargetInfo, note = ''): void {
  if (named.has(ctx)) return;
  named.add(ctx);
  ctx.io.stderr.write(`${targetLine(info)}${note}\n`);
}

function tracer(ctx: CliContext, globals: GlobalOptions): ((line: string) => void) | undefined {
  if (!globals.verbose) return undefined;
  return (line) => ctx.io.stderr.write(`[http] ${line}\n`);
}

/**
 * Where the one line about an outage goes: openApi points it at the command's stderr, naming the
 * remote. Every retry loop of the run (the API client's, the storage PUTs') shares the watch, so
 * one restart of the service makes one line however many requests and PUTs wait for it.
 */
let sayWaiting: ((error: unknown, line: string) => void) | undefined;
const outageWatch = createOutageWatch(({ error, forMs }) =>
  sayWaiting?.(
    error,
    `${outageReason(error)}. Retrying for up to ${Math.ceil(forMs / 1000)} s (--retry-for to change).`,
  ),
);

/**
 * What the waiting line names: the address that failed, which is not always the service's. A
 * storage PUT goes to the object store, and a store that is down must not read as the API being
 * down while the API answers. Only the origin: a signed URL's path and query stay out of it.
 */
export function waitingFor(baseUrl: string, error: unknown): string {
  const url = error instanceof Error && 'url' in error && typeof error.url === 'string' ? error.url : undefined;
  let failed: string | undefined;
  try {
    failed = url ? new URL(url).origin : undefined;
  } catch {
    failed = undefined;
  }
  if (failed === undefined || failed === new URL(baseUrl).origin) return baseUrl;
  return `${failed} (the object store)`;
}

/**
 * The retry policy. CONTENTLIB_RETRY_FOR (or --retry-for, which sets it) is how long an outage
 * of the service is ridden out, in seconds. CONTENTLIB_RETRY_BASE_MS shortens the waits
 * (end-to-end tests set it to 0 so a refused connection fails at once; people have no reason
 * to): set alone, it also turns riding out off.
 */
export function retryPolicy(env: NodeJS.ProcessEnv): RetryPolicy {
  const raw = env.CONTENTLIB_RETRY_BASE_MS;
  const base = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
  const retryFor = env.CONTENTLIB_RETRY_FOR;
  const rideOutMs =
    retryFor !== undefined && retryFor !== ''
      ? parseRetryFor(retryFor, 'CONTENTLIB_RETRY_FOR') * 1000
      : base !== undefined
        ? 0
        : DEFAULT_RETRY.rideOutMs;
  const policy = { ...DEFAULT_RETRY, rideOutMs, watch: outageWatch };
  if (base === undefined) return policy;
  return { ...policy, baseMs: base, capMs: Math.min(DEFAULT_RETRY.capMs, base * 60) };
}

/** The embedded library's key: the saved one when it still works, else a new brand key. */
async function embeddedKey(store: ConfigStore, dataDir: string): Promise<EmbeddedKey> {
  const { createApiKey, listApiKeys } = await import('../server/admin.js');
  const saved = store.read().embedded;
  if (saved && saved.dataDir === dataDir) {
    const keys = await listApiKeys(dataDir);
    const now = new Date().toISOString();
    const usable = (k: (typeof keys)[number]) => k.revokedAt === null && (k.expiresAt === null || k.expiresAt > now);
    if (keys.some((k) => k.id === saved.keyId && usable(k))) return saved;
  }
  // First use, a data directory that was wiped, or a revoked key: make a fresh one, with every
  // scope (the person at this machine owns the library), named for what it is.
  const created = await createApiKey(dataDir, EMBEDDED_BRAND, { name: EMBEDDED_KEY_NAME });
  const key: EmbeddedKey = { dataDir, brand: created.brand, keyId: created.id, apiKey: created.key };
  await store.write({ ...store.read(), embedded: key });
  return key;
}

/**
 * Which library a command line names, without opening it or starting anything: the NDJSON
 * `target`, and what the upload journal is kept per (openApi's `library`, the same values).
 * Throws what resolveTarget throws.
 */
export function libraryOf(ctx: CliContext, globals: GlobalOptions): { info: TargetInfo; where: string; who: string } {
  const config = openConfig(ctx.paths.config).read();
  const resolved = resolveTarget(globals, ctx.env, config);
  if (resolved.kind === 'remote')
    return {
      info: { kind: 'remote', baseUrl: resolved.baseUrl, ...(resolved.profile ? { profile: resolved.profile } : {}) },
      where: resolved.baseUrl,
      who: keyHash(resolved.apiKey),
    };
  const dataDir = ctx.paths.data;
  return { info: { kind: 'embedded', dataDir }, where: `embedded:${dataDir}`, who: EMBEDDED_BRAND };
}

/**
 * Opens the API. `writes`: the command changes the library (upload, edit, rm); with no remote
 * configured it refuses in automation unless the embedded library was chosen on purpose.
 * `previews`: the embedded server makes posters and previews while the command runs (browse,
 * which shows them and runs long); other commands stop it too soon to be worth the work, and
 * what they leave is made by the next browse or serve.
 */
export async function openApi(
  ctx: CliContext,
  globals: GlobalOptions,
  opts: { writes?: boolean; previews?: boolean } = {},
): Promise<{ client: ApiClient; target: ApiTarget }> {
  const store = openConfig(ctx.paths.config);
  const config = store.read();
  const resolved = resolveTarget(globals, ctx.env, config);
  if (resolved.kind === 'embedded' && opts.writes) {
    const onPurpose = Boolean(globals.embedded) || embeddedByEnv(ctx.env) || config.useEmbedded === true;
    const reason = onPurpose ? undefined : automationReason(ctx.io, ctx.env);
    if (reason) throw noRemoteError(reason);
  }
  const common = { now: ctx.now, sleep: ctx.sleep, trace: tracer(ctx, globals), retry: retryPolicy(ctx.env) };

  if (resolved.kind === 'remote') {
    const client = createApiClient({ baseUrl: resolved.baseUrl, apiKey: resolved.apiKey, ...common });
    sayWaiting = (error, line) => ctx.io.stderr.write(`Waiting for ${waitingFor(resolved.baseUrl, error)}: ${line}\n`);
    ctx.onClose(() => client.close());
    const info: TargetInfo = {
      kind: 'remote',
      baseUrl: resolved.baseUrl,
      ...(resolved.profile ? { profile: resolved.profile } : {}),
    };
    const target: ApiTarget = {
      baseUrl: resolved.baseUrl,
      embedded: false,
      label: resolved.label,
      info,
      keyPrefix: redactKey(resolved.apiKey),
      library: {
        where: resolved.baseUrl,
        // Only upload reads it (its journal's name): ls and show never pay for the hash.
        get who() {
          return keyHash(resolved.apiKey);
        },
      },
    };
    if (resolved.profile) target.profile = resolved.profile;
    nameTargetOnce(ctx, info);
    return { client, target };
  }

  const dataDir = ctx.paths.data;
  const { startServer } = await import('../server/index.js');
  const server = await makeDir(dataDir)
    .then(() => startServer({ dataDir, host: '127.0.0.1', port: 0, previews: { enabled: opts.previews === true } }))
    .catch((err: unknown) => {
      throw dataDirError(dataDir, err) ?? err;
    });
  ctx.onClose(() => server.close());
  const key = await embeddedKey(store, dataDir);
  const client = createApiClient({ baseUrl: server.url, apiKey: key.apiKey, ...common });
  // Closers run in reverse: the client lets go of its sockets before the server stops.
  ctx.onClose(() => client.close());
  ctx.targetNames.set(server.url.replace(/\/+$/, ''), `the embedded library (${dataDir})`);
  const info: TargetInfo = { kind: 'embedded', dataDir };
  // Chosen by default (nothing configured): say how to choose otherwise.
  const byDefault = !globals.embedded && !embeddedByEnv(ctx.env) && config.useEmbedded !== true;
  nameTargetOnce(ctx, info, byDefault ? defaultNote(Object.keys(config.profiles).sort()) : '');
  return {
    client,
    target: {
      baseUrl: server.url,
      embedded: true,
      label: `the embedded library in ${dataDir}`,
      info,
      keyPrefix: redactKey(key.apiKey),
      brand: key.brand,
      library: { where: `embedded:${dataDir}`, who: key.brand },
    },
  };
}

/**
 * Runs a command's body; once Ctrl-C has aborted ctx.signal, whatever the body throws (an
 * aborted request, a closed stream) is reported as an interruption (exit 130), not as a bug.
 */
export async function interruptible<T>(
  ctx: Pick<CliContext, 'signal'>,
  body: () => Promise<T>,
  message = 'Interrupted; nothing more was done.',
): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (ctx.signal.aborted && !(err instanceof InterruptedError)) throw new InterruptedError(message);
    throw err;
  }
}
