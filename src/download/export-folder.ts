// The export folder's format: what `contentlib upload DIR` reads back (src/upload/plan/manifest.ts,
// src/upload/plan/plan-metadata.ts), written here from the library's items.
//
//   DIR/contentlib.json              the upload manifest: every item, oldest first, with its files
//                                    in carousel order, its type, its thumbnail, and `original`
//                                    (its id and timestamps in the library it came from)
//   DIR/manifest.jsonl               the log: each item's files with sizes and SHA-256 (export-log.ts)
//   DIR/<id>/clip.mp4                a video, under the name the library gave it
//   DIR/<id>/clip.mp4.json           its sidecar: title, description, hashtags, status, platformSettings
//   DIR/<id>/01-beach.jpg …          a carousel's images, prefixed with their position
//   DIR/<id>/carousel.json           its sidecar
//   DIR/<id>/thumbnail.jpg           the item's thumbnail, when it has one
//
// The metadata lives in the sidecars (one small file per item, easy to read or edit), the order,
// types and thumbnails in the manifest. Signed URLs are never written.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, readdir, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import type { Writable } from 'node:stream';
import type { ContentItem } from '../api/schemas.js';
import type { MediaFacts } from '../rules/media-facts.js';
import { EXPORT_MANIFEST, carouselSidecarNames, videoSidecarName } from '../rules/folder-names.js';
import { OutsideFolderError, confine } from '../fs/confine.js';
import { hashFile } from './fetch.js';
import { LOG_NAME, type ExportFilters, type ExportState, type FileRecord, type ItemRecord } from './export-log.js';
import { isPartName } from './names.js';

export { EXPORT_MANIFEST };

/** The item's metadata as its sidecar holds it (the fields upload reads: plan-metadata.ts). */
export function sidecarOf(item: ContentItem): Record<string, unknown> {
  return {
    title: item.title,
    ...(item.description != null ? { description: item.description } : {}),
    ...(item.hashtags != null ? { hashtags: item.hashtags } : {}),
    status: item.status,
    ...(item.platformSettings != null ? { platformSettings: item.platformSettings } : {}),
  };
}

export function sidecarText(item: ContentItem): string {
  return `${JSON.stringify(sidecarOf(item), null, 2)}\n`;
}

export function sha256Of(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where upload looks for the item's sidecar: `<video>.json` beside a video, `carousel.json` in a carousel's folder. */
export function sidecarPath(folder: string, item: ContentItem, mediaNames: readonly string[]): string {
  const name =
    item.type === 'carousel' ? carouselSidecarNames(folder)[0]! : videoSidecarName(mediaNames[0] ?? `${item.id}.mp4`);
  return posix.join(folder, basename(name));
}

/** Whether a listed item falls under the export's filters (as the list endpoint applies them). */
export function matchesFilters(item: ContentItem, f: ExportFilters): boolean {
  if (f.status !== undefined && item.status !== f.status) return false;
  if (f.type !== undefined && item.type !== f.type) return false;
  if (f.search !== undefined && !item.title.toLocaleLowerCase().includes(f.search.toLocaleLowerCase())) return false;
  return true;
}

/** One item of the upload manifest. */
export function manifestEntry(r: ItemRecord): Record<string, unknown> {
  return {
    files: r.files.map((f) => (f.fileName !== undefined ? { path: f.path, fileName: f.fileName } : f.path)),
    type: r.type,
    ...(r.thumbnail ? { thumbnail: r.thumbnail.path } : {}),
    original: { id: r.id, title: r.title, createdAt: r.createdAt, ...(r.updatedAt ? { updatedAt: r.updatedAt } : {}) },
  };
}

/** Writes text to a stream, waiting when it asks to: memory stays flat however long the output. */
function put(stream: Writable, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    stream.once('drain', resolve);
    stream.once('error', reject);
  });
}

/**
 * Writes `contentlib.json` for the items whose ids are given newest first (the list's order):
 * oldest first, so that uploading it creates them in their original order. Item by item to a
 * temporary file, renamed over the old one at the end. Returns how many items it holds and
 * their folders.
 */
