// The metadata flags `upload` and `edit` share: --hashtags "a, #b" and --platform
// youtube.visibility=private, parsed the same way for both. Pure; a bad value is a UsageError.
import { normalizeHashtags } from '../rules/rules.js';
import { UsageError } from './errors.js';

export interface PlatformSet {
  path: string[];
  /** null removes the key. */
  value: unknown;
}

/** JSON where it parses (`22`, `true`, `"x"`, `{...}`), else the text itself. */
export function parseFlagValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function parsePlatformFlag(flag: string): PlatformSet {
  const eq = flag.indexOf('=');
  if (eq <= 0)
    throw new UsageError(
      `--platform "${flag}" is not PLATFORM.FIELD=VALUE.`,
      'For example: --platform youtube.visibility=private',
    );
  const path = flag.slice(0, eq).trim().split('.');
  if (path.some((p) => p.trim() === ''))
    throw new UsageError(
      `--platform "${flag}" has an empty name in "${flag.slice(0, eq)}".`,
      'For example: --platform youtube.visibility=private',
    );
  const value = parseFlagValue(flag.slice(eq + 1));
  if (path.length === 1 && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw new UsageError(
      `--platform "${flag}" sets a whole platform, so its value must be a JSON object.`,
      `Name a field instead: --platform ${path[0]}.FIELD=VALUE`,
    );
  }
  return { path: path.map((p) => p.trim()), value };
}

/** Sets (or, for null, removes) one path in a copy of the settings; empty platforms disappear. */
export function applyPlatformSet(settings: Record<string, unknown>, set: PlatformSet): Record<string, unknown> {
  const root: Record<string, unknown> = structuredClone(settings);
  const parents: Array<Record<string, unknown>> = [root];
  let node = root;
  for (const key of set.path.slice(0, -1)) {
    const next = node[key];
    node[key] = next && typeof next === 'object' && !Array.isArray(next) ? next : {};
    node = node[key] as Record<string, unknown>;
    parents.push(node);
  }
  const last = set.path[set.path.length - 1]!;
  if (set.value === null) delete node[last];
  else node[last] = set.value;
  // Remove objects left empty by a removal, innermost first.
  for (let i = set.path.length - 2; i >= 0 && set.value === null; i--) {
    const parent = parents[i]!;
    const child = parent[set.path[i]!];
    if (child && typeof child === 'object' && Object.keys(child).length === 0) delete parent[set.path[i]!];
  }
  return root;
}

function splitHashtags(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/**
 * A warning for each hashtag written with a space inside (`--hashtags "daily life"`,
 * `--hashtags "vlog, #daily life"`, `--add-hashtag "daily life"`): a hashtag holds no space, so
 * those words become separate tags, and the person should hear so rather than find `daily` and
 * `life` later, whether the value is one tag or a list. Only words that each carry their own #
 * ("#summer #sale") say plainly that they are separate tags.
 */
export function hashtagSpaceWarnings(flag: string, value: string): string[] {
  const parts = flag === '--hashtags' ? value.split(',') : [value];
  return parts
    .map((p) => p.trim())
    .filter((p) => /\S\s+\S/.test(p) && !p.split(/\s+/).every((w) => w.startsWith('#')))
    .map((p) => {
      const tags = normalizeHashtags(splitHashtags(p));
      const joined = tags.join('_');
      return `Warning: ${flag} "${p}" became ${tags.length} hashtags, ${tags.map((t) => `#${t}`).join(' and ')}: a hashtag holds no spaces. For one, write #${joined} or #${tags.join('')}.`;
    });
}

/** Every --platform flag applied in order to a copy of the settings. */
export function applyPlatformFlags(
  settings: Record<string, unknown>,
  flags: readonly string[],
): Record<string, unknown> {
  let out = settings;
  for (const flag of flags) out = applyPlatformSet(out, parsePlatformFlag(flag));
  return out;
}

/**
 * A hashtag flag's value as tags, normalised. Only an empty --hashtags "" means "none": a value
 * such as "###" that holds no tag at all is a slip, and taking it as "clear them" would lose the
 * item's hashtags without a word.
 */
export function hashtagsFlag(flag: string, value: string): string[] {
  const tags = normalizeHashtags(splitHashtags(value));
  if (tags.length === 0 && (value.trim() !== '' || flag !== '--hashtags')) {
    const clear = flag === '--hashtags' ? 'to remove every hashtag, pass --hashtags ""' : 'e.g. --add-hashtag summer';
    throw new UsageError(`${flag} "${value}" holds no hashtag.`, `Give words such as "summer, #sale"; ${clear}.`);
  }
  return tags;
}
