// Planning an upload: paths, directories, globs or a manifest → the items to create, every file
// checked against the one rules table (src/rules/rules.ts), every problem listed at once, before
// a byte is sent. Two halves: scan.ts reads the disk (globbing, inspecting, sidecars, the
// manifest), decide.ts decides (a pure function of what was scanned and the options). The engine
// (src/upload/engine.ts) runs a plan only when `problems` is empty.
import { decide, type PlanOptions, type UploadPlan } from './decide.js';
import { scan } from './scan.js';

export type { InspectedFile } from '../media/inspect.js';
export {
  type PlanOptions,
  type PlannedFile,
  type PlannedItem,
  type ReadyItem,
  type UploadPlan,
  readyItems,
} from './decide.js';
export type { ItemMetadata } from '../api/schemas.js';
export type { SkippedFile, SkipKind } from './skips.js';
export { formatProblem, type PlanProblem } from '../rules/problem.js';

export async function buildPlan(inputs: string[], options: PlanOptions, deps: { cwd: string }): Promise<UploadPlan> {
  return decide(await scan(inputs, options, deps.cwd), inputs, options);
}