export async function writeUploadManifest(
  dir: string,
  newestFirst: readonly string[],
  state: Pick<ExportState, 'recordText'>,
): Promise<{ count: number; folders: Set<string> }> {
  const path = join(dir, EXPORT_MANIFEST);
  const temp = `${path}.${process.pid}.tmp`;
  const out = createWriteStream(temp);
  const closed = new Promise<void>((resolve, reject) => {
    out.once('close', resolve);
    out.once('error', reject);
  });
  const folders = new Set<string>();
  let count = 0;
  try {
    await put(out, '{\n  "items": [');
    for (let i = newestFirst.length - 1; i >= 0; i--) {
      const record = await state.recordText(newestFirst[i]!);
      if (record === undefined) continue;
      await put(out, `${count === 0 ? '' : ','}\n    ${JSON.stringify(manifestEntry(record))}`);
      folders.add(record.folder.split('/')[0]!);
      count++;
    }
    await put(out, `${count === 0 ? '' : '\n  '}]\n}\n`);
    out.end();
    await closed;
  } catch (err) {
    out.destroy();
    await unlink(temp).catch(() => {});
    throw err;
  }
  await rename(temp, path);
  return { count, folders };
}

/** Writes a small file through a temporary name, so a crash never leaves it half written. */
export async function writeAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
}

/**
 * The size of a plain file the export may have written at `path`; undefined when nothing is
 * there, or something else is (a folder, or a symbolic link, which the export never writes,
 * never reads through and never deletes through).
 */
export async function ownSize(path: string): Promise<number | undefined> {
  return lstat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
}

/**
 * Removes a file the export wrote, if it is still what was written: a plain file (never a
 * symbolic link), inside the folder, with the recorded size and SHA-256. 'left' when something
 * else is there.
 */
export async function removeOwn(
  dir: string,
  f: { path: string; size: number; sha256: string },
): Promise<'removed' | 'left' | 'gone'> {
  let abs: string;
  try {
    abs = await confine(dir, f.path);
  } catch (err) {
    // Its log line was checked when it was read (export-log.ts): the disk changed since. Left alone.
    if (err instanceof OutsideFolderError) return 'left';
    throw err;
  }
  const st = await lstat(abs).catch(() => undefined);
  if (st === undefined) return 'gone';
  if (!st.isFile() || st.size !== f.size) return 'left';
  if ((await hashFile(abs)).sha256 !== f.sha256) return 'left';
  await unlink(abs);
  return 'removed';
}

/**
 * Takes an item out of the folder: the files the export wrote (still as written), part files of
 * unfinished transfers, then the folder if nothing else is in it. Returns how many files went and
 * what was left (relative paths).
 */
export async function removeItemFiles(dir: string, r: ItemRecord): Promise<{ removed: number; left: string[] }> {
  let removed = 0;
  const left: string[] = [];
  for (const f of [...r.files, ...(r.thumbnail ? [r.thumbnail] : []), r.sidecar]) {
    const outcome = await removeOwn(dir, f);
    if (outcome === 'removed') removed++;
    else if (outcome === 'left') left.push(f.path);
  }
  const folder = join(dir, r.folder);
  // A folder that is a link is not the export's: nothing in it is touched.
  if (!(await lstat(folder).catch(() => undefined))?.isDirectory()) return { removed, left };
  const rest = await readdir(folder).catch(() => [] as string[]);
  for (const name of rest) {
    if (isPartName(name)) await unlink(join(folder, name)).catch(() => {});
    else if (!left.includes(posix.join(r.folder, name))) left.push(posix.join(r.folder, name));
  }
  await rmdir(folder).catch(() => {});
  return { removed, left };
}

/**
 * What is in the folder that the export did not write: anything beside its manifest, its log
 * and the folders of the items it holds (temporary files of its own are removed).
 */
export async function strangers(dir: string, folders: ReadonlySet<string>): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name === EXPORT_MANIFEST || name === LOG_NAME || folders.has(name)) continue;
    if (name.startsWith(`${EXPORT_MANIFEST}.`) && name.endsWith('.tmp')) {
      await unlink(join(dir, name)).catch(() => {});
      continue;
    }
    out.push(name);
  }
  return out.sort();
}

/** A file record for what is now on disk at `path` (relative), with the library's name when it differs. */
export function fileRecord(
  path: string,
  f: { fileName?: string; source: string; media?: MediaFacts },
  got: { size: number; sha256: string },
): FileRecord {
  const onDisk = posix.basename(path);
  return {
    path,
    ...(f.fileName !== undefined && f.fileName !== onDisk ? { fileName: f.fileName } : {}),
    size: got.size,
    sha256: got.sha256,
    source: f.source,
    ...(f.media ? { media: f.media } : {}),
  };
}
