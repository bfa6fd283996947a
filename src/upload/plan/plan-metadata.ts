// Item metadata for an upload: from flags, from sidecar .json files, from a manifest. One
// schema for the sidecar and the manifest (built from the wire schema's fields, so the limits
// are the server's), one merge (flags < sidecar < manifest), one check.
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { type ItemMetadata, PatchRequestSchema, type PlatformSettings } from '../../api/schemas.js';
import { normalizeHashtags } from '../../rules/rules.js';
import type { PlanProblem } from '../../rules/problem.js';

const wire = PatchRequestSchema.shape;

/** Hashtags as a list, or as people type them: "launch, #summer". */
const hashtagsInput = z
  .union([z.array(z.string()), z.string().transform((s) => s.split(','))])
  .transform((tags) => normalizeHashtags(tags))
  .pipe(wire.hashtags.unwrap());

/** The metadata fields a sidecar or a manifest item may hold. */
export const metadataFields = {
  title: wire.title,
  description: wire.description,
  hashtags: hashtagsInput.optional(),
  status: wire.status,
  platformSettings: wire.platformSettings,
};

/** A sidecar: `clip.mp4.json` beside a video, `carousel.json` in a carousel's folder. Unknown keys are typos. */
export const SidecarSchema = z.strictObject(metadataFields);

/** One line per zod issue: "hashtags.2: Too big: expected string to have <=100 characters". */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

export type SidecarResult =
  { found: false } | { found: true; metadata: ItemMetadata } | { found: true; problem: PlanProblem };

/** Reads and checks the sidecar at `path`; a missing file is simply not found. */
export async function readSidecar(path: string, shown: string): Promise<SidecarResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A name at the file system's limit leaves no room for ".json": that sidecar cannot exist.
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENAMETOOLONG') return { found: false };
    return {
      found: true,
      problem: sidecarProblem(
        shown,
        code ?? 'error',
        `cannot be read (${(err as Error).message})`,
        'check its permissions',
      ),
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return {
      found: true,
      problem: sidecarProblem(
        shown,
        'invalid JSON',
        `is not valid JSON (${(err as Error).message})`,
        'fix the JSON or remove the file',
      ),
    };
  }
  const parsed = SidecarSchema.safeParse(json);
  if (!parsed.success) {
    return {
      found: true,
      problem: sidecarProblem(
        shown,
        'invalid metadata',
        `has invalid metadata: ${describeIssues(parsed.error)}`,
        'allowed fields: title, description, hashtags, status, platformSettings',
      ),
    };
  }
  return { found: true, metadata: clean(parsed.data) };
}

function sidecarProblem(file: string, actual: string, message: string, hint: string): PlanProblem {
  return { file, rule: 'sidecar', actual, message, hint };
}

/** Drops keys whose value is undefined, so that a merge never overwrites with "nothing". */
export function clean(m: ItemMetadata): ItemMetadata {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as ItemMetadata;
}

/**
 * Later layers win field by field; platformSettings merge per platform and per key, so a flag
 * `--platform youtube.visibility=private` and a sidecar's `{"tiktok": {...}}` both survive.
 */
export function mergeMetadata(...layers: Array<ItemMetadata | undefined>): ItemMetadata {
  const out: ItemMetadata = {};
  for (let k = 0; k < layers.length; k++) {
    const layer = layers[k];
    // Most items have only empty layers (no flags, no sidecar): nothing is made for them.
    if (!layer || isEmpty(layer)) continue;
    const { platformSettings, ...rest } = clean(layer);
    Object.assign(out, rest);
    if (platformSettings) out.platformSettings = mergePlatforms(out.platformSettings, platformSettings);
  }
  return out;
}

function isEmpty(m: ItemMetadata): boolean {
  for (const _ in m) return false;
  return true;
}

function mergePlatforms(a: PlatformSettings | undefined, b: PlatformSettings): PlatformSettings {
  const out: PlatformSettings = { ...a };
  for (const [platform, settings] of Object.entries(b)) out[platform] = { ...out[platform], ...settings };
  return out;
}

/** Checks merged metadata against the server's limits (a merge can grow platformSettings). */
export function checkMetadata(metadata: ItemMetadata, shown: string): PlanProblem[] {
  const parsed = SidecarSchema.safeParse(metadata);
  if (parsed.success) return [];
  return [
    {
      file: shown,
      rule: 'metadata',
      actual: 'invalid metadata',
      message: `its metadata is invalid: ${describeIssues(parsed.error)}`,
      hint: 'fix the flag, sidecar or manifest entry',
    },
  ];
}

/** True when any field is set. */
export function hasMetadata(m: ItemMetadata | undefined): boolean {
  return !!m && Object.keys(clean(m)).length > 0;
}
