// An export folder's record of itself: `manifest.jsonl`, one JSON object a line, appended to and
// never rewritten (as immich-export's manifest). Each item's line lists its files with their
// sizes and SHA-256; a later line for the same id replaces the earlier one, a `removed` line
// ends it, and a `run` line closes each run that finished. Reading it back gives the folder's
// current set: what a re-run compares with the library, and what --verify checks.
//
// The current set is held as one compact line per item (not parsed objects): about 0.3 KB an
// item, so 10,000 items cost ~3 MB. A line cut short by a crash (the last one) is passed over.
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ContentType, Status } from '../rules/rules.js';

/** The log's name in the export folder. */
export const LOG_NAME = 'manifest.jsonl';

/** One file of an item as it was written into the folder. */
export interface FileRecord {
  /** Relative to the export folder, with `/`. */
  path: string;
  /** The name the library gave it, when it differs from the name on disk (carousel images, unsafe names). */
  fileName?: string;
  size: number;
  sha256: string;
  /** What it is in the library (item-files.ts ItemFile.source): changes when the file does. */
  source: string;
}

export interface ItemRecord {
  kind: 'item';
  id: string;
  type: ContentType;
  title: string;
  status: Status;
  createdAt: string;
  updatedAt?: string;
  /** The item's folder, relative to the export folder. */
  folder: string;
  /** The media, in carousel order. */
  files: FileRecord[];
  thumbnail?: FileRecord;
  /** The sidecar with the item's metadata. */
  sidecar: { path: string; size: number; sha256: string };
  exportedAt: string;
}

export interface RemovedRecord {
  kind: 'removed';
  id: string;
  folder: string;
  reason: string;
  exportedAt: string;
}

/** The filters an export ran with (what --verify compares against). */
export interface ExportFilters {
  status?: Status;
  type?: ContentType;
  search?: string;
}

export interface RunRecord {
  kind: 'run';
  at: string;
  /** Where the items came from, as the target line names it (no key, no signed URL). */
  from: string;
  filters: ExportFilters;
  items: number;
  new: number;
  changed: number;
  removed: number;
  failed: number;
}

export type LogRecord = ItemRecord | RemovedRecord | RunRecord;

export interface ExportState {
  /** The current set: id → its latest item line (JSON text). */
  items: Map<string, string>;
  /** The last run that finished, if any. */
  lastRun?: RunRecord;
  /** Lines that could not be read (a line cut short by a crash). */
  unreadable: number;
}

/** Reads the log of `dir`; an export folder without one has an empty current set. */
export async function readExportState(dir: string): Promise<ExportState> {
  const state: ExportState = { items: new Map(), unreadable: 0 };
  const stream = createReadStream(join(dir, LOG_NAME), { encoding: 'utf8' });
  const missing = new Promise<boolean>((resolve) => {
    stream.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ENOENT'));
    stream.once('open', () => resolve(false));
  });
  if (await missing) return state;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    let record: Partial<LogRecord>;
    try {
      record = JSON.parse(line) as Partial<LogRecord>;
    } catch {
      state.unreadable++;
      continue;
    }
    if (record.kind === 'item' && typeof record.id === 'string') state.items.set(record.id, line);
    else if (record.kind === 'removed' && typeof record.id === 'string') state.items.delete(record.id);
    else if (record.kind === 'run') state.lastRun = record as RunRecord;
  }
  return state;
}

export function parseItemRecord(line: string): ItemRecord {
  return JSON.parse(line) as ItemRecord;
}

/** Appends records one line each, in the order given; each line is one write. */
export interface LogWriter {
  append(record: LogRecord): Promise<void>;
  close(): Promise<void>;
}

export async function openLog(dir: string): Promise<LogWriter> {
  const handle: FileHandle = await open(join(dir, LOG_NAME), 'a');
  let chain: Promise<void> = Promise.resolve();
  return {
    append(record) {
      const text = `${JSON.stringify(record)}\n`;
      const written = chain.then(async () => {
        await handle.write(text);
      });
      // One failed write is its caller's to report; the next ones still go.
      chain = written.catch(() => {});
      return written;
    },
    async close() {
      await chain;
      await handle.close();
    },
  };
}
