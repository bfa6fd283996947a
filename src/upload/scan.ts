// The disk half of planning an upload: what the user typed (paths, folders, globs, or a
// --manifest) → the files found, each inspected (size, real format, duration), every sidecar
// that could give them metadata, and the thumbnail images. Nothing is decided here; decide.ts
// turns a Scanned into the plan, and plan.ts runs one after the other.
import { dirname, resolve } from 'node:path';
import { inspectFile, type InspectedFile } from '../media/inspect.js';
import { loadManifest, type ResolvedManifestItem } from './manifest.js';
import { expandInputs, shownPath, type Skipped } from './plan-inputs.js';
import { carouselSidecarNames, readSidecar, videoSidecarName, type ItemMetadata } from './plan-metadata.js';
import type { PlanProblem } from './plan-problem.js';

/** An inspected file and how messages name it. */
export interface ScannedFile {
  file: InspectedFile;
  shown: string;
}

/** A sidecar .json that exists: its metadata, or what is wrong with it. */
export type Sidecar = { shown: string } & ({ metadata: ItemMetadata } | { problem: PlanProblem });

/** One manifest item with its files (and its thumbnail) inspected. */
export interface ScannedManifestItem {
  item: ResolvedManifestItem;
  files: ScannedFile[];
  thumbnail?: ScannedFile;
}

/** Everything the plan needs from disk. */
export interface Scanned {
  /** The working directory: paths inside it are shown relative to it. */
  cwd: string;
  /** The files the inputs expand to, inspected, in order (empty with a manifest). */
  files: ScannedFile[];
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
}

/** What scanning reads of the options. */
export interface ScanOptions {
  manifest?: string;
  thumbnail?: string;
}

const INSPECT_CONCURRENCY = 8;

export async function scan(inputs: readonly string[], options: ScanOptions, cwd: string): Promise<Scanned> {
  const scanned: Scanned = { cwd, files: [], problems: [], skipped: [], sidecars: {} };
  if (options.manifest) {
    const loaded = await loadManifest(resolve(cwd, options.manifest), options.manifest);
    scanned.problems.push(...loaded.problems);
    scanned.manifest = [];
    for (const item of loaded.items) {
      const files = await inspectAll(item.files.map((path) => ({ path, shown: shownPath(path, cwd) })));
      const thumbnail = item.thumbnail ? await inspect(item.thumbnail, shownPath(item.thumbnail, cwd)) : undefined;
      scanned.manifest.push({ item, files, ...(thumbnail ? { thumbnail } : {}) });
    }
  } else {
    const expanded = await expandInputs(inputs, cwd);
    scanned.problems.push(...expanded.problems);
    scanned.skipped.push(...expanded.skipped);
    scanned.files = await inspectAll(expanded.candidates);
    if (options.thumbnail) scanned.thumbnail = await inspect(resolve(cwd, options.thumbnail), options.thumbnail);
  }
  const all = [...scanned.files, ...(scanned.manifest ?? []).flatMap((m) => m.files)];
  scanned.sidecars = await readSidecars(all, cwd);
  return scanned;
}

async function inspect(path: string, shown: string): Promise<ScannedFile> {
  return { file: await inspectFile(path, shown), shown };
}

/** Inspects files a few at a time, keeping their order. */
async function inspectAll(candidates: ReadonlyArray<{ path: string; shown: string }>): Promise<ScannedFile[]> {
  const out: ScannedFile[] = new Array<ScannedFile>(candidates.length);
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const i = next++;
      const c = candidates[i]!;
      out[i] = await inspect(c.path, c.shown);
    }
  };
  await Promise.all(Array.from({ length: Math.min(INSPECT_CONCURRENCY, candidates.length) }, worker));
  return out;
}

/** The sidecars that exist: `<file>.json` beside each file, `carousel.json` and `<folder>.json` in each folder. */
async function readSidecars(files: readonly ScannedFile[], cwd: string): Promise<Record<string, Sidecar>> {
  const paths = new Set<string>();
  for (const { file } of files) {
    paths.add(videoSidecarName(file.path));
    for (const name of carouselSidecarNames(dirname(file.path))) paths.add(name);
  }
  const sidecars: Record<string, Sidecar> = {};
  for (const path of paths) {
    const shown = shownPath(path, cwd);
    const result = await readSidecar(path, shown);
    if (result.found)
      sidecars[path] = {
        shown,
        ...('problem' in result ? { problem: result.problem } : { metadata: result.metadata }),
      };
  }
  return sidecars;
}
