// Checks that need the service, made before any byte is sent: the carousel named by --to (or a
// manifest's "to") exists, is a carousel, and has room for the new images.
import { ApiError } from '../api/errors.js';
import type { GetResponse } from '../api/schemas.js';
import { TYPE_RULES } from '../rules/rules.js';

export interface AppendTarget {
  contentItemId?: string;
  /** Images this run will add (those the journal has as added already are not counted). */
  newFiles: number;
  source: string;
}

/** One line per problem, "--to <id>: …; hint", in the style of the plan's problems. */
export async function checkAppendTargets(
  items: readonly AppendTarget[],
  api: { get(id: string, o?: { signal?: AbortSignal }): Promise<GetResponse> },
  signal?: AbortSignal,
): Promise<string[]> {
  const problems: string[] = [];
  for (const item of items) {
    const id = item.contentItemId;
    if (!id) continue;
    let current: GetResponse;
    try {
      current = await api.get(id, { signal });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        problems.push(
          `${item.source}: carousel ${id} is not in this library; find its id with: contentlib ls --type carousel`,
        );
        continue;
      }
      throw err;
    }
    if (current.item.type !== 'carousel') {
      problems.push(
        `${item.source}: ${id} is a ${current.item.type}, not a carousel; images can only be appended to a carousel`,
      );
      continue;
    }
    const max = TYPE_RULES.carousel.maxFiles;
    const have = current.files.length;
    if (have + item.newFiles > max) {
      problems.push(
        `${item.source}: carousel ${id} has ${have} images; ${item.newFiles} more would be over the maximum of ${max}; append at most ${Math.max(0, max - have)}`,
      );
    }
  }
  return problems;
}
