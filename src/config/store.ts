// The CLI's config file (profiles and the embedded library's key), kept with `conf` under
// ctx.paths.config. It holds API keys, so it is mode 0600 and the mode is checked after each
// write: a file others can read is repaired, or the write fails loudly.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import Conf from 'conf';
import { CliError } from '../cli/errors.js';

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
}

export interface ConfigStore {
  path: string;
  read(): ConfigData;
  /** Replaces the whole file (mode 0600, verified). */
  write(data: ConfigData): void;
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
  return data;
}

export function openConfig(dir: string): ConfigStore {
  let conf: Conf<Record<string, unknown>>;
  try {
    // The folder too is owner-only when we create it (an existing one is left as the user set it).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    conf = new Conf<Record<string, unknown>>({
      cwd: dir,
      configName: 'config',
      configFileMode: CONFIG_FILE_MODE,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });
  } catch (err) {
    throw new CliError(`Could not read the config file ${dir}/config.json: ${(err as Error).message}`, {
      hint: 'Fix or remove the file (you will need to log in again), then run the command again.',
      cause: err,
    });
  }
  return {
    path: conf.path,
    read: () => clean(conf.store),
    write: (data) => {
      conf.store = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
      ensurePrivate(conf.path);
    },
  };
}
