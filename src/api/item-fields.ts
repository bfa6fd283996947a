// The order in which an item's fields are shown, by `contentlib show` and by browse's item page
// alike: who and what first, then the file, then its URLs. Any field not listed follows by name,
// so a service's additions are never hidden.

export const ITEM_FIELD_ORDER: readonly string[] = [
  'id',
  'type',
  'title',
  'status',
  'description',
  'hashtags',
  'createdAt',
  'createdBy',
  'updatedAt',
  'updatedBy',
  'durationSeconds',
  'fileSize',
  'fileName',
  'contentType',
  'sha256',
  'fileCount',
  'fileUrl',
  'thumbnailUrl',
  'thumbnailSha256',
  'posterUrl',
  'previewUrl',
];

/** `fields` in ITEM_FIELD_ORDER, then the others by name; `skip` names fields shown elsewhere. */
export function orderedFields(fields: readonly string[], skip: ReadonlySet<string> = new Set()): string[] {
  const present = new Set(fields);
  const rest = fields.filter((k) => !ITEM_FIELD_ORDER.includes(k) && !skip.has(k)).sort();
  return [...ITEM_FIELD_ORDER.filter((k) => present.has(k) && !skip.has(k)), ...rest];
}

/**
 * Every field of a content item: the keys of ContentItemSchema (./response-schemas.ts), which is
 * typed against this list, so a field added to one and not the other does not compile. It is
 * what `--json FIELDS` offers for ls, show and edit. A plain list, without zod: `--json FIELDS`
 * is read before any command loads (src/cli/main.ts), where building schemas would cost every
 * command's start-up.
 */
export const CONTENT_ITEM_FIELDS = [
  'id',
  'type',
  'title',
  'description',
  'hashtags',
  'status',
  'fileUrl',
  'thumbnailUrl',
  'platformSettings',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'durationSeconds',
  'fileSize',
  'contentType',
  'fileName',
  'fileCount',
  'sha256',
  'thumbnailSha256',
  'media',
  'posterUrl',
  'previewUrl',
] as const;
export type ContentItemField = (typeof CONTENT_ITEM_FIELDS)[number];
