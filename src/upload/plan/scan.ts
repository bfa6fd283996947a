// The disk half of planning an upload: what the user typed (paths, folders, globs, or a
// --manifest) → the files found, each inspected (size, real format, duration), every sidecar
// that could give them metadata, and the thumbnail images. Nothing is decided here; decide.ts
// turns a Scanned into the plan, and plan.ts runs one after the other.
import { dirname, relative, resolve } from 'node:path';
import { OutsideFolderError, confine } from '../../fs/confine.js';
import { mayStall } from '../../fs/stalling-fs.js';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inspectFile, inspectFileSync, probeDuration, type InspectedFile } from '../../media/inspect.js';
import { FORMATS } from '../../rules/rules.js';
import { loadManifest, type ResolvedManifestItem } from './manifest.js';
import { expandInputs, shownPath, type Expanded, type Skipped } from './plan-inputs.js';
import { SLICE_MS, inspectionMode } from './scan-pace.js';
import type { ItemMetadata } from '../../api/schemas.js';
import { readSidecar } from './plan-metadata.js';
import { carouselSidecarNames, videoSidecarName } from '../../rules/folder-names.js';
import type { PlanProblem } from '../../rules/problem.js';
import { FileTable } from './file-table.js';
import { collectAfter } from './collect.js';

/** An inspected file and how messages name it (a thumbnail; the files to upload are in the table). */
export interface ScannedFile {
  file: InspectedFile;
  shown: string;
}

/** A sidecar .json that exists: its metadata, or what is wrong with it. */
export type Sidecar = { shown: string } & ({ metadata: ItemMetadata } | { problem: PlanProblem });

/** One manifest item with its files (and its thumbnail) inspected. */
export interface ScannedManifestItem {
  item: ResolvedManifestItem;
  /** Ids in the scan's table, in the item's order. */
  files: readonly number[];
  thumbnail?: ScannedFile;
}

/** Everything the plan needs from disk. */
export interface Scanned {
  /** The working directory: paths inside it are shown relative to it. */
  cwd: string;
  /** Every file inspected, packed (./file-table.ts): 100,000 files are never 100,000 records. */
  table: FileTable;
  /** The files the inputs expand to, as ids in the table, in order (empty with a manifest). */
  files: readonly number[];
  /** With --manifest: its items, in order. */
  manifest?: ScannedManifestItem[];
  /** Inputs that could not be expanded, or a manifest that could not be loaded. */
  problems: PlanProblem[];
  /** Files passed over on purpose (hidden, system, sidecars, non-media in a folder). */
  skipped: Skipped[];
  /** Every sidecar found beside a file or in a folder of one, by absolute path. */
  sidecars: Record<string, Sidecar>;
  /** --thumbnail IMG, inspected (not with --manifest, which names thumbnails per item). */
  thumbnail?: ScannedFile;
  /** The inputs (or the manifest) are on a network share or a FUSE mount (src/fs/stalling-fs.ts). */
  stalls?: true;
}

/** What scanning reads of the options. */
export interface ScanOptions {
  manifest?: string;
  /** The manifest is an export folder's: its paths and their sidecars stay inside its folder. */
  manifestConfined?: boolean;
  thumbnail?: string;
}

/** Files to inspect, read one at a time (a walk's candidates are packed: plan-inputs.ts). */
interface ToInspect {
  readonly length: number;
  path(k: number): string;
  shown(k: number): string;
}

/** Files inspected at once when the disk is slow, and videos probed at once. */
const INSPECT_CONCURRENCY = 8;

export async function scan(inputs: readonly string[], options: ScanOptions, cwd: string): Promise<Scanned> {
  const table = new FileTable(cwd);
  const scanned: Scanned = { cwd, table, files: [], problems: [], skipped: [], sidecars: {} };
  // Each way of scanning is a function of its own, so that what it held (a walk of 100,000 files:
  // its candidates' paths, names and ids, ~7 MB) is garbage once it returns, before the
  // collection below: kept in this function's scope, they were still live through it and the
  // sidecars (bench/notes.md, issue 41).
  const found = options.manifest
    ? await scanManifest(options.manifest, options, scanned)
    : await scanInputs(inputs, options, scanned);
  // The walk's and the inspection's garbage collected (and its pages handed back) before the
  // scan's last synchronous stretch, the sidecars, adds its own: with both at once the scan's
  // end set the upload's peak (100,000 files: 104–119 MB, 101–104 after this; bench/notes.md).
  collectAfter(table.length);
  table.seal();
  const all = scanned.manifest ? scanned.manifest.flatMap((m) => m.files) : scanned.files;
  scanned.sidecars = await readSidecars(all, table, cwd, found.listed, found.confinedTo);
  return scanned;
}

