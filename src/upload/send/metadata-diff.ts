// A re-run never undoes a person's edits: when a file is already in the library, the item keeps
// what the library says and the upload only reports where its own metadata (flags, sidecar,
// manifest) differs; `--update-metadata` applies exactly those differences. Pure: the local
// metadata and the library's item in, the differing fields out.
import type { ContentItem, ItemMetadata } from '../../api/schemas.js';

/** A metadata field of an item as the upload can set it; `thumbnail` for the thumbnail image. */
export type MetadataField = keyof ItemMetadata | 'thumbnail';

/**
 * The order fields are named in (messages, NDJSON, whose schema reads this list): the order people
 * see them in `show`.
 */
export const METADATA_FIELDS = [
  'title',
  'description',
  'hashtags',
  'status',
  'platformSettings',
  'thumbnail',
] as const satisfies readonly MetadataField[];
const FIELD_ORDER: readonly MetadataField[] = METADATA_FIELDS;

/**
 * The fields of `local` whose value the library's item does not have, with the local value: what
 * a PATCH would change. Values are compared as the service stores them (a title and hashtags
 * trimmed, platformSettings as JSON whatever the key order).
 */
export function metadataDifferences(local: ItemMetadata, library: LibraryMetadata): ItemMetadata {
  const out: ItemMetadata = {};
  if (local.title !== undefined && local.title.trim() !== library.title) out.title = local.title;
  if (local.description !== undefined && local.description !== (library.description ?? '')) {
    out.description = local.description;
  }
  if (local.status !== undefined && local.status !== library.status) out.status = local.status;
  if (
    local.hashtags !== undefined &&
    !sameJson(
      local.hashtags.map((h) => h.trim()),
      library.hashtags ?? [],
    )
  ) {
    out.hashtags = local.hashtags;
  }
  if (local.platformSettings !== undefined && !sameJson(local.platformSettings, library.platformSettings ?? {})) {
    out.platformSettings = local.platformSettings;
  }
  return out;
}

/** What of an item the comparison reads: kept per item, so not the whole answer (its URLs…). */
export type LibraryMetadata = Pick<ContentItem, 'title' | 'description' | 'hashtags' | 'status' | 'platformSettings'>;

export function libraryMetadata(item: ContentItem): LibraryMetadata {
  const { title, description, hashtags, status, platformSettings } = item;
  return { title, description, hashtags, status, platformSettings };
}

/** The names of the fields set in `m` (and `thumbnail` when it differs too), in FIELD_ORDER. */
export function fieldNames(m: ItemMetadata, thumbnail = false): MetadataField[] {
  const set = new Set<MetadataField>(Object.keys(m) as MetadataField[]);
  if (thumbnail) set.add('thumbnail');
  return FIELD_ORDER.filter((f) => set.has(f));
}

/** Equal as JSON, object keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, canonical(o[k])]),
  );
}
