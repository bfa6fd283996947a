// The pure side of `contentlib edit`: flags → the PATCH body, validated locally from the shared
// schema (and so from the rules table) before anything is sent. No I/O here; tests are tables.
// The flags upload takes too (--hashtags, --platform) are parsed in ../metadata-flags.ts.
import { PatchRequestSchema, PlatformSettingsSchema } from '../../api/schemas.js';
import type { ContentItem, PatchRequest, PlatformSettings } from '../../api/schemas.js';
import { normalizeHashtags } from '../../rules/rules.js';
import type { Status } from '../../rules/rules.js';
import { UsageError } from '../errors.js';
import { applyPlatformFlags, hashtagsFlag } from '../metadata-flags.js';

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

/** Whether the current item must be fetched first (to add/remove tags or merge settings). */
export function needsCurrent(f: EditFlags): boolean {
  const tagsFromCurrent = (f.addHashtag?.length || f.removeHashtag?.length) && f.hashtags === undefined;
  const mergeSettings = !f.replacePlatform && (f.platform?.length || f.platformJson !== undefined);
  return Boolean(tagsFromCurrent || mergeSettings);
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
  const settings: Record<string, unknown> = f.replacePlatform
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
  return applyPlatformFlags(settings, f.platform ?? []) as PlatformSettings;
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
