// --skip-invalid: a plan with problems, made into the plan of what is valid. A file that breaks a
// rule is left out, and so is an item whose problem is its own (a carousel of one image once its
// other images were left out, a bad sidecar); the rest is planned again, until nothing is wrong.
// Problems that are about no file or item (a flag, the manifest's shape, nothing left to upload)
// still refuse the whole upload: there is nothing to leave out for them. Pure: decide() again on
// what scan() found, with fewer files.
import type { PlanProblem } from '../../rules/problem.js';
import { type LeftOut, type PlanOptions, type UploadPlan, decide } from './decide.js';
import type { Scanned } from './scan.js';

/** Planning again can only remove files, so a few rounds settle it (a carousel that falls below two images is the second). */
const MAX_ROUNDS = 4;

export function leaveOutInvalid(
  scanned: Scanned,
  inputs: readonly string[],
  options: PlanOptions,
  first: UploadPlan,
): UploadPlan {
  let plan = first;
  let current = scanned;
  const leftOut: LeftOut[] = [];
  for (let round = 0; round < MAX_ROUNDS && plan.problems.length > 0; round++) {
    if (!plan.problems.every((p) => p.path !== undefined || p.item !== undefined)) break;
    const bad = new Set<string>();
    const byItem = new Map<number, PlanProblem[]>();
    const byFile = new Map<string, { source: string; problems: PlanProblem[] }>();
    for (const p of plan.problems) {
      if (p.path !== undefined) {
        const entry = byFile.get(p.path) ?? { source: p.file, problems: [] };
        entry.problems.push(p);
        byFile.set(p.path, entry);
        bad.add(p.path);
      } else byItem.set(p.item!, [...(byItem.get(p.item!) ?? []), p]);
    }
    for (const [index, problems] of byItem) {
      const item = plan.items[index]!;
      const paths = item.files.map((f) => f.path).filter((path) => !bad.has(path));
      if (item.thumbnail) paths.push(item.thumbnail.path);
      for (const path of paths) bad.add(path);
      leftOut.push({ source: item.source, paths, problems });
    }
    for (const [path, { source, problems }] of byFile) leftOut.push({ source, paths: [path], problems });
    current = without(current, bad);
    plan = decide(current, inputs, options);
  }
  if (plan.problems.length > 0) return { ...first, leftOut: [] };
  return { ...plan, leftOut };
}

/** What scan() found, less the files at `bad` (and the problems about them). */
function without(scanned: Scanned, bad: ReadonlySet<string>): Scanned {
  const keep = (s: { file: { path: string } }) => !bad.has(s.file.path);
  const keepId = (id: number) => !bad.has(scanned.table.path(id));
  return {
    ...scanned,
    files: scanned.files.filter(keepId),
    problems: scanned.problems.filter((p) => p.path === undefined || !bad.has(p.path)),
    ...(scanned.manifest
      ? {
          manifest: scanned.manifest.map((m) => {
            const thumbnail = m.thumbnail && keep(m.thumbnail) ? m.thumbnail : undefined;
            return {
              ...m,
              files: m.files.filter(keepId),
              item: { ...m.item, files: m.item.files.filter((path) => !bad.has(path)) },
              ...(thumbnail ? { thumbnail } : { thumbnail: undefined }),
            };
          }),
        }
      : {}),
    ...(scanned.thumbnail && !keep(scanned.thumbnail) ? { thumbnail: undefined } : {}),
  };
}
