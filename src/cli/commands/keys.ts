// contentlib keys create|list|revoke: API keys of the embedded server's data dir. A new key is
// printed once, alone on stdout (only its hash is kept); lists show a short prefix, never a key.
import * as admin from '../../server/admin.js';
import type { KeyInfo } from '../../server/admin.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { dataDirError } from '../error-messages.js';
import { NotFoundError, UsageError } from '../errors.js';
import { outputMode } from '../output/mode.js';
import { type Column, columnWidths, renderRow } from '../output/table.js';

/** Runs an admin call on a data folder; a folder that cannot be used is said in words. */
async function onDataDir<T>(dataDir: string, fn: (a: typeof admin) => Promise<T>): Promise<T> {
  try {
    return await fn(admin);
  } catch (err) {
    throw dataDirError(dataDir, err, 'data-dir') ?? err;
  }
}

export async function runKeysCreate(o: { dataDir: string; brand: string }) {
  const brand = o.brand.trim();
  if (!brand) throw new UsageError('--brand must not be empty', 'Example: contentlib keys create --brand acme');
  return onDataDir(o.dataDir, (admin) => admin.createApiKey(o.dataDir, brand));
}

export async function runKeysList(o: { dataDir: string }): Promise<KeyInfo[]> {
  return onDataDir(o.dataDir, (admin) => admin.listApiKeys(o.dataDir));
}

export async function runKeysRevoke(o: { dataDir: string; id: string }): Promise<{ id: string; revoked: true }> {
  if (!(await onDataDir(o.dataDir, (admin) => admin.revokeApiKey(o.dataDir, o.id)))) {
    throw new NotFoundError(
      `No active key with id ${o.id} in ${o.dataDir} (unknown, or already revoked).`,
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

/** `contentlib keys create --brand NAME`: the key alone on stdout, once. */
export async function keysCreateCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  o: { brand: string; dataDir?: string },
): Promise<void> {
  const created = await runKeysCreate({ brand: o.brand, dataDir: o.dataDir ?? ctx.paths.data });
  ctx.io.stdout.write(globals.json ? `${JSON.stringify(created, null, 2)}\n` : `${created.key}\n`);
  ctx.io.stderr.write(
    `Created key ${created.id} for brand "${created.brand}". It will not be shown again: store it now (e.g. contentlib login).\n`,
  );
}

/** `contentlib keys list`. */
export async function keysListCommand(ctx: CliContext, globals: GlobalOptions, o: { dataDir?: string }): Promise<void> {
  const list = await runKeysList({ dataDir: o.dataDir ?? ctx.paths.data });
  ctx.io.stdout.write(formatKeys(list, outputMode(ctx.io, globals.json), ctx.io.columns));
}

/** `contentlib keys revoke <id>`. */
export async function keysRevokeCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  id: string,
  o: { dataDir?: string },
): Promise<void> {
  const result = await runKeysRevoke({ id, dataDir: o.dataDir ?? ctx.paths.data });
  if (globals.json) ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  ctx.io.stderr.write(`Revoked key ${id}.\n`);
}
