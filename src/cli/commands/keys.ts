// contentlib keys create|list|revoke: API keys, wherever they are kept. On the server's own
// machine (--data-dir, --db, or the embedded library when no remote is configured) the
// database is written directly; with a remote service as the target (a profile, --base-url,
// CONTENTLIB_BASE_URL) its key extension endpoints are used, with the logged-in key (which
// needs keys:admin). Every command names its target on stderr first. A new key is printed once,
// alone on stdout (only its hash is kept); lists show a short prefix, never a key.
import type { ApiClient } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { type KeyFields, type KeyInfo as WireKey, keyInfoOf } from '../../api/schemas.js';
import { type Scope, SCOPES, ROLES, ROLE_NAMES, effectiveScopes, isScope, parseScopeFlags } from '../../api/scopes.js';
import { brandNameProblem, nameProblem } from '../../api/text-rules.js';
import { type ConfigData, openConfig } from '../../config/store.js';
import { resolveTarget } from '../../config/resolve.js';
import type * as AdminModule from '../../server/admin.js';
import type { KeyInfo } from '../../server/admin.js';
import { openApi } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { dataDirError, extensionMissing } from '../error-messages.js';
import { CliError, NotFoundError, UsageError } from '../errors.js';
import { resultJson } from '../output/json.js';
import { outputMode } from '../output/mode.js';
import { type Column, columnWidths, renderRow } from '../output/table.js';
import { relativeTime } from '../output/time.js';
import { escapeText } from '../../text/escape-name.js';
import { databaseError, databaseUrlOf, redactUrl } from './database-url.js';

/** Where keys live on the server's machine: a data dir's SQLite database, or the PostgreSQL every instance shares. */
export interface KeysWhere {
  dataDir: string;
  databaseUrl?: string;
}

/** Where a keys command works: the database directly, or a service's API. */
export type KeysPlace =
  | { kind: 'local'; where: KeysWhere }
  | { kind: 'api'; client: Pick<ApiClient, 'createKey' | 'listKeys' | 'revokeKey'>; baseUrl: string };

/** A key as the keys commands print it, from the database or the API alike: the API's fields and the brand. */
export interface KeyView extends KeyFields {
  /** The brand, when known: the database says; the API lists only the caller's own. */
  brand: string | null;
}

export interface KeysCreateOptions {
  /** The brand, on the server's machine (over the API a key is of the caller's brand). */
  brand?: string;
  name?: string;
  /** Default: every scope. */
  scopes?: Scope[];
  expiresInSeconds?: number;
}

// ---- choosing the place -----------------------------------------------------------------

export interface KeysFlags {
  dataDir?: string;
  db?: string;
}

/** How the place was chosen, before anything is opened: the database (and where), or the API. */
export type KeysChoice = { kind: 'local'; where: KeysWhere } | { kind: 'api' };

/**
 * Where keys commands work (pure): --data-dir or --db → the database; --base-url, --api-key or
 * --profile → the API; CONTENTLIB_DATABASE_URL → that database; then what every command
 * targets (src/config/resolve.ts): a remote → its API, else the embedded library's database.
 * Logged in to a remote, keys are never written to the embedded library unless asked for.
 */
export function chooseKeysPlace(
  flags: KeysFlags,
  globals: Pick<GlobalOptions, 'baseUrl' | 'apiKey' | 'profile' | 'embedded'>,
  env: NodeJS.ProcessEnv,
  config: ConfigData,
  embeddedDataDir: string,
): KeysChoice {
  const local = flags.dataDir !== undefined || flags.db !== undefined;
  const remote = Boolean(globals.baseUrl || globals.apiKey || globals.profile);
  if (local && (remote || globals.embedded))
    throw new UsageError(
      '--data-dir and --db work on a server’s own database; --base-url, --api-key, --profile and --embedded choose a library: give one or the other.',
      'On the server’s machine: contentlib keys create --brand acme --data-dir DIR (or --db URL). Elsewhere: contentlib keys create --profile NAME (the key needs keys:admin).',
    );
  if (local) {
    const databaseUrl = databaseUrlOf(flags.db, env);
    return {
      kind: 'local',
      where: { dataDir: flags.dataDir ?? embeddedDataDir, ...(databaseUrl ? { databaseUrl } : {}) },
    };
  }
  if (globals.embedded) return { kind: 'local', where: { dataDir: embeddedDataDir } };
  if (remote) return { kind: 'api' };
  const databaseUrl = databaseUrlOf(undefined, env);
  if (databaseUrl) return { kind: 'local', where: { dataDir: embeddedDataDir, databaseUrl } };
  return resolveTarget(globals, env, config).kind === 'remote'
    ? { kind: 'api' }
    : { kind: 'local', where: { dataDir: embeddedDataDir } };
}

