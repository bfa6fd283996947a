// Checks that need the service, made before any byte is sent: the carousel named by --to (or a
// manifest's "to") exists, is a carousel, and has room for the new images.
import { ApiError } from '../../api/errors.js';
import type { GetResponse } from '../../api/schemas.js';
import type { PlanProblem } from '../../rules/problem.js';
import { TYPE_RULES } from '../../rules/rules.js';

export interface AppendTarget {
  contentItemId?: string;
  /** Images this run will add (those the journal has as added already are not counted). */
  newFiles: number;
  source: string;
}

/**
 * One problem per carousel that cannot take the images, as the plan's problems are: its rule
 * says which (`to-unknown`, `to-type`: the id is wrong; `carousel-full`: it has no room), and
 * `item` which planned item it is about.
 */
export async function checkAppendTargets(
  items: readonly AppendTarget[],
  api: { get(id: string, o?: { signal?: AbortSignal }): Promise<GetResponse> },
  signal?: AbortSignal,
): Promise<PlanProblem[]> {
  const problems: PlanProblem[] = [];
  for (const [index, item] of items.entries()) {
    const id = item.contentItemId;
    if (!id) continue;
    let current: GetResponse;
    try {
      current = await api.get(id, { signal });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        problems.push({
          file: item.source,
          rule: 'to-unknown',
          actual: id,
          message: `carousel ${id} is not in this library`,
          hint: 'find its id with: contentlib ls --type carousel',
          item: index,
        });
        continue;
      }
      throw err;
    }
    if (current.item.type !== 'carousel') {
      problems.push({
        file: item.source,
        rule: 'to-type',
        actual: current.item.type,
        message: `${id} is a ${current.item.type}, not a carousel`,
        hint: 'images can only be appended to a carousel: find one with contentlib ls --type carousel',
        item: index,
      });
      continue;
    }
    const max = TYPE_RULES.carousel.maxFiles;
    const have = current.files.length;
    if (have + item.newFiles > max) {
      problems.push({
        file: item.source,
        rule: 'carousel-full',
        actual: `${have} + ${item.newFiles} images`,
        message: `carousel ${id} has ${have} images; ${item.newFiles} more would be over the maximum of ${max}`,
        hint: `append at most ${Math.max(0, max - have)}`,
        item: index,
      });
    }
  }
  return problems;
}
