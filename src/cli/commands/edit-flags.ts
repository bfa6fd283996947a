// The pure side of `contentlib edit`: flags → the PATCH body, validated locally from the shared
// schema (and so from the rules table) before anything is sent. No I/O here; tests are tables.
import { PatchRequestSchema, PlatformSettingsSchema } from '../../api/schemas.js';
import type { ContentItem, PatchRequest, PlatformSettings } from '../../api/schemas.js';
import { normalizeHashtags } from '../../rules/rules.js';
import type { Status } from '../../rules/rules.js';
import { UsageError } from '../errors.js';

export interface EditFlags {
  title?: string;
  description?: string;
  status?: Status;
  /** "a, #b c" as typed: split on commas and spaces. An empty string clears the hashtags. */
  hashtags?: string;
  addHashtag?: string[];
  removeHashtag?: string[];
  /** `youtube.visibility=private`, repeatable. */
  platform?: string[];
  /** Already read from --platform-json FILE|-. */
  platformJson?: unknown;
  replacePlatform?: boolean;
  /** The key of a thumbnail uploaded with presign thumbnail:true (the --thumbnail flag's work). */
  thumbnailKey?: string;
}

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

export function splitHashtags(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** Whether the current item must be fetched first (to add/remove tags or merge settings). */
export function needsCurrent(f: EditFlags): boolean {
  const tagsFromCurrent = (f.addHashtag?.length || f.removeHashtag?.length) && f.hashtags === undefined;
  const mergeSettings = !f.replacePlatform && (f.platform?.length || f.platformJson !== undefined);
  return Boolean(tagsFromCurrent || mergeSettings);
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

function hashtagsFor(f: EditFlags, current: ContentItem | undefined): string[] | undefined {
  if (f.hashtags === undefined && !f.addHashtag?.length && !f.removeHashtag?.length) return undefined;
  let tags = f.hashtags !== undefined ? hashtagsFlag('--hashtags', f.hashtags) : [...(current?.hashtags ?? [])];
  tags = normalizeHashtags([...tags, ...(f.addHashtag ?? []).flatMap((v) => hashtagsFlag('--add-hashtag', v))]);
  const remove = new Set(
    (f.removeHashtag ?? []).flatMap((v) => hashtagsFlag('--remove-hashtag', v)).map((t) => t.toLowerCase()),
  );
  return tags.filter((t) => !remove.has(t.toLowerCase()));
}

function platformSettingsFor(f: EditFlags, current: ContentItem | undefined): PlatformSettings | undefined {
  if (!f.platform?.length && f.platformJson === undefined) return undefined;
  let settings: Record<string, unknown> = f.replacePlatform
    ? {}
    : structuredClone((current?.platformSettings ?? {}) as Record<string, unknown>);
  if (f.platformJson !== undefined) {
    const parsed = PlatformSettingsSchema.safeParse(f.platformJson);
    if (!parsed.success) {
      throw new UsageError(
        '--platform-json must hold an object of platforms, each an object of settings.',
        'For example: {"youtube": {"visibility": "private"}, "tiktok": {"duet": false}}',
      );
    }
    for (const [platform, values] of Object.entries(parsed.data)) {
      settings[platform] = { ...((settings[platform] as Record<string, unknown> | undefined) ?? {}), ...values };
    }
  }
  for (const flag of f.platform ?? []) settings = applyPlatformSet(settings, parsePlatformFlag(flag));
  return settings as PlatformSettings;
}

/**
 * The PATCH body for these flags (and the current item, when needsCurrent said to fetch it),
 * validated with the shared schema. Throws UsageError listing every problem; nothing is sent.
 */
export function buildPatch(f: EditFlags, current?: ContentItem): PatchRequest {
  const body: Record<string, unknown> = {};
  if (f.title !== undefined) body.title = f.title;
  if (f.description !== undefined) body.description = f.description;
  if (f.status !== undefined) body.status = f.status;
  const hashtags = hashtagsFor(f, current);
  if (hashtags !== undefined) body.hashtags = hashtags;
  const settings = platformSettingsFor(f, current);
  if (settings !== undefined) body.platformSettings = settings;
  if (f.thumbnailKey !== undefined) body.thumbnailKey = f.thumbnailKey;
  if (Object.keys(body).length === 0) {
    throw new UsageError(
      'Nothing to change.',
      'Give at least one of --title, --description, --status, --hashtags, --add-hashtag, --remove-hashtag, --platform, --platform-json, --thumbnail; e.g. contentlib edit ID --status scheduled',
    );
  }
  const parsed = PatchRequestSchema.safeParse(body);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
    throw new UsageError(
      `The change is not valid; nothing was sent:\n${lines.join('\n')}`,
      'Fix the flags above and run the command again.',
    );
  }
  return parsed.data;
}
