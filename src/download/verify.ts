// contentlib export --verify DIR: an export folder compared with the library, file by file, as
// `rclone check` compares two remotes. Each file (media, thumbnail, sidecar) is one of:
//
//   same           on both sides, equal
//   missing-here   in the library, not in the folder
//   missing-there  in the folder, not in the library
//   different      on both sides, not equal: its size, its SHA-256 (the library's, where it knows
//                  it; else the one recorded when it was exported, so a damaged copy shows), or
//                  for a sidecar the metadata it holds
//
// Every local file is read for its checksum. The list is read with the filters of the folder's
// last run (export-log.ts), one page at a time, its items `concurrency` at a time.
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { ContentItem } from '../api/schemas.js';
import { LIST_LIMITS } from '../rules/rules.js';
import { createPool } from '../concurrency/pool.js';
import { sidecarOf, sidecarPath, sidecarText } from './export-folder.js';
import { type ExportFilters, type FileRecord, type ItemRecord, readExportState } from './export-log.js';
import { hashFile, sizeOnDisk } from './fetch.js';
import { type ItemFile, mediaFiles, thumbnailFile } from './item-files.js';
import { safeName } from './names.js';

export type VerifyStatus = 'same' | 'missing-here' | 'missing-there' | 'different';

export interface VerifyEntry {
  status: VerifyStatus;
  /** Relative to the export folder (an item missing here entirely: its folder, with a trailing `/`). */
  path: string;
  itemId: string;
  /** Why it is not `same`. */
  reason?: string;
}

export interface VerifySummary {
  same: number;
  missingHere: number;
  missingThere: number;
  different: number;
  filters: ExportFilters;
}

export interface VerifyDeps {
  api: Pick<ApiClient, 'list' | 'get'>;
  emit: (entry: VerifyEntry) => void;
  signal: AbortSignal;
  concurrency: number;
}

/** Compares `dir` with the library; `filters` default to those of the folder's last run. */
export async function runVerify(
  dir: string,
  filters: ExportFilters | undefined,
  deps: VerifyDeps,
): Promise<VerifySummary> {
  const state = await readExportState(dir);
  const used = filters ?? state.lastRun?.filters ?? {};
  const summary: VerifySummary = { same: 0, missingHere: 0, missingThere: 0, different: 0, filters: used };
  const report = (entry: VerifyEntry) => {
    if (entry.status === 'same') summary.same++;
    else if (entry.status === 'missing-here') summary.missingHere++;
    else if (entry.status === 'missing-there') summary.missingThere++;
    else summary.different++;
    deps.emit(entry);
  };
  try {
    const seen = new Set<string>();
    const pool = createPool(deps.concurrency, deps.signal);
    for (let offset = 0; ;) {
      const page = await deps.api.list({ ...used, limit: LIST_LIMITS.maxLimit, offset }, { signal: deps.signal });
      const fresh = page.items.filter((i) => !seen.has(i.id));
      for (const i of fresh) seen.add(i.id);
      await Promise.all(
        fresh.map((item) =>
          pool.run(async () => {
            const record = await state.record(item.id);
            if (record) await compareItem(dir, item, record, deps, report);
            else
              report({
                status: 'missing-here',
                path: `${safeName(item.id)}/`,
                itemId: item.id,
                reason: `${item.type} "${item.title}" is in the library, not in the folder`,
              });
          }),
        ),
      );
      offset += page.items.length;
      if (!page.hasMore || page.items.length === 0) break;
    }
    for (const id of state.items.keys()) {
      if (seen.has(id)) continue;
      const record = (await state.record(id))!;
      for (const f of filesOf(record))
        report({ status: 'missing-there', path: f.path, itemId: id, reason: 'its item is not in the library' });
    }
  } finally {
    await state.close();
  }
  return summary;
}

