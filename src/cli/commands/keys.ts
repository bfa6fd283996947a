// contentlib keys create|list|revoke: API keys of the embedded server's data dir. A new key is
// printed once, alone on stdout (only its hash is kept); lists show a short prefix, never a key.
import type { Command } from 'commander';
import type { CliContext, GlobalOptions } from '../context.js';
import type { KeyRow } from '../../server/repo/keys.js';
// Types only: the admin functions (and the database) load when a keys command runs.
import type * as Admin from '../../server/admin.js';
import { NotFoundError, UsageError, dataDirError } from '../errors.js';
import { resultJson } from '../output/json.js';
import { type Column, columnWidths, renderRow } from '../output/table.js';

/** A key as the server's admin functions list it (prefix only, never the key). */
export type KeyInfo = KeyRow;

/** Runs an admin call on a data folder; a folder that cannot be used is said in words. */
async function onDataDir<T>(dataDir: string, fn: (admin: typeof Admin) => Promise<T>): Promise<T> {
  const admin = await import('../../server/admin.js');
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

export function registerKeys(program: Command, ctx: CliContext): void {
  const keys = program
    .command('keys')
    .description("manage the embedded server's API keys (one brand per key)")
    .addHelpText(
      'after',
      `
Examples:
  contentlib keys create --brand acme
  contentlib keys list
  contentlib keys revoke 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --data-dir ./library`,
    );
  const dataDirOption = '--data-dir <dir>';
  const dataDirHelp = 'the server data dir (default: the embedded library)';

  keys
    .command('create')
    .description('create a key for a brand (created when new); the key is shown once')
    .requiredOption('--brand <name>', 'brand the key belongs to')
    .option(dataDirOption, dataDirHelp)
    .addHelpText(
      'after',
      '\nExamples:\n  contentlib keys create --brand acme\n  KEY=$(contentlib keys create --brand acme --data-dir ./library)',
    )
    .action(async (o: { brand: string; dataDir?: string }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const created = await runKeysCreate({ brand: o.brand, dataDir: o.dataDir ?? ctx.paths.data });
      ctx.io.stdout.write((await resultJson(globals, created, 'keys create', true)) ?? `${created.key}\n`);
      ctx.io.stderr.write(
        `Created key ${created.id} for brand "${created.brand}". It will not be shown again: store it now (e.g. contentlib login).\n`,
      );
    });

  keys
    .command('list')
    .description('list keys (id, prefix, brand, created, status), never the keys themselves')
    .option(dataDirOption, dataDirHelp)
    .addHelpText(
      'after',
      "\nExamples:\n  contentlib keys list\n  contentlib keys list --json | jq -r '.[] | select(.revokedAt == null) | .id'",
    )
    .action(async (o: { dataDir?: string }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const list = await runKeysList({ dataDir: o.dataDir ?? ctx.paths.data });
      // Imported here, not at the top: output/mode.js loads chalk, which --version and --help never need.
      const { outputMode } = await import('../output/mode.js');
      const json = await resultJson(globals, list, 'keys list', true);
      ctx.io.stdout.write(json ?? formatKeys(list, outputMode(ctx.io, false), ctx.io.columns));
    });

  keys
    .command('revoke')
    .description('revoke a key at once (requests with it get 401)')
    .argument('<id>', 'key id, from contentlib keys list')
    .option(dataDirOption, dataDirHelp)
    .addHelpText('after', '\nExamples:\n  contentlib keys revoke 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11')
    .action(async (id: string, o: { dataDir?: string }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const result = await runKeysRevoke({ id, dataDir: o.dataDir ?? ctx.paths.data });
      const json = await resultJson(globals, result, 'keys revoke');
      if (json !== undefined) ctx.io.stdout.write(json);
      ctx.io.stderr.write(`Revoked key ${id}.\n`);
    });
}
