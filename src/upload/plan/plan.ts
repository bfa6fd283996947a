// Planning an upload: paths, directories, globs or a manifest → the items to create, every file
// checked against the one rules table (src/rules/rules.ts), every problem listed at once, before
// a byte is sent. Two halves: scan.ts reads the disk (globbing, inspecting, sidecars, the
// manifest), decide.ts decides (a pure function of what was scanned and the options). The engine
// (src/upload/send/engine.ts) runs a plan only when `problems` is empty.
import { decide, type PlanOptions, type UploadPlan } from './decide.js';
import { join, resolve } from 'node:path';
import { exportManifestIn } from './manifest.js';
import { EXPORT_MANIFEST } from '../../rules/folder-names.js';
import { withPlatformChecks } from './platform-check.js';
import { leaveOutInvalid } from './salvage.js';
import { type Scanned, scan } from './scan.js';
import { collectAfter } from './collect.js';

export type { InspectedFile } from '../../media/inspect.js';
export {
  type PlanOptions,
  type PlannedFile,
  type PlannedItem,
  type ReadyItem,
  type UploadPlan,
  type LeftOut,
  readyItems,
} from './decide.js';
export type { ItemMetadata } from '../../api/schemas.js';
export type { SkippedFile, SkipKind } from './skips.js';
export { formatProblem, type PlanProblem } from '../../rules/problem.js';

export async function buildPlan(inputs: string[], options: PlanOptions, deps: { cwd: string }): Promise<UploadPlan> {
  const asExport = await exportFolder(inputs, options, deps.cwd);
  const [paths, opts] = asExport ? [[], asExport] : [inputs, options];
  const scanned = await scan(paths, opts, deps.cwd);
  const plan = await planScanned(scanned, paths, opts, deps.cwd);
  // What scanning found of the disk, for sending: whichever way the plan was made.
  return scanned.stalls ? { ...plan, stalls: true } : plan;
}

/** The plan of what was scanned: decided, checked for the platforms, salvaged with --skip-invalid. */
async function planScanned(scanned: Scanned, paths: string[], opts: PlanOptions, cwd: string): Promise<UploadPlan> {
  collectAfter(scanned.table.length);
  const decided = decide(scanned, paths, opts);
  // And after decide: what it left would otherwise meet the first requests' native memory and
  // set the run's peak (100,000 files: 124 instead of 134 MB, bench/notes.md).
  collectAfter(scanned.table.length);
  const plan = opts.for?.length ? await withPlatformChecks(decided, opts.for, cwd) : decided;
  if (!opts.skipInvalid || plan.problems.length === 0) return plan;
  const salvaged = leaveOutInvalid(scanned, paths, opts, plan);
  // Planned again without the files left out: the platforms' warnings about those kept still hold.
  const kept = new Set(salvaged.items.flatMap((i) => i.files.map((f) => f.path)));
  const platformWarnings = plan.warnings.filter(
    (w) => w.rule === 'platform' && w.path !== undefined && kept.has(w.path),
  );
  return salvaged.problems.length > 0
    ? salvaged
    : { ...salvaged, warnings: [...salvaged.warnings, ...platformWarnings] };
}

/**
 * `upload DIR` of a folder that `contentlib export` wrote: the options to read it by its
 * manifest (`DIR/contentlib.json`), which keeps every item's type, order, thumbnail and the
 * names the library knew; undefined for any other upload.
 */
async function exportFolder(inputs: string[], options: PlanOptions, cwd: string): Promise<PlanOptions | undefined> {
  const [only, ...rest] = inputs;
  if (options.manifest !== undefined || only === undefined || rest.length > 0) return undefined;
  const found = await exportManifestIn(resolve(cwd, only));
  return found ? { ...options, manifest: join(only, EXPORT_MANIFEST), manifestConfined: true } : undefined;
}