/** The target line of a database: the data dir's library, or the database URL without its password. */
export function localTargetLine(w: KeysWhere): string {
  return w.databaseUrl === undefined ? `→ embedded library at ${w.dataDir}` : `→ database ${redactUrl(w.databaseUrl)}`;
}

/** Chooses the place, names it on stderr, and opens the API when that is the place. */
async function openPlace(ctx: CliContext, globals: GlobalOptions, flags: KeysFlags): Promise<KeysPlace> {
  const config = openConfig(ctx.paths.config).read();
  const choice = chooseKeysPlace(flags, globals, ctx.env, config, ctx.paths.data);
  if (choice.kind === 'local') {
    ctx.io.stderr.write(`${localTargetLine(choice.where)}\n`);
    return choice;
  }
  const { client, target } = await openApi(ctx, globals);
  return { kind: 'api', client, baseUrl: target.baseUrl };
}

// ---- the work -----------------------------------------------------------------------------

/** The API's fields of a key (keyInfoOf, as the server presents it) with its brand after its name. */
function keyView(k: KeyFields, brand: string | null): KeyView {
  const { id, name, ...rest } = keyInfoOf(k);
  return { id, name, brand, ...rest };
}

const fromDatabase = (k: KeyInfo): KeyView => keyView(k, k.brand);

const fromApi = (k: WireKey): KeyView => keyView(k, null);

/**
 * Runs an admin call on a data folder or database; one that cannot be used is said in words.
 * The server's modules (SQLite, pg) load only here: keys over the API never need them.
 */
async function onLibrary<T>(o: KeysWhere, fn: (a: typeof AdminModule) => Promise<T>): Promise<T> {
  const admin = await import('../../server/admin.js');
  try {
    return await fn(admin);
  } catch (err) {
    if (o.databaseUrl !== undefined) throw databaseError(o.databaseUrl, err) ?? err;
    throw dataDirError(o.dataDir, err, 'data-dir') ?? err;
  }
}

function target(o: KeysWhere) {
  return o.databaseUrl === undefined ? o.dataDir : { dataDir: o.dataDir, databaseUrl: o.databaseUrl };
}

const KEYS_ON_SERVER =
  "Manage keys on the server's machine instead: contentlib keys create --brand NAME --data-dir DIR (or --db URL).";

/** Our 404 for an endpoint that does not exist names no field; one for an unknown key names `id`. */
function isUnknownEndpoint(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    err.status === 404 &&
    !err.details.some((d) => (d as { path?: unknown } | null)?.path === 'id')
  );
}

async function overApi<T>(place: Extract<KeysPlace, { kind: 'api' }>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isUnknownEndpoint(err)) throw extensionMissing(place.baseUrl, 'key management', KEYS_ON_SERVER);
    throw err;
  }
}

/** Makes a key: on the server's machine for `o.brand`, over the API for the caller's own brand. */
export async function runKeysCreate(
  place: KeysPlace,
  o: KeysCreateOptions,
  now: Date,
): Promise<KeyView & { key: string }> {
  const scopes = o.scopes ?? [...SCOPES];
  const name = o.name?.trim() || null;
  const nameIssue = name === null ? null : nameProblem(name);
  if (nameIssue) throw new UsageError(`--name ${nameIssue}`, 'Example: contentlib keys create --name "CI deploys"');
  if (place.kind === 'local') {
    const brand = o.brand?.trim();
    if (!brand)
      throw new UsageError(
        '--brand is required on the server’s machine',
        'Example: contentlib keys create --brand acme',
      );
    const brandIssue = brandNameProblem(brand);
    if (brandIssue) throw new UsageError(`--brand ${brandIssue}`, 'Example: contentlib keys create --brand acme');
    const expiresAt =
      o.expiresInSeconds === undefined ? null : new Date(now.getTime() + o.expiresInSeconds * 1000).toISOString();
    const made = await onLibrary(place.where, (a) =>
      a.createApiKey(target(place.where), brand, { name, scopes, expiresAt }, now),
    );
    return { ...fromDatabase(made), key: made.key };
  }
  if (o.brand !== undefined)
    throw new UsageError(
      `--brand does not apply over the API: ${place.baseUrl} makes the key for the brand of the key you use.`,
      'Drop --brand; to make a key for another brand, run contentlib keys create --brand NAME on the server’s machine (--data-dir or --db).',
    );
  const made = await overApi(place, () =>
    place.client.createKey({
      scopes,
      ...(name ? { name } : {}),
      ...(o.expiresInSeconds === undefined ? {} : { expiresInSeconds: o.expiresInSeconds }),
    }),
  );
  return { ...fromApi(made.key), key: made.secret };
}

