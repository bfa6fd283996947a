// `upload --manifest FILE`: the whole upload described in one JSON file, for CI. Either a list
// of items or `{ "items": [...] }`; each item names its files (relative to the manifest's
// folder) and its metadata:
//
//   [
//     { "files": ["videos/launch.mp4"], "title": "Launch", "hashtags": ["launch"], "thumbnail": "thumbs/launch.jpg" },
//     { "files": ["stills/1.jpg", "stills/2.jpg"], "type": "carousel", "title": "Stills", "status": "draft" },
//     { "files": ["stills/3.jpg"], "to": "6f1c0a5e-8d0b-4f5e-9a57-2b1d3c4e5f60" }
//   ]
//
// Files are taken in the order written (a carousel's order is the manifest's, not the names').
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import * as z from 'zod';
import { ContentTypeSchema } from '../api/schemas.js';
import { TYPE_RULES } from '../rules/rules.js';
import type { ItemMetadata } from '../api/schemas.js';
import { clean, describeIssues, metadataFields } from './plan-metadata.js';
import type { PlanProblem } from '../rules/problem.js';

export const ManifestItemSchema = z.strictObject({
  files: z.array(z.string().trim().min(1)).min(1, 'list at least one file').max(TYPE_RULES.carousel.maxFiles),
  type: ContentTypeSchema.optional(),
  /** Append the files (images) to this existing carousel. */
  to: z.uuid().optional(),
  /** A thumbnail image for a video item. */
  thumbnail: z.string().trim().min(1).optional(),
  ...metadataFields,
});
export type ManifestItem = z.infer<typeof ManifestItemSchema>;

export const ManifestSchema = z.union([
  z.array(ManifestItemSchema).min(1, 'list at least one item'),
  z.strictObject({ items: z.array(ManifestItemSchema).min(1, 'list at least one item') }),
]);

/** A manifest item with its paths made absolute and its metadata separated out. */
export interface ResolvedManifestItem {
  /** Absolute paths, in the manifest's order. */
  files: string[];
  type?: ManifestItem['type'];
  to?: string;
  thumbnail?: string;
  metadata: ItemMetadata;
  /** "release.json item 2": how problems name the item. */
  label: string;
}

export type ManifestResult = { items: ResolvedManifestItem[]; problems: [] } | { items: []; problems: PlanProblem[] };

/** Reads, parses and resolves the manifest at `path` (absolute); `shown` names it in problems. */
export async function loadManifest(path: string, shown: string): Promise<ManifestResult> {
  const fail = (actual: string, message: string, hint: string): ManifestResult => ({
    items: [],
    problems: [{ file: shown, rule: 'manifest', actual, message, hint }],
  });
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return fail('missing', 'the manifest does not exist', 'check the --manifest path');
    return fail(code ?? 'error', `the manifest cannot be read (${(err as Error).message})`, 'check its permissions');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return fail('invalid JSON', `the manifest is not valid JSON (${(err as Error).message})`, 'fix the JSON');
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    return fail(
      'invalid manifest',
      `the manifest is invalid: ${describeIssues(parsed.error)}`,
      'each item needs "files" (paths relative to the manifest) and may have type, to, thumbnail, title, description, hashtags, status, platformSettings',
    );
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.items;
  const base = dirname(path);
  return { items: list.map((item, i) => resolveItem(item, base, `${shown} item ${i + 1}`)), problems: [] };
}

function resolveItem(item: ManifestItem, base: string, label: string): ResolvedManifestItem {
  const { files, type, to, thumbnail, ...metadata } = item;
  return {
    files: files.map((f) => resolve(base, f)),
    ...(type ? { type } : {}),
    ...(to ? { to } : {}),
    ...(thumbnail ? { thumbnail: resolve(base, thumbnail) } : {}),
    metadata: clean(metadata),
    label,
  };
}
