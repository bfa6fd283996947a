// contentlib config get|set|list: reads and changes the saved settings. Keys are shown
// redacted (cl_abcd…) and cannot be set here: `contentlib login` checks and saves them.
import type { Command } from 'commander';
import { redactKey } from '../../api/errors.js';
import type { ConfigData, ConfigStore } from '../../config/store.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { resultJson } from '../output/json.js';

export const CONFIG_KEYS = ['active-profile', 'base-url', 'api-key', 'path', 'embedded'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Every setting as `name → value`, keys redacted; profiles as profiles.NAME.base-url etc. */
export function configEntries(data: ConfigData, path: string): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['path', path],
    ['active-profile', data.activeProfile ?? ''],
  ];
  if (data.useEmbedded) rows.push(['embedded', 'true']);
  for (const [name, p] of Object.entries(data.profiles).sort(([a], [b]) => a.localeCompare(b))) {
    rows.push([`profiles.${name}.base-url`, p.baseUrl], [`profiles.${name}.api-key`, redactKey(p.apiKey)]);
  }
  if (data.embedded)
    rows.push(
      ['embedded.data-dir', data.embedded.dataDir],
      ['embedded.brand', data.embedded.brand],
      ['embedded.api-key', redactKey(data.embedded.apiKey)],
    );
  return rows;
}

function parseKey(key: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(key)) return key as ConfigKey;
  throw new UsageError(`Unknown setting "${key}".`, `Known settings: ${CONFIG_KEYS.join(', ')}`);
}

function profileName(data: ConfigData, profile: string | undefined): string {
  const name = profile ?? data.activeProfile;
  if (!name)
    throw new UsageError('No profile is active.', 'Name one with --profile NAME, or create one with: contentlib login');
  if (!data.profiles[name])
    throw new UsageError(`No profile named "${name}".`, `Create it with: contentlib login --profile ${name}`);
  return name;
}

export function runConfigGet(rawKey: string, profile: string | undefined, store: ConfigStore): string {
  const key = parseKey(rawKey);
  const data = store.read();
  if (key === 'path') return store.path;
  if (key === 'active-profile') return data.activeProfile ?? '';
  if (key === 'embedded') return data.useEmbedded ? 'true' : 'false';
  const p = data.profiles[profileName(data, profile)]!;
  return key === 'base-url' ? p.baseUrl : redactKey(p.apiKey);
}

export async function runConfigSet(
  rawKey: string,
  value: string,
  profile: string | undefined,
  store: ConfigStore,
): Promise<void> {
  const key = parseKey(rawKey);
  const data = store.read();
  if (key === 'api-key')
    throw new UsageError(
      'API keys are not set with config set (they would land in your shell history).',
      'Use: contentlib login (it asks with hidden input, or reads --with-token from stdin)',
    );
  if (key === 'path')
    throw new UsageError(
      'path is where the config file lives; it cannot be set.',
      'Set CONTENTLIB_HOME to keep everything in another folder.',
    );
  if (key === 'embedded') {
    // With no remote configured, the embedded library is then meant, even in CI or a pipe.
    if (!/^(true|false)$/.test(value))
      throw new UsageError(
        `embedded is true or false, got "${value}".`,
        'For example: contentlib config set embedded true',
      );
    if (value === 'true') data.useEmbedded = true;
    else delete data.useEmbedded;
  } else if (key === 'active-profile') {
    if (value === '') delete data.activeProfile;
    else {
      if (!data.profiles[value])
        throw new UsageError(`No profile named "${value}".`, `Create it with: contentlib login --profile ${value}`);
      data.activeProfile = value;
    }
  } else {
    const { normalizeBaseUrl } = await import('../../config/resolve.js');
    data.profiles[profileName(data, profile)]!.baseUrl = normalizeBaseUrl(value, 'base-url');
  }
  await store.write(data);
}

export function registerConfig(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description('show or change saved settings (profiles, active profile)')
    .addHelpText(
      'after',
      `
Settings: active-profile, base-url and api-key (of the active profile, or of --profile NAME), path,
embedded (true: with no remote configured, write to the embedded library even in CI or a pipe).

Examples:
  contentlib config list
  contentlib config set active-profile staging
  contentlib config get base-url --profile staging
  contentlib config set embedded true`,
    );
  const open = async () => (await import('../../config/store.js')).openConfig(ctx.paths.config);

  config
    .command('list')
    .description('every setting, API keys redacted')
    .action(async (_o: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const store = await open();
      const rows = configEntries(store.read(), store.path);
      const json = await resultJson(globals, Object.fromEntries(rows), 'config list', true);
      if (json !== undefined) ctx.io.stdout.write(json);
      else {
        const width = Math.max(...rows.map(([k]) => k.length)) + 2;
        const sep = ctx.io.stdoutIsTTY ? (k: string) => k.padEnd(width) : (k: string) => `${k}\t`;
        ctx.io.stdout.write(`${rows.map(([k, v]) => `${sep(k)}${v}`.trimEnd()).join('\n')}\n`);
      }
    });
  config
    .command('get')
    .description('print one setting')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .action(async (key: string, _o: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const value = runConfigGet(key, globals.profile, await open());
      ctx.io.stdout.write((await resultJson(globals, { [key]: value }, 'config get')) ?? `${value}\n`);
    });
  config
    .command('set')
    .description('change one setting')
    .argument('<key>', 'active-profile | base-url | embedded')
    .argument('<value>', 'the new value ("" clears active-profile)')
    .action(async (key: string, value: string, _o: unknown, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      await runConfigSet(key, value, globals.profile, await open());
      ctx.io.stderr.write(`Set ${key}.\n`);
    });
}