export async function runKeysList(place: KeysPlace): Promise<KeyView[]> {
  if (place.kind === 'local')
    return (await onLibrary(place.where, (a) => a.listApiKeys(target(place.where)))).map(fromDatabase);
  return (await overApi(place, () => place.client.listKeys())).keys.map(fromApi);
}

/** The time a known key was revoked, when it was: revoking it again is then done, not an error. */
async function revokedBefore(place: KeysPlace, id: string): Promise<string | undefined> {
  return (await runKeysList(place)).find((k) => k.id === id)?.revokedAt ?? undefined;
}

export async function runKeysRevoke(
  place: KeysPlace,
  id: string,
): Promise<{ id: string; revoked: true; alreadyRevoked?: string }> {
  if (place.kind === 'local') {
    if (!(await onLibrary(place.where, (a) => a.revokeApiKey(target(place.where), id)))) {
      // A script run twice revokes twice: the key is revoked, as asked (exit 0).
      const at = await revokedBefore(place, id);
      if (at) return { id, revoked: true, alreadyRevoked: at };
      const where = place.where.databaseUrl === undefined ? place.where.dataDir : redactUrl(place.where.databaseUrl);
      throw new NotFoundError(
        `No key with id ${id} in ${where}.`,
        'See the ids with: contentlib keys list (with the same --data-dir or --db)',
      );
    }
    return { id, revoked: true };
  }
  try {
    await overApi(place, () => place.client.revokeKey(id));
  } catch (err) {
    const at = err instanceof ApiError && err.status === 404 ? await revokedBefore(place, id) : undefined;
    if (at) return { id, revoked: true, alreadyRevoked: at };
    if (err instanceof ApiError && err.status === 404)
      throw new NotFoundError(
        `No key with id ${id} in your brand at ${place.baseUrl} (unknown, or another brand's).`,
        'See the ids with: contentlib keys list',
      );
    if (err instanceof ApiError && err.is('last_admin_key'))
      throw new CliError(
        `Key ${id} is the brand's last key with keys:admin: revoking it would leave nobody to manage keys.`,
        {
          hint: 'Create another admin key first (contentlib keys create --role admin), then revoke this one.',
        },
      );
    throw err;
  }
  return { id, revoked: true };
}

// ---- printing -----------------------------------------------------------------------------

/** The scopes in a few words: a role's name when they are exactly a role, else the list without `content:`. */
export function scopesLabel(scopes: readonly string[]): string {
  // Compared by what the keys may do: an admin key made before audit:read existed is an admin.
  const known = scopes.filter(isScope);
  const effective: readonly string[] = known.length === scopes.length ? effectiveScopes(known) : scopes;
  const role = ROLE_NAMES.find((r) => {
    const set: readonly string[] = ROLES[r];
    return set.length === effective.length && set.every((s) => effective.includes(s));
  });
  return role ?? (scopes.map((s) => s.replace(/^content:/, '')).join(',') || '(none)');
}

export function keyStatus(k: KeyView, now: Date): 'active' | 'revoked' | 'expired' {
  if (k.revokedAt !== null) return 'revoked';
  if (k.expiresAt !== null && k.expiresAt <= now.toISOString()) return 'expired';
  return 'active';
}

const when = (iso: string | null, now: Date, none: string) => (iso === null ? none : relativeTime(iso, now));

function tableColumns(withBrand: boolean): Column[] {
  return [
    { header: 'ID', width: 36 },
    { header: 'NAME' },
    ...(withBrand ? [{ header: 'BRAND', width: 12 }] : []),
    { header: 'KEY', width: 10 },
    { header: 'SCOPES', width: 16 },
    { header: 'EXPIRES', width: 14 },
    { header: 'LAST USED', width: 14 },
    { header: 'STATUS', width: 7 },
  ];
}

// Cells are escaped: a key's name or brand may hold control characters (a key made before names
// were checked, or by another service).
function tableCells(k: KeyView, withBrand: boolean, now: Date): string[] {
  return [
    k.id,
    k.name ?? '—',
    ...(withBrand ? [k.brand ?? ''] : []),
    `${k.prefix}…`,
    scopesLabel(k.scopes),
    when(k.expiresAt, now, 'never'),
    when(k.lastUsedAt, now, 'never'),
    keyStatus(k, now),
  ].map((cell) => escapeText(cell));
}

