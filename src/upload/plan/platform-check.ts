// `upload --for reels,shorts`: every planned file measured (src/media/facts.ts, the parsers the
// server runs at complete) and judged against each named platform's row (src/rules/platforms.ts)
// with its item's description and hashtags, before a byte is sent. What a platform refuses is a
// problem of that file (the upload is refused, exit 2, or --skip-invalid leaves the file out);
// what it takes with bars or a crop is a warning.
import { relative } from 'node:path';
import { readMediaFactsFile } from '../../media/facts.js';
import { MediaError } from '../../media/errors.js';
import { type PlatformId, checkFor, checkImageCount } from '../../rules/platforms.js';
import type { PlanProblem } from '../../rules/problem.js';
import type { UploadPlan } from './decide.js';

/** The plan with the platforms' problems and warnings added to its own. */
export async function withPlatformChecks(
  plan: UploadPlan,
  platforms: readonly PlatformId[],
  cwd: string,
): Promise<UploadPlan> {
  const problems: PlanProblem[] = [];
  const warnings: PlanProblem[] = [];
  for (const [index, item] of plan.items.entries()) {
    const { description, hashtags } = item.metadata;
    for (const file of item.files) {
      // A file the plan already refuses (unreadable, wrong format) is reported once, by the plan.
      if (file.problems.length > 0 || !file.realFormat) continue;
      const shown = relative(cwd, file.path) || file.name;
      let facts;
      try {
        facts = await readMediaFactsFile(file.path);
      } catch (err) {
        if (!(err instanceof MediaError)) throw err;
        problems.push({ file: shown, rule: 'platform', actual: err.reason, message: err.message, path: file.path });
        continue;
      }
      for (const platform of platforms) {
        const input = {
          facts,
          fileSize: file.size,
          ...(description !== undefined ? { description } : {}),
          ...(hashtags !== undefined ? { hashtags } : {}),
        };
        for (const v of checkFor(input, platform)) {
          const p: PlanProblem = {
            file: shown,
            rule: 'platform',
            actual: `${platform}: ${v.value}`,
            message: `${platform}: ${v.message}`,
            path: file.path,
          };
          (v.severity === 'error' ? problems : warnings).push(p);
        }
      }
    }
    if (item.type === 'carousel')
      for (const platform of platforms) {
        const v = checkImageCount(item.files.length, platform);
        if (v)
          problems.push({
            file: item.source,
            rule: 'platform',
            actual: `${platform}: ${v.value}`,
            message: `${platform}: ${v.message}`,
            item: index,
          });
      }
  }
  return { ...plan, problems: [...plan.problems, ...problems], warnings: [...plan.warnings, ...warnings] };
}
