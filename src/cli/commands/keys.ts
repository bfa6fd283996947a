// contentlib keys create|list|revoke: API keys of the embedded server's data dir. A new key is
// printed once, alone on stdout (only its hash is kept); lists show a short prefix, never a key.
import { brandNameProblem } from '../../api/text-rules.js';
import * as admin from '../../server/admin.js';
import type { KeyInfo } from '../../server/admin.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { dataDirError } from '../error-messages.js';
import { NotFoundError, UsageError } from '../errors.js';
import { resultJson } from '../output/json.js';
import { outputMode } from '../output/mode.js';
import { type Column, columnWidths, renderRow } from '../output/table.js';
import { databaseError, databaseUrlOf, redactUrl } from './database-url.js';

/** Where keys live: a data dir's SQLite database, or the PostgreSQL database every instance shares. */
export interface KeysWhere {
  dataDir: string;
  databaseUrl?: string;
}

/** Runs an admin call on a data folder or database; one that cannot be used is said in words. */
async function onLibrary<T>(o: KeysWhere, fn: (a: typeof admin) => Promise<T>): Promise<T> {
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

export async function runKeysCreate(o: KeysWhere & { brand: string }) {
  const brand = o.brand.trim();
  const problem = brandNameProblem(brand);
  if (problem) throw new UsageError(`--brand ${problem}`, 'Example: contentlib keys create --brand acme');
  return onLibrary(o, (admin) => admin.createApiKey(target(o), brand));
}

export async function runKeysList(o: KeysWhere): Promise<KeyInfo[]> {
  return onLibrary(o, (admin) => admin.listApiKeys(target(o)));
}

export async function runKeysRevoke(o: KeysWhere & { id: string }): Promise<{ id: string; revoked: true }> {
  if (!(await onLibrary(o, (admin) => admin.revokeApiKey(target(o), o.id)))) {
    const where = o.databaseUrl === undefined ? o.dataDir : redactUrl(o.databaseUrl);
    throw new NotFoundError(
      `No active key with id ${o.id} in ${where} (unknown, or already revoked).`,
      'See the ids with: contentlib keys list (with the same --data-dir)',
    );
  }
  return { id: o.id, revoked: true };
}

const COLUMNS: Column[] = [
  { header: 'ID', width: 36 },
  { header: 'KEY', width: 10 },
  { header: 'BRAND' },
  { header: 'CREATED', width: 24 },
  { header: 'STATUS', width: 7 },
];

function keyCells(k: KeyInfo): string[] {
  return [k.id, `${k.prefix}…`, k.brand, k.createdAt, k.revokedAt ? 'revoked' : 'active'];
}

export function formatKeys(keys: readonly KeyInfo[], mode: 'table' | 'plain' | 'json', columns: number): string {
  if (mode === 'json') return `${JSON.stringify(keys, null, 2)}\n`;
  if (mode === 'plain') return keys.map((k) => `${keyCells(k).join('\t')}\n`).join('');
  if (keys.length === 0) return 'No keys yet. Create one with: contentlib keys create --brand NAME\n';
  const widths = columnWidths(COLUMNS, columns);
  return [COLUMNS.map((c) => c.header), ...keys.map(keyCells)]
    .map((row) => `${renderRow(row, COLUMNS, widths)}\n`)
    .join('');
}

/** --data-dir and --db (or CONTENTLIB_DATABASE_URL): where the keys live. */
function where(ctx: CliContext, o: { dataDir?: string; db?: string }): KeysWhere {
  const databaseUrl = databaseUrlOf(o.db, ctx.env);
  return { dataDir: o.dataDir ?? ctx.paths.data, ...(databaseUrl ? { databaseUrl } : {}) };
}

/** `contentlib keys create --brand NAME`: the key alone on stdout, once. */
export async function keysCreateCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  o: { brand: string; dataDir?: string; db?: string },
): Promise<void> {
  const created = await runKeysCreate({ brand: o.brand, ...where(ctx, o) });
  ctx.io.stdout.write((await resultJson(globals, created, 'keys create', true)) ?? `${created.key}\n`);
  ctx.io.stderr.write(
    `Created key ${created.id} for brand "${created.brand}". It will not be shown again: store it now (e.g. contentlib login).\n`,
  );
}

/** `contentlib keys list`. */
export async function keysListCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  o: { dataDir?: string; db?: string },
): Promise<void> {
  const list = await runKeysList(where(ctx, o));
  const json = await resultJson(globals, list, 'keys list', true);
  ctx.io.stdout.write(json ?? formatKeys(list, outputMode(ctx.io, false), ctx.io.columns));
}

/** `contentlib keys revoke <id>`. */
export async function keysRevokeCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  o: { dataDir?: string; db?: string },
): Promise<void> {
  const result = await runKeysRevoke({ id, ...where(ctx, o) });
  const json = await resultJson(globals, result, 'keys revoke');
  if (json !== undefined) ctx.io.stdout.write(json);
  ctx.io.stderr.write(`Revoked key ${id}.\n`);
}
