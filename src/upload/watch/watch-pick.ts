// Which files of the folders due in a watch to plan now: those that have settled and that this
// machine's journal does not know as uploaded. The folders are listed by the ordinary walk
// (../plan/plan-inputs.ts: the same skips, hidden folders and links as `upload DIR`), so a watch
// uploads what `upload DIR` would, only later. What is new is then planned and sent by the
// ordinary plan and engine, whose journal and content identity make it exactly once.
import { statSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { FORMATS, TYPE_RULES, formatOfFileName } from '../../rules/rules.js';
import type { FileIdentity } from '../send/journal.js';
import { expandInputs } from '../plan/plan-inputs.js';
import type { DuePath } from './watch-queue.js';
import { isPartialName } from './watch-names.js';
import { type Observation, readiness } from './watch-settle.js';
import type { SkippedFile } from '../plan/skips.js';

export interface PickDeps {
  journal: { completedItem(file: FileIdentity): string | undefined };
  /** Where relative paths in messages start from. */
  cwd: string;
  settleMs: number;
  /** Since when a folder has had no change the watcher saw (./watch-queue.ts). */
  quietSince: (folder: string) => number;
  now: () => number;
  /** --split: a folder's images go in carousels of at most the maximum (see `imagesToPlan`). */
  split?: boolean;
}

/** Files seen but not settled yet, by path: kept only until they settle or disappear. */
export type Observations = Map<string, Observation>;

export interface Picked {
  /** Absolute paths to plan, in walk order: the new videos, and every settled image of a folder that has a new one. */
  paths: string[];
  /** Paths to look at again, and when: folders with a file still being written. */
  later: Array<{ path: string; at: number }>;
  /**
   * Files in these folders that will never be uploaded, and why (a .txt, a HEIC, a link that
   * leaves the folder), for the log to say once each: a file dropped in a hot folder that
   * nothing happens to must not look like a watch that stopped working.
   */
  skipped: SkippedFile[];
}

/** Skips worth saying in a watch: not the system's own files nor .json files (sidecars may come before their video). */
function worthSaying(s: SkippedFile): boolean {
  if (s.kind === 'system' || s.kind === 'sidecar') return false;
  if (s.kind === 'hidden' && !s.media) return false;
  const name = (s.absPath ?? s.path).slice((s.absPath ?? s.path).lastIndexOf(sep) + 1);
  return !isPartialName(name);
}

export async function pickNew(due: readonly DuePath[], seen: Observations, deps: PickDeps): Promise<Picked> {
  const picked: Picked = { paths: [], later: [], skipped: [] };
  const shallow = new Set<string>();
  const deep: string[] = [];
  for (const d of due) {
    const isDir = statSync(d.path, { throwIfNoEntry: false })?.isDirectory() ?? false;
    if (!isDir) continue;
    if (d.deep) deep.push(d.path);
    else shallow.add(d.path);
  }
  const roots = [...new Set([...shallow, ...deep])].filter((p) => !underAny(p, deep));
  if (roots.length === 0) return picked;
  const { candidates, skipped } = await expandInputs(roots, deps.cwd);
  const inScope = (path: string) => shallow.has(dirname(path)) || underAny(path, deep);
  for (const s of skipped) if (s.absPath !== undefined && inScope(s.absPath) && worthSaying(s)) picked.skipped.push(s);
  // Per folder: its settled files, whether one is new, and when to look again.
  const folders = new Map<string, { images: Image[]; newImage: boolean; videos: string[]; recheck: number }>();
  const now = deps.now();
  for (const c of candidates) {
    // A name the service does not take (skippedAt) stays skipped; a partial name is not done.
    if (c.skippedAt !== undefined || !inScope(c.path)) continue;
    const name = c.path.slice(c.path.lastIndexOf(sep) + 1);
    if (isPartialName(name)) continue;
    const st = statSync(c.path, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const folder = dirname(c.path);
    let f = folders.get(folder);
    if (!f) folders.set(folder, (f = { images: [], newImage: false, videos: [], recheck: Infinity }));
    const r = readiness(now, st, seen.get(c.path), deps.quietSince(folder), deps.settleMs);
    if (!r.ready) {
      seen.set(c.path, r.seen);
      f.recheck = Math.min(f.recheck, now + r.recheckInMs);
      continue;
    }
    seen.delete(c.path);
    const itemId = deps.journal.completedItem({ path: c.path, size: st.size, mtimeMs: st.mtimeMs });
    const isNew = itemId === undefined;
    const format = formatOfFileName(name);
    if (format !== undefined && FORMATS[format].media === 'image') {
      f.images.push({ path: c.path, name, itemId });
      f.newImage ||= isNew;
    } else if (isNew) f.videos.push(c.path);
  }
  // Files seen before in these folders that are gone now (renamed, deleted) are forgotten.
  for (const path of seen.keys()) if (inScope(path) && !statSync(path, { throwIfNoEntry: false })) seen.delete(path);
  for (const [folder, f] of folders) {
    picked.paths.push(...f.videos);
    if (f.newImage) picked.paths.push(...imagesToPlan(f.images, Boolean(deps.split)));
    if (f.recheck !== Infinity) picked.later.push({ path: folder, at: f.recheck });
  }
  return picked;
}

export interface Image {
  path: string;
  name: string;
  /** The item the journal says it went into; undefined for a new image. */
  itemId: string | undefined;
}

const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * The images of a folder with a new one to plan. A carousel is planned whole, done images
 * included: the plan and the library then know it as the carousel they went into, and the new
 * ones are appended to it. With --split the folder's carousels must not be cut again as it grows
 * (12 images were 6 + 6; 13 would be 7 + 6, and the 7th image would go into the first carousel
 * too): only the last carousel and the new images are planned, appended to it while they fit,
 * else the new images alone become new carousels.
 */
export function imagesToPlan(images: readonly Image[], split: boolean): string[] {
  const done = images.filter((i) => i.itemId !== undefined);
  if (!split || done.length === 0) return images.map((i) => i.path);
  const fresh = images.filter((i) => i.itemId === undefined);
  const last = [...done].sort((a, b) => naturalOrder.compare(a.name, b.name)).at(-1)!.itemId;
  const lastImages = done.filter((i) => i.itemId === last);
  const group = lastImages.length + fresh.length <= TYPE_RULES.carousel.maxFiles ? [...lastImages, ...fresh] : fresh;
  return group.map((i) => i.path);
}

function underAny(path: string, folders: readonly string[]): boolean {
  return folders.some((f) => {
    const rel = relative(f, path);
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
  });
}