/** What the sidecars' search needs to know of how the files were found. */
interface Found {
  listed?: Expanded['listed'];
  /** An export folder's manifest: its sidecars stay inside this folder. */
  confinedTo?: string;
}

/** --manifest: its items' files inspected into the table, in the manifest's order. */
async function scanManifest(manifest: string, options: ScanOptions, scanned: Scanned): Promise<Found> {
  const { cwd, table } = scanned;
  const manifestPath = resolve(cwd, manifest);
  const loaded = await loadManifest(manifestPath, manifest, options.manifestConfined);
  const stalls = await mayStall(dirname(manifestPath));
  if (stalls) scanned.stalls = true;
  scanned.problems.push(...loaded.problems);
  scanned.manifest = [];
  for (const item of loaded.items) {
    const ids = await inspectAll(
      { length: item.files.length, path: (k) => item.files[k]!, shown: (k) => shownPath(item.files[k]!, cwd) },
      table,
      stalls,
    );
    // The name the library is told, where the manifest gives one (an export's carousel images
    // are `01-beach.jpg` on disk, `beach.jpg` in the library).
    item.fileNames?.forEach((name, k) => {
      if (name !== undefined && ids[k] !== undefined) table.rename(ids[k], name);
    });
    const thumbnail = item.thumbnail ? await inspect(item.thumbnail, shownPath(item.thumbnail, cwd)) : undefined;
    scanned.manifest.push({ item, files: ids, ...(thumbnail ? { thumbnail } : {}) });
  }
  return options.manifestConfined ? { confinedTo: dirname(manifestPath) } : {};
}

/** Paths, folders and globs: walked, and every file found inspected into the table. */
async function scanInputs(inputs: readonly string[], options: ScanOptions, scanned: Scanned): Promise<Found> {
  const { cwd, table } = scanned;
  const files: number[] = [];
  const expanded = await expandInputs(inputs, cwd);
  if (expanded.stalls) scanned.stalls = true;
  scanned.problems.push(...expanded.problems);
  const inspected = await inspectAll(expanded.candidates, table, expanded.stalls);
  // A file skipped by its name (.HEIC) stays skipped unless its bytes are a supported format.
  const withdrawn = new Set<number>();
  inspected.forEach((id, k) => {
    const skippedAt = expanded.candidates.skippedAt(k);
    if (skippedAt === undefined) files.push(id);
    else if (table.realFormat(id)) {
      withdrawn.add(skippedAt);
      files.push(id);
    }
  });
  scanned.files = files;
  scanned.skipped.push(...expanded.skipped.filter((_, k) => !withdrawn.has(k)));
  if (options.thumbnail) scanned.thumbnail = await inspect(resolve(cwd, options.thumbnail), options.thumbnail);
  return { listed: expanded.listed };
}

async function inspect(path: string, shown: string): Promise<ScannedFile> {
  return { file: await inspectFile(path, shown), shown };
}

/**
 * Inspects the files in order into `table`; returns their ids, in the candidates' order.
 * Synchronous stat and reads, one file at a time, in slices of SLICE_MS between turns of the
 * event loop: from the page cache that is about a fifth of the CPU of promise-based calls. When
 * the disk makes each file wait (scan-pace.ts), the rest go INSPECT_CONCURRENCY at a time
 * through the thread pool instead. Videos' durations are probed afterwards,
 * INSPECT_CONCURRENCY at a time; only their records wait for it, every other file is packed
 * as soon as it is inspected.
 */