/** Plain rows keep the first five columns of earlier versions, then the new ones. */
function plainCells(k: KeyView, now: Date): string[] {
  return [
    k.id,
    `${k.prefix}…`,
    k.brand ?? '',
    k.createdAt,
    keyStatus(k, now),
    k.name ?? '',
    k.scopes.join(','),
    k.expiresAt ?? '',
    k.lastUsedAt ?? '',
  ].map((cell) => escapeText(cell.replace(/[\t\r\n]+/g, ' ')));
}

export function formatKeys(
  keys: readonly KeyView[],
  mode: 'table' | 'plain' | 'json',
  columns: number,
  now: Date,
): string {
  if (mode === 'json') return `${JSON.stringify(keys, null, 2)}\n`;
  if (mode === 'plain') return keys.map((k) => `${plainCells(k, now).join('\t')}\n`).join('');
  if (keys.length === 0) return 'No keys yet. Create one with: contentlib keys create --name NAME --role reader\n';
  const withBrand = keys.some((k) => k.brand !== null);
  const cols = tableColumns(withBrand);
  const widths = columnWidths(cols, columns);
  return [cols.map((c) => c.header), ...keys.map((k) => tableCells(k, withBrand, now))]
    .map((row) => `${renderRow(row, cols, widths)}\n`)
    .join('');
}

/** What stderr says about a new key: its id, name, scopes, expiry and where it was made. */
export function createdLine(k: KeyView, place: KeysPlace): string {
  const name = k.name ? ` "${escapeText(k.name)}"` : '';
  const expiry = k.expiresAt ? `, expires ${k.expiresAt}` : '';
  const where =
    k.brand !== null
      ? `for brand "${escapeText(k.brand)}"`
      : `at ${place.kind === 'api' ? place.baseUrl : 'the server'}`;
  return `Created key ${k.id}${name} ${where} (${k.scopes.join(', ')}${expiry}). It will not be shown again: store it now (e.g. contentlib login).`;
}

// ---- the commands -------------------------------------------------------------------------

export interface KeysCreateFlags extends KeysFlags {
  brand?: string;
  name?: string;
  scope?: string[];
  role?: string;
  expires?: number;
}

/** --scope and --role as scopes; an unknown word is a usage error listing the valid ones. */
export function scopesFromFlags(f: { scope?: string[]; role?: string }): Scope[] | undefined {
  try {
    return parseScopeFlags(f.scope, f.role);
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message}.`,
      `Roles: reader (content:read), publisher (+ content:write), editor (+ content:delete, audit:read), admin (+ keys:admin). Example: --role publisher or --scope content:read,content:write`,
    );
  }
}

/** `contentlib keys create`: the key alone on stdout, once. */
export async function keysCreateCommand(ctx: CliContext, globals: GlobalOptions, o: KeysCreateFlags): Promise<void> {
  const scopes = scopesFromFlags(o);
  const place = await openPlace(ctx, globals, o);
  const created = await runKeysCreate(
    place,
    {
      ...(o.brand !== undefined ? { brand: o.brand } : {}),
      ...(o.name !== undefined ? { name: o.name } : {}),
      ...(scopes ? { scopes } : {}),
      ...(o.expires !== undefined ? { expiresInSeconds: o.expires } : {}),
    },
    ctx.now(),
  );
  ctx.io.stdout.write((await resultJson(globals, created, 'keys create', true)) ?? `${created.key}\n`);
  ctx.io.stderr.write(`${createdLine(created, place)}\n`);
}

/** `contentlib keys list`. */
export async function keysListCommand(ctx: CliContext, globals: GlobalOptions, o: KeysFlags): Promise<void> {
  const place = await openPlace(ctx, globals, o);
  const list = await runKeysList(place);
  const json = await resultJson(globals, list, 'keys list', true);
  ctx.io.stdout.write(json ?? formatKeys(list, outputMode(ctx.io, false), ctx.io.columns, ctx.now()));
}

/** `contentlib keys revoke <id>`. */
export async function keysRevokeCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  o: KeysFlags,
): Promise<void> {
  const place = await openPlace(ctx, globals, o);
  const result = await runKeysRevoke(place, id);
  const json = await resultJson(globals, result, 'keys revoke');
  if (json !== undefined) ctx.io.stdout.write(json);
  ctx.io.stderr.write(
    result.alreadyRevoked
      ? `Key ${id} was already revoked (${result.alreadyRevoked}); nothing to do.\n`
      : `Revoked key ${id}.\n`,
  );
}
