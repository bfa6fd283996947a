// The CLI's config file (profiles and the embedded library's key), `config.json` under
// ctx.paths.config. It holds API keys, so it is mode 0600 and the mode is checked after each
// write: a file others can read is repaired, or the write fails loudly.
// Writes go through `conf` (atomic temp-file-and-rename writes, file mode). Reads parse the same
// JSON file directly: importing conf costs 110–170 ms (it loads ajv and semver, ~200 modules),
// and every command reads the config while only login, logout, config set and the embedded
// library's first run write it.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../cli/errors.js';
import { makeDirSync } from '../fs/make-dir.js';

export interface Profile {
  baseUrl: string;
  apiKey: string;
}

/** The embedded library's brand and key, created on first use. */
export interface EmbeddedKey {
  dataDir: string;
  brand: string;
  keyId: string;
  apiKey: string;
}

export interface ConfigData {
  activeProfile?: string;
  profiles: Record<string, Profile>;
  embedded?: EmbeddedKey;
  /** `contentlib config set embedded true`: with no remote configured, the embedded library is meant, even in CI. */
  useEmbedded?: boolean;
}

export interface ConfigStore {
  path: string;
  read(): ConfigData;
  /** Replaces the whole file (mode 0600, verified). */
  write(data: ConfigData): Promise<void>;
}

export const CONFIG_FILE_MODE = 0o600;

/** Makes sure the file is owner-only; throws when it cannot be made so. */
export function ensurePrivate(path: string): void {
  if ((statSync(path).mode & 0o777) === CONFIG_FILE_MODE) return;
  chmodSync(path, CONFIG_FILE_MODE);
  const mode = statSync(path).mode & 0o777;
  if (mode !== CONFIG_FILE_MODE) {
    throw new CliError(`The config file ${path} has mode ${mode.toString(8)} and could not be made private (0600).`, {
      hint: `It holds API keys: fix it with  chmod 600 ${path}`,
    });
  }
}

function clean(raw: Record<string, unknown>): ConfigData {
  const profiles = (raw.profiles && typeof raw.profiles === 'object' ? raw.profiles : {}) as Record<string, Profile>;
  const data: ConfigData = { profiles };
  if (typeof raw.activeProfile === 'string') data.activeProfile = raw.activeProfile;
  if (raw.embedded && typeof raw.embedded === 'object') data.embedded = raw.embedded as EmbeddedKey;
  if (raw.useEmbedded === true) data.useEmbedded = true;
  return data;
}

/** The file's JSON object; a missing or empty file is an empty one. */
function load(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  if (text.trim() === '') return {};
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('it does not hold a JSON object');
  return parsed as Record<string, unknown>;
}

function loadOrExplain(path: string): Record<string, unknown> {
  try {
    return load(path);
  } catch (err) {
    throw new CliError(`Could not read the config file ${path}: ${(err as Error).message}`, {
      hint: 'Fix or remove the file (you will need to log in again), then run the command again.',
      cause: err,
    });
  }
}

/** Replaces the file's contents through conf, which writes a temp file and renames it over. */
async function writeWithConf(dir: string, data: ConfigData): Promise<void> {
  const { default: Conf } = await import('conf');
  const conf = new Conf<Record<string, unknown>>({
    cwd: dir,
    configName: 'config',
    configFileMode: CONFIG_FILE_MODE,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
  });
  conf.store = { ...data };
}

export function openConfig(dir: string): ConfigStore {
  const path = join(dir, 'config.json');
  try {
    // The folder too is owner-only when we create it (an existing one is left as the user set it).
    makeDirSync(dir);
  } catch (err) {
    throw new CliError(`Could not create the config folder ${dir}: ${(err as Error).message}`, {
      hint: 'Check its permissions, or set CONTENTLIB_HOME.',
      cause: err,
    });
  }
  // Read once now, so a broken file is reported before the command does anything.
  loadOrExplain(path);
  return {
    path,
    read: () => clean(loadOrExplain(path)),
    write: async (data) => {
      await writeWithConf(dir, data);
      ensurePrivate(path);
    },
  };
}
