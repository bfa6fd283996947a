// The upload journal: what earlier runs already uploaded to a library, so that running the same
// command again creates nothing twice and a half-done carousel is finished into the same item.
//
// One JSON file per target library in the state directory. A file is known by its absolute path,
// size and modification time: edit the file and it counts as new. The target is a hash of the
// base URL (or the embedded data directory) and the API key's identity — never the key itself.
// Every change is written at once, atomically (temp file + rename), so a crash or Ctrl-C loses
// nothing. One process at a time per library: the upload command holds journal-lock.ts's lock
// while the journal is open (without it, two runs would lose each other's entries).
import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ContentTypeSchema } from '../api/schemas.js';
import { makeDir } from '../fs/make-dir.js';

export const JOURNAL_VERSION = 1;

/** What identifies a file on disk: change any of it and it is a different upload. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
}

const FileEntrySchema = z.object({
  path: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  itemId: z.string(),
  key: z.string(),
  type: ContentTypeSchema,
  sortOrder: z.number().optional(),
  completedAt: z.string(),
});
export type JournalFileEntry = z.infer<typeof FileEntrySchema>;

const ItemEntrySchema = z.object({
  /** Hash of the metadata last applied by PATCH; a re-run with other metadata applies it again. */
  metadataHash: z.string().optional(),
  /** The thumbnail file last attached (its identity key). */
  thumbnail: z.string().optional(),
  updatedAt: z.string(),
});
export type JournalItemEntry = z.infer<typeof ItemEntrySchema>;

const JournalSchema = z.object({
  version: z.literal(JOURNAL_VERSION),
  target: z.string(),
  files: z.record(z.string(), FileEntrySchema),
  items: z.record(z.string(), ItemEntrySchema),
});
type JournalData = z.infer<typeof JournalSchema>;

export interface Journal {
  /** Where it lives, for messages. */
  readonly path: string;
  /** Set when an unreadable journal was put aside on open: say so, once. */
  readonly warning: string | undefined;
  findFile(file: FileIdentity): JournalFileEntry | undefined;
  /** Files recorded for an item, in sortOrder. */
  filesOfItem(itemId: string): JournalFileEntry[];
  recordFile(
    file: FileIdentity,
    entry: Omit<JournalFileEntry, 'path' | 'size' | 'mtimeMs' | 'completedAt'>,
  ): Promise<void>;
  item(itemId: string): JournalItemEntry | undefined;
  recordItem(itemId: string, entry: Omit<JournalItemEntry, 'updatedAt'>): Promise<void>;
  /** Drops an item and its files (it was deleted, or is gone from the library). */
  forgetItem(itemId: string): Promise<void>;
  /** Resolves when every write so far is on disk. */
  flush(): Promise<void>;
}

/** A stable, non-secret name for a target library: sha256 of where it is and who we are there. */
export function journalTargetId(where: string, identity: string): string {
  return createHash('sha256').update(`${where}\n${identity}`).digest('hex').slice(0, 32);
}

export function fileKeyOf(file: FileIdentity): string {
  return `${file.path}\u0000${file.size}\u0000${file.mtimeMs}`;
}

/** Hash of metadata as sent, for "was this already applied?". Key order does not matter. */
export function metadataHash(metadata: unknown): string {
  return createHash('sha256').update(stableJson(metadata)).digest('hex').slice(0, 32);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function openJournal(
  stateDir: string,
  targetId: string,
  now: () => Date = () => new Date(),
): Promise<Journal> {
  const dir = join(stateDir, 'journals');
  await makeDir(dir);
  const path = join(dir, `${targetId}.json`);
  const { data, warning } = await load(path, targetId, now);

  let pending: Promise<void> = Promise.resolve();
  // Writes are chained: each one writes the whole journal as it is when its turn comes, and a
  // failed write does not stop the next one from trying.
  const save = (): Promise<void> => {
    const write = pending.then(() => writeAtomic(path, `${JSON.stringify(data, null, 1)}\n`));
    pending = write.catch(() => {});
    return write.catch((err: unknown) => {
      throw new Error(`could not write the upload journal ${path}: ${(err as Error).message}`, { cause: err });
    });
  };

  return {
    path,
    warning,
    findFile: (file) => data.files[fileKeyOf(file)],
    filesOfItem: (itemId) =>
      Object.values(data.files)
        .filter((f) => f.itemId === itemId)
        .sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0)),
    recordFile(file, entry) {
      data.files[fileKeyOf(file)] = {
        ...entry,
        path: file.path,
        size: file.size,
        mtimeMs: file.mtimeMs,
        completedAt: now().toISOString(),
      };
      return save();
    },
    item: (itemId) => data.items[itemId],
    recordItem(itemId, entry) {
      data.items[itemId] = { ...data.items[itemId], ...entry, updatedAt: now().toISOString() };
      return save();
    },
    forgetItem(itemId) {
      for (const [key, f] of Object.entries(data.files)) if (f.itemId === itemId) delete data.files[key];
      delete data.items[itemId];
      return save();
    },
    flush: () => pending,
  };
}

async function load(path: string, targetId: string, now: () => Date): Promise<{ data: JournalData; warning?: string }> {
  const empty: JournalData = { version: JOURNAL_VERSION, target: targetId, files: {}, items: {} };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { data: empty };
    throw err;
  }
  let parsed: ReturnType<typeof JournalSchema.safeParse> | undefined;
  try {
    parsed = JournalSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (parsed?.success) return { data: parsed.data };
  // Keep the unreadable one for a person to look at; start afresh rather than refuse to upload.
  const aside = `${path}.unreadable-${now().toISOString().replace(/[:.]/g, '-')}`;
  await rename(path, aside);
  return {
    data: empty,
    warning: `The upload journal ${path} could not be read; it was moved to ${aside} and a new one started. Files uploaded before may be uploaded again.`,
  };
}

/** Write to a temp file in the same directory, flush it to disk, then rename over the target. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}
