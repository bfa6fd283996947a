// Which library a command talks to, decided by ONE pure function from flags, environment and the
// config file: flags → CONTENTLIB_* environment → the active profile → the embedded library.
import { redactKey } from '../api/errors.js';
import { ConfigError, configUsage } from './errors.js';
import type { ConfigData } from './store.js';

export interface TargetFlags {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  embedded?: boolean;
}

export interface TargetEnv {
  CONTENTLIB_BASE_URL?: string;
  CONTENTLIB_API_KEY?: string;
  CONTENTLIB_PROFILE?: string;
}

export type Target =
  | {
      kind: 'remote';
      baseUrl: string;
      apiKey: string;
      source: 'flags' | 'env' | 'profile';
      profile?: string;
      label: string;
    }
  | { kind: 'embedded'; label: string };

/** "example.com" or "localhost:8080" typed without a scheme: what was probably meant. */
function schemeHint(raw: string): string {
  const bare = raw.trim();
  if (!bare || bare.includes('://')) return 'Give the service root, e.g. https://content.example.com';
  const local = /^(localhost|127\.|\[::1\])/i.test(bare);
  return `Did you mean ${local ? 'http' : 'https'}://${bare}? Give the service root with its scheme, e.g. https://content.example.com`;
}

/** http(s) URL without a trailing slash; anything else is a usage error saying what to type. */
export function normalizeBaseUrl(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw configUsage(`${from} "${raw}" is not a URL.`, schemeHint(raw));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw configUsage(`${from} "${raw}" must start with http:// or https://.`, schemeHint(raw));
  }
  if (url.search || url.hash)
    throw configUsage(
      `${from} "${raw}" must not have a query or fragment.`,
      'Give the service root, e.g. https://content.example.com',
    );
  return url.toString().replace(/\/+$/, '');
}

function fromProfile(name: string, config: ConfigData, how: string): Target {
  const p = config.profiles[name];
  if (!p) {
    const known = Object.keys(config.profiles);
    throw configUsage(
      `No profile named "${name}" (${how}).`,
      known.length
        ? `Known profiles: ${known.join(', ')}. Create one with: contentlib login --profile ${name}`
        : `Create it with: contentlib login --profile ${name}`,
    );
  }
  const baseUrl = normalizeBaseUrl(p.baseUrl, `The base URL of profile "${name}"`);
  return {
    kind: 'remote',
    baseUrl,
    apiKey: p.apiKey,
    source: 'profile',
    profile: name,
    label: `${baseUrl} (profile ${name}, key ${redactKey(p.apiKey)})`,
  };
}

const nonEmpty = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : s.trim());

export function resolveTarget(flags: TargetFlags, env: TargetEnv, config: ConfigData): Target {
  const embeddedLabel = 'the embedded library on this machine';
  if (flags.embedded) {
    if (flags.baseUrl || flags.apiKey || flags.profile)
      throw configUsage(
        '--embedded cannot be combined with --base-url, --api-key or --profile.',
        'Choose one library.',
      );
    return { kind: 'embedded', label: embeddedLabel };
  }
  if (flags.profile !== undefined) {
    if (flags.baseUrl || flags.apiKey)
      throw configUsage(
        '--profile cannot be combined with --base-url or --api-key.',
        'Choose either a saved profile or an explicit base URL and key.',
      );
    return fromProfile(flags.profile, config, 'from --profile');
  }
  // Flags and environment are both "said on this command line": a flag fills what the
  // environment does not, but a base URL is never paired with a profile's key (or the reverse),
  // so a key cannot leak to a URL it was not made for.
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env.CONTENTLIB_BASE_URL);
  const apiKey = nonEmpty(flags.apiKey) ?? nonEmpty(env.CONTENTLIB_API_KEY);
  if (baseUrl && apiKey) {
    const source = flags.baseUrl || flags.apiKey ? 'flags' : 'env';
    const url = normalizeBaseUrl(baseUrl, flags.baseUrl ? '--base-url' : 'CONTENTLIB_BASE_URL');
    return {
      kind: 'remote',
      baseUrl: url,
      apiKey,
      source,
      label: `${url} (key ${redactKey(apiKey)} from ${source === 'flags' ? 'the command line' : 'the environment'})`,
    };
  }
  if (baseUrl) {
    // A CI job whose key secret is missing: an authentication failure (exit 4), like a wrong
    // key, not a usage error (2), which also means "files refused".
    throw new ConfigError(
      'auth',
      `A base URL (${baseUrl}) was given without an API key.`,
      'Also set CONTENTLIB_API_KEY (or --api-key), or save both with: contentlib login',
    );
  }
  if (apiKey) {
    throw configUsage(
      `An API key (${redactKey(apiKey)}) was given without a base URL.`,
      'Also set CONTENTLIB_BASE_URL (or --base-url), or save both with: contentlib login',
    );
  }
  const envProfile = nonEmpty(env.CONTENTLIB_PROFILE);
  if (envProfile) return fromProfile(envProfile, config, 'from CONTENTLIB_PROFILE');
  if (config.activeProfile) return fromProfile(config.activeProfile, config, 'the active profile in the config file');
  return { kind: 'embedded', label: embeddedLabel };
}
