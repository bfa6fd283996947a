// Journals of version 1 were one JSON document per library (<target>.json), rewritten whole after
// every change. On first open of the database beside it, its entries are imported in one
// transaction and the JSON file is renamed to <target>.json.imported (kept for a person to look
// at; never read again). Importing is idempotent: a crash between the commit and the rename
// imports the same entries again on the next open, and what the database already has wins.
import { readFile, rename } from 'node:fs/promises';
import type { Database } from '../../sqlite/database.js';
import * as z from 'zod';
import { ContentTypeSchema } from '../../api/schemas.js';

const V1FileSchema = z.object({
  path: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  itemId: z.string(),
  key: z.string(),
  type: ContentTypeSchema,
  sortOrder: z.number().optional(),
  completedAt: z.string(),
});

const V1ItemSchema = z.object({
  metadataHash: z.string().optional(),
  thumbnail: z.string().optional(),
  updatedAt: z.string(),
});

const V1JournalSchema = z.object({
  version: z.literal(1),
  target: z.string(),
  files: z.record(z.string(), V1FileSchema),
  items: z.record(z.string(), V1ItemSchema),
});

/**
 * Imports `jsonPath` into `db` when it exists. Returns a warning when it could not be read (it is
 * then moved aside, as an unreadable journal always was), else undefined.
 */
export async function migrateJsonJournal(jsonPath: string, db: Database, now: () => Date): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(jsonPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: ReturnType<typeof V1JournalSchema.safeParse> | undefined;
  try {
    parsed = V1JournalSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    const aside = `${jsonPath}.unreadable-${now().toISOString().replace(/[:.]/g, '-')}`;
    await rename(jsonPath, aside);
    return `The upload journal ${jsonPath} could not be read; it was moved to ${aside}. Files uploaded before may be uploaded again.`;
  }
  importV1(db, parsed.data);
  await rename(jsonPath, `${jsonPath}.imported`);
  return undefined;
}

function importV1(db: Database, data: z.infer<typeof V1JournalSchema>): void {
  const file = db.prepare(
    `INSERT OR IGNORE INTO files (path, size, mtime_ms, state, key, type, item_id, sort_order, updated_at)
     VALUES (@path, @size, @mtimeMs, 'completed', @key, @type, @itemId, @sortOrder, @completedAt)`,
  );
  const item = db.prepare(
    `INSERT OR IGNORE INTO items (item_id, metadata_hash, thumbnail, updated_at)
     VALUES (@itemId, @metadataHash, @thumbnail, @updatedAt)`,
  );
  db.transaction(() => {
    for (const f of Object.values(data.files)) file.run({ ...f, sortOrder: f.sortOrder ?? null });
    for (const [itemId, i] of Object.entries(data.items))
      item.run({
        itemId,
        metadataHash: i.metadataHash ?? null,
        thumbnail: i.thumbnail ?? null,
        updatedAt: i.updatedAt,
      });
  })();
}