async function inspectAll(candidates: ToInspect, table: FileTable, stalls: boolean): Promise<number[]> {
  const ids: number[] = new Array<number>(candidates.length);
  const probes: Array<{ at: number; scanned: ScannedFile }> = [];
  let next = 0;
  let sliceStart = performance.now();
  let sliceFiles = 0;
  // On a share that may stall (plan-inputs.ts `stalls`), none synchronously.
  while (!stalls && next < candidates.length) {
    const shown = candidates.shown(next);
    const { file, needsProbe } = inspectFileSync(candidates.path(next), shown);
    if (needsProbe) probes.push({ at: next, scanned: { file, shown } });
    else ids[next] = table.add(file);
    next++;
    sliceFiles++;
    const elapsed = performance.now() - sliceStart;
    if (elapsed < SLICE_MS) continue;
    if (inspectionMode(elapsed, sliceFiles) === 'parallel') break;
    await nextTurn();
    sliceStart = performance.now();
    sliceFiles = 0;
  }
  // Added in the order they are done: an id says nothing about the order, `ids` does.
  await inParallel(candidates.length - next, async (k) => {
    const i = next + k;
    ids[i] = table.add((await inspect(candidates.path(i), candidates.shown(i))).file);
  });
  await inParallel(probes.length, async (k) => {
    const { scanned } = probes[k]!;
    await probeDuration(scanned.file, scanned.shown);
  });
  for (const { at, scanned } of probes) ids[at] = table.add(scanned.file);
  return ids;
}

/** Runs task(0 … count-1), INSPECT_CONCURRENCY at a time. */
async function inParallel(count: number, task: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(INSPECT_CONCURRENCY, count) }, worker));
}

/** Why `path` (absolute, under `root` by its text) is not inside `root` on the disk; undefined when it is. */
async function leavesFolder(root: string, path: string): Promise<string | undefined> {
  try {
    await confine(root, relative(root, path));
    return undefined;
  } catch (err) {
    if (err instanceof OutsideFolderError) return err.reason;
    throw err;
  }
}

/**
 * The sidecars that exist: `<video>.json` beside each video, `carousel.json` and `<folder>.json`
 * in each folder. In a folder that was walked, only the .json files seen there are read; others
 * are tried, INSPECT_CONCURRENCY at a time.
 */
async function readSidecars(
  files: readonly number[],
  table: FileTable,
  cwd: string,
  listed: Expanded['listed'] | undefined,
  confinedTo?: string,
): Promise<Record<string, Sidecar>> {
  const paths = new Set<string>();
  const folders = new Set<string>();
  for (let k = 0; k < files.length; k++) {
    const id = files[k]!;
    const folder = table.folder(id);
    // A walked folder where no .json was seen holds no sidecar: no names are made for its files
    // (the scan's last synchronous stretch; 100,000 files in 10,000 folders made 20,000).
    if (listed?.folders.has(folder) && !listed.jsonIn.has(folder)) continue;
    const format = table.realFormat(id) ?? table.extFormat(id);
    if (format && FORMATS[format].media === 'video') paths.add(videoSidecarName(table.path(id)));
    if (folders.has(folder)) continue;
    folders.add(folder);
    for (const name of carouselSidecarNames(folder)) paths.add(name);
  }
  const candidates = [...paths].filter((p) => !listed?.folders.has(dirname(p)) || listed.json.has(p.toLowerCase()));
  const sidecars: Record<string, Sidecar> = {};
  const found: Array<[string, Sidecar]> = [];
  await inParallel(candidates.length, async (k) => {
    const path = candidates[k]!;
    const shown = shownPath(path, cwd);
    // In an export folder a sidecar that is a link out of it is not read: its text would become metadata.
    const outside = confinedTo ? await leavesFolder(confinedTo, path) : undefined;
    const result: Awaited<ReturnType<typeof readSidecar>> = outside
      ? {
          found: true,
          problem: {
            file: shown,
            rule: 'sidecar',
            actual: 'outside',
            message: `the sidecar ${outside}: an export folder's sidecars stay inside it`,
            hint: 'replace the link with the file itself',
            path,
          },
        }
      : await readSidecar(path, shown);
    if (result.found)
      found[k] = [
        path,
        { shown, ...('problem' in result ? { problem: result.problem } : { metadata: result.metadata }) },
      ];
  });
  for (const entry of found) if (entry) sidecars[entry[0]] = entry[1];
  return sidecars;
}