function filesOf(r: ItemRecord): Array<{ path: string; size: number; sha256: string }> {
  return [...r.files, ...(r.thumbnail ? [r.thumbnail] : []), r.sidecar];
}

type Report = (entry: VerifyEntry) => void;

async function compareItem(dir: string, listed: ContentItem, r: ItemRecord, deps: VerifyDeps, report: Report) {
  const { item, files } =
    listed.type === 'carousel' ? await deps.api.get(listed.id, { signal: deps.signal }) : { item: listed, files: [] };
  const expected = mediaFiles(item, files);
  const media = expected.map((f) => ({ f, path: posix.join(r.folder, f.name) }));
  for (const { f, path } of media)
    await compareFile(
      dir,
      item.id,
      f,
      path,
      r.files.find((x) => x.path === path),
      report,
    );
  for (const x of r.files)
    if (!media.some((m) => m.path === x.path))
      report({ status: 'missing-there', path: x.path, itemId: item.id, reason: 'no longer one of the item’s files' });
  const thumb = thumbnailFile(item);
  if (thumb) {
    const path = posix.join(r.folder, thumb.name);
    const recorded = r.thumbnail?.path === path ? r.thumbnail : undefined;
    await compareFile(dir, item.id, thumb, path, recorded, report);
  }
  if (r.thumbnail && (!thumb || posix.join(r.folder, thumb.name) !== r.thumbnail.path))
    report({
      status: 'missing-there',
      path: r.thumbnail.path,
      itemId: item.id,
      reason: 'not the item’s thumbnail in the library',
    });
  await compareSidecar(
    dir,
    item,
    r,
    media.map((m) => posix.basename(m.path)),
    report,
  );
}

async function compareFile(
  dir: string,
  itemId: string,
  f: ItemFile,
  path: string,
  recorded: FileRecord | undefined,
  report: Report,
): Promise<void> {
  const onDisk = await sizeOnDisk(join(dir, path));
  const entry = (status: VerifyStatus, reason?: string) =>
    report({ status, path, itemId, ...(reason ? { reason } : {}) });
  if (onDisk === undefined) return entry('missing-here', 'in the library, not in the folder');
  if (f.size !== undefined && onDisk !== f.size)
    return entry('different', `${onDisk} bytes here, ${f.size} in the library`);
  const { sha256 } = await hashFile(join(dir, path));
  if (f.sha256)
    return sha256 === f.sha256.toLowerCase()
      ? entry('same')
      : entry('different', 'its SHA-256 differs from the library’s');
  if (!recorded) return entry('different', 'not recorded by the export (manifest.jsonl)');
  if (recorded.source !== f.source) return entry('different', 'the library holds another file under this name now');
  if (recorded.sha256 !== sha256) return entry('different', 'its bytes changed since they were exported (SHA-256)');
  return entry('same');
}

async function compareSidecar(
  dir: string,
  item: ContentItem,
  r: ItemRecord,
  mediaNames: readonly string[],
  report: Report,
): Promise<void> {
  const path = sidecarPath(r.folder, item, mediaNames);
  const text = await readFile(join(dir, path), 'utf8').catch(() => undefined);
  if (text === undefined)
    return report({
      status: 'missing-here',
      path,
      itemId: item.id,
      reason: 'the item’s metadata is not in the folder',
    });
  if (text === sidecarText(item)) return report({ status: 'same', path, itemId: item.id });
  let local: Record<string, unknown> = {};
  try {
    local = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return report({ status: 'different', path, itemId: item.id, reason: 'not valid JSON' });
  }
  const library = sidecarOf(item);
  const fields = [...new Set([...Object.keys(library), ...Object.keys(local)])].filter(
    (k) => JSON.stringify(library[k]) !== JSON.stringify(local[k]),
  );
  if (fields.length === 0) return report({ status: 'same', path, itemId: item.id });
  report({ status: 'different', path, itemId: item.id, reason: `metadata differs: ${fields.join(', ')}` });
}
