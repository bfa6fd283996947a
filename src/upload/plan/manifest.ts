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
// A file may be `{ "path": "…", "fileName": "…" }` to tell the library another name than the
// one on disk, and an item may carry `"original"` (ignored: what `contentlib export` records of
// the item it came from). A folder that holds `contentlib.json` (what export writes) is read as
// its manifest by `contentlib upload FOLDER` (plan.ts).
import { readFile, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { ContentTypeSchema } from '../../api/schemas.js';
import { OutsideFolderError, confine } from '../../fs/confine.js';
import { TYPE_RULES } from '../../rules/rules.js';
import { EXPORT_MANIFEST } from '../../rules/folder-names.js';
import type { ItemMetadata } from '../../api/schemas.js';
import { clean, describeIssues, metadataFields } from './plan-metadata.js';
import type { PlanProblem } from '../../rules/problem.js';

/** A file: its path, or its path and the name the library is told instead of the one on disk. */
const ManifestFileSchema = z.union([
  z.string().trim().min(1),
  z.strictObject({ path: z.string().trim().min(1), fileName: z.string().trim().min(1).max(255) }),
]);

export const ManifestItemSchema = z.strictObject({
  files: z.array(ManifestFileSchema).min(1, 'list at least one file').max(TYPE_RULES.carousel.maxFiles),
  type: ContentTypeSchema.optional(),
  /** Append the files (images) to this existing carousel. */
  to: z.uuid().optional(),
  /** A thumbnail image for the item. */
  thumbnail: z.string().trim().min(1).optional(),
  /** For reference only (an export's record of the item it came from: id, timestamps); not uploaded. */
  original: z.record(z.string(), z.unknown()).optional(),
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
  /** The name to tell the library for each file, where the manifest gives one (same order as files). */
  fileNames?: Array<string | undefined>;
  type?: ManifestItem['type'];
  to?: string;
  thumbnail?: string;
  metadata: ItemMetadata;
  /** "release.json item 2": how problems name the item. */
  label: string;
  /** Each absolute path (files, thumbnail) → the path as the manifest wrote it. */
  written?: Map<string, string>;
}

export type ManifestResult = { items: ResolvedManifestItem[]; problems: [] } | { items: []; problems: PlanProblem[] };

/** A manifest that cannot be used: one problem naming it. */
function failed(shown: string, actual: string, message: string, hint: string): ManifestResult {
  return { items: [], problems: [{ file: shown, rule: 'manifest', actual, message, hint }] };
}

/**
 * Reads, parses and resolves the manifest at `path` (absolute); `shown` names it in problems.
 * `confined` (an export folder's manifest, which anyone may have edited): every file and
 * thumbnail must be inside the manifest's folder, symbolic links resolved; a path that leads
 * out is a problem and no item is read.
 */
export async function loadManifest(path: string, shown: string, confined = false): Promise<ManifestResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return failed(shown, 'missing', 'the manifest does not exist', 'check the --manifest path');
    return failed(
      shown,
      code ?? 'error',
      `the manifest cannot be read (${(err as Error).message})`,
      'check its permissions',
    );
  }
  const parsed = parseManifest(text, path, shown);
  return confined && parsed.problems.length === 0 ? confineItems(parsed.items, dirname(path), shown) : parsed;
}

/** The manifest's items when every path stays in `base`; else one problem per path that leaves, and no item. */
async function confineItems(items: ResolvedManifestItem[], base: string, shown: string): Promise<ManifestResult> {
  const problems: PlanProblem[] = [];
  const real = await realpath(base);
  for (const item of items) {
    for (const abs of [...item.files, ...(item.thumbnail ? [item.thumbnail] : [])]) {
      const rel = item.written?.get(abs) ?? abs;
      try {
        await confine(base, rel, real);
      } catch (err) {
        if (!(err instanceof OutsideFolderError)) throw err;
        problems.push({
          file: item.label,
          rule: 'manifest',
          actual: rel,
          message: `${err.message}: an export folder's manifest names only files inside its folder`,
          hint: `put the file inside ${shown.replace(/[/\\]?contentlib\.json$/, '') || 'the folder'} and name it there, or upload it by naming it on the command line`,
        });
      }
    }
  }
  return problems.length > 0 ? { items: [], problems } : { items, problems: [] };
}

/** Whether `folder` holds an export's manifest: a `contentlib.json` listing items (a carousel's sidecar of that name does not). */
export async function exportManifestIn(folder: string): Promise<string | undefined> {
  const path = join(folder, EXPORT_MANIFEST);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const json = JSON.parse(text) as unknown;
    return json !== null && typeof json === 'object' && Array.isArray((json as { items?: unknown }).items)
      ? path
      : undefined;
  } catch {
    return undefined;
  }
}

function parseManifest(text: string, path: string, shown: string): ManifestResult {
  const fail = (actual: string, message: string, hint: string) => failed(shown, actual, message, hint);
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
      'each item needs "files" (paths relative to the manifest, or {"path", "fileName"}) and may have type, to, thumbnail, title, description, hashtags, status, platformSettings, original',
    );
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.items;
  const base = dirname(path);
  return { items: list.map((item, i) => resolveItem(item, base, `${shown} item ${i + 1}`)), problems: [] };
}

function resolveItem(item: ManifestItem, base: string, label: string): ResolvedManifestItem {
  const { files, type, to, thumbnail, original: _reference, ...metadata } = item;
  const fileNames = files.map((f) => (typeof f === 'string' ? undefined : f.fileName));
  const written = new Map<string, string>();
  const place = (rel: string) => {
    const abs = resolve(base, rel);
    written.set(abs, rel);
    return abs;
  };
  return {
    files: files.map((f) => place(typeof f === 'string' ? f : f.path)),
    ...(fileNames.some((n) => n !== undefined) ? { fileNames } : {}),
    ...(type ? { type } : {}),
    ...(to ? { to } : {}),
    ...(thumbnail ? { thumbnail: place(thumbnail) } : {}),
    metadata: clean(metadata),
    label,
    written,
  };
}
