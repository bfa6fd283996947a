// What `download` and `export` tell the world while they take files out of the library. They
// only emit these; the bars, the plain log lines and the NDJSON are listeners
// (src/cli/output/download-progress.ts), and tests simply collect them.
import type { ContentType } from '../rules/rules.js';

/** One file as events name it. */
export interface FileRef {
  /** Absolute path it is written to. */
  path: string;
  /** How people are shown it: relative to the folder written into. */
  shown: string;
  /** Bytes, when the library says. */
  size?: number;
  itemId: string;
  role: 'file' | 'thumbnail';
}

/** What an export run did to one item. */
export type ItemChange = 'new' | 'changed' | 'unchanged';

export type DownloadEvent =
  /** Bytes start to arrive; `from` > 0 when earlier bytes were kept (a resume). */
  | { type: 'started'; file: FileRef; from: number }
  /** Bytes on disk so far. */
  | { type: 'progress'; file: FileRef; have: number }
  /** A try failed and another follows after `delayMs`, from byte `from`. */
  | { type: 'retrying'; file: FileRef; attempt: number; delayMs: number; reason: string; from: number }
  /** Checked (size, and SHA-256 where the library knows it) and in place; `sha256` when it was computed. */
  | { type: 'downloaded'; file: FileRef; bytes: number; sha256?: string; resumedFrom: number; ms: number }
  /** Not fetched: already there (--skip-existing, or unchanged since the last export). */
  | { type: 'skipped'; file: FileRef; reason: string }
  | { type: 'failed'; file?: FileRef; itemId: string; message: string; code?: string }
  /** export: an item is in the folder as the library has it. */
  | { type: 'exported'; itemId: string; itemType: ContentType; title: string; change: ItemChange; folder: string }
  /** export: an item no longer in the library (or no longer matching the filters) was taken out of the folder. */
  | { type: 'removed'; itemId: string; folder: string; reason: string; files: number; left: string[] };

export type EmitFn = (event: DownloadEvent) => void;
