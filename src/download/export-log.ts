// An export folder's record of itself: `manifest.jsonl`, one JSON object a line, appended to and
// never rewritten (as immich-export's manifest). Each item's line lists its files with their
// sizes and SHA-256; a later line for the same id replaces the earlier one, a `removed` line
// ends it, and a `run` line closes each run that finished. Reading it back gives the folder's
// current set: what a re-run compares with the library, and what --verify checks.
//
// The current set is held as where each item's line is (two numbers an item, read back when the
// item comes up): memory does not grow with the records. A line cut short by a crash is passed
// over, and ended before the next run appends.
import { createReadStream } from 'node:fs';
import { type FileHandle, open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { OutsideFolderError, confine, textLeaves } from '../fs/confine.js';
import { ExportLogError } from './errors.js';
import type { MediaFacts } from '../rules/media-facts.js';
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
  /** What the library measured of it (issue 39: size, shape, codecs), when it has. */
  media?: MediaFacts;
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

/** Where an item's current line is in the log: its first byte and its length (without the newline). */
export interface LineRef {
  at: number;
  length: number;
}

export interface ExportState {
  /** The current set: id → where its latest item line is in the log. */
  items: Map<string, LineRef>;
  /** The last run that finished, if any. */
  lastRun?: RunRecord;
  /** Lines that could not be read (a line cut short by a crash). */
  unreadable: number;
  /**
   * The item's current record, read from the log, its paths checked on the disk to stay inside
   * the folder (no symbolic link out: ExportLogError otherwise); undefined when the folder does
   * not hold it.
   */
  record(id: string): Promise<ItemRecord | undefined>;
  /** The record as the log holds it, unchecked on the disk: for what only copies its text (the upload manifest). */
  recordText(id: string): Promise<ItemRecord | undefined>;
  close(): Promise<void>;
}

/**
 * Reads the log of `dir` once, keeping where each item's latest line is (not the line: memory
 * stays ~60 bytes an item); records are read back one at a time when they are needed. An export
 * folder without a log has an empty current set.
 */
export async function readExportState(dir: string): Promise<ExportState> {
  const path = join(dir, LOG_NAME);
  const items = new Map<string, LineRef>();
  let reader: Promise<FileHandle> | undefined;
  let realDir: Promise<string> | undefined;
  const read = async (id: string) => {
    const ref = items.get(id);
    if (!ref) return undefined;
    // One handle for every read (positional reads do not disturb each other).
    reader ??= open(path, 'r');
    const buffer = Buffer.alloc(ref.length);
    await (await reader).read(buffer, 0, ref.length, ref.at);
    return { record: JSON.parse(buffer.toString('utf8')) as ItemRecord, at: ref.at };
  };
  const state: ExportState = {
    items,
    unreadable: 0,
    async record(id) {
      const got = await read(id);
      if (!got) return undefined;
      realDir ??= realpath(dir);
      const real = await realDir;
      for (const p of recordPaths(got.record)) {
        try {
          await confine(dir, p.path, real);
        } catch (err) {
          if (!(err instanceof OutsideFolderError)) throw err;
          const line = await lineNumberAt(path, got.at);
          throw new ExportLogError({ log: LOG_NAME, line, what: `the ${p.what} ${err.message}` });
        }
      }
      return got.record;
    },
    async recordText(id) {
      return (await read(id))?.record;
    },
    async close() {
      const handle = reader;
      reader = undefined;
      await (await handle)?.close();
    },
  };
  let number = 0;
  for await (const { line, at, length, skipped } of lines(path)) {
    number += skipped + 1;
    let record: Partial<LogRecord>;
    try {
      record = JSON.parse(line) as Partial<LogRecord>;
    } catch {
      state.unreadable++;
      continue;
    }
    if (record.kind === 'item' && typeof record.id === 'string') {
      // Paths that leave the folder on their text alone stop the run before it does anything.
      const wrong = textProblem(record);
      if (wrong) throw new ExportLogError({ log: LOG_NAME, line: number, what: wrong });
      items.set(record.id, { at, length });
    } else if (record.kind === 'removed' && typeof record.id === 'string') items.delete(record.id);
    else if (record.kind === 'run') state.lastRun = record as RunRecord;
  }
  return state;
}

/** The number (from 1) of the line that starts at byte `at`: only for a message, so read again rather than kept. */
async function lineNumberAt(path: string, at: number): Promise<number> {
  let number = 1;
  let seen = 0;
  for await (const chunk of createReadStream(path, { end: Math.max(0, at - 1) }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0 && seen + i < at; i = chunk.indexOf(10, i + 1)) number++;
    seen += chunk.length;
  }
  return number;
}

/** Every path of an item's record, and what it is (for the message that names a wrong one). */
function recordPaths(r: Partial<ItemRecord>): Array<{ what: string; path: string }> {
  const out: Array<{ what: string; path: unknown }> = [{ what: 'folder', path: r.folder }];
  (Array.isArray(r.files) ? r.files : []).forEach((f, i) => out.push({ what: `file ${i + 1}`, path: f?.path }));
  if (r.thumbnail) out.push({ what: 'thumbnail', path: r.thumbnail.path });
  out.push({ what: 'sidecar', path: r.sidecar?.path });
  return out.map((p) => ({ what: p.what, path: typeof p.path === 'string' ? p.path : '' }));
}

/**
 * What is wrong with an item line's paths on their text: the export writes an item's files as
 * `<folder>/<name>`, its folder one name directly in the export folder. Undefined when right.
 */
export function textProblem(r: Partial<ItemRecord>): string | undefined {
  for (const { what, path } of recordPaths(r)) {
    const leaves = textLeaves(path);
    if (leaves) return `the ${what} ${JSON.stringify(path)} ${leaves}`;
  }
  const folder = r.folder!;
  if (folder.includes('/') || folder.includes('\\') || folder === '.')
    return `the folder ${JSON.stringify(folder)} is not one name in the export folder`;
  for (const { what, path } of recordPaths(r).slice(1)) {
    const name = path.slice(folder.length + 1);
    if (!path.startsWith(`${folder}/`) || name === '' || name === '.' || name === '..' || /[/\\]/.test(name))
      return `the ${what} ${JSON.stringify(path)} is not a file of the item's folder ${JSON.stringify(folder)}`;
  }
  return undefined;
}

/** The non-blank lines of a file with their byte offsets and the blank lines before each; nothing when the file does not exist. */
async function* lines(path: string): AsyncGenerator<{ line: string; at: number; length: number; skipped: number }> {
  const stream = createReadStream(path);
  const opened = new Promise<boolean>((resolve) => {
    stream.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'ENOENT'));
    stream.once('open', () => resolve(true));
  });
  if (!(await opened)) return;
  let pending = Buffer.alloc(0);
  let pendingAt = 0;
  let skipped = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    let at = pendingAt;
    for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10)) {
      const line = data.toString('utf8', 0, nl);
      if (line.trim() !== '') {
        yield { line, at, length: nl, skipped };
        skipped = 0;
      } else skipped++;
      at += nl + 1;
      data = data.subarray(nl + 1);
    }
    pending = Buffer.from(data);
    pendingAt = at;
  }
  // A last line without its newline: cut short by a crash (it will not parse), or whole.
  if (pending.toString('utf8').trim() !== '')
    yield { line: pending.toString('utf8'), at: pendingAt, length: pending.length, skipped };
}

/** Appends records one line each, in the order given; each line is one write. */
export interface LogWriter {
  /** Resolves with where the line went, once it is written. */
  append(record: LogRecord): Promise<LineRef>;
  close(): Promise<void>;
}

export async function openLog(dir: string): Promise<LogWriter> {
  const handle: FileHandle = await open(join(dir, LOG_NAME), 'a+');
  let size = (await handle.stat()).size;
  // A line cut short by a crash is ended first, so that it does not swallow the next one.
  if (size > 0) {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] !== 10) {
      await handle.write('\n');
      size++;
    }
  }
  let chain: Promise<unknown> = Promise.resolve();
  return {
    append(record) {
      const text = Buffer.from(`${JSON.stringify(record)}\n`);
      const written = chain.then(async () => {
        await handle.write(text);
        const ref = { at: size, length: text.length - 1 };
        size += text.length;
        return ref;
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
